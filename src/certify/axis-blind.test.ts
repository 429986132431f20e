import { describe, expect, it } from "vitest";
import {
  answer,
  bearer,
  callPremise as call,
  ctxOf,
  type Execute,
  get,
  mint,
  blindRoute as route,
  send,
  whole,
  blindWorld as world,
} from "../../test/support/blind-segments.js";
import type { Premise } from "../bank/premise-schema.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { blindSegment, renameStep } from "./axis-blind.js";

/**
 * Each axis's blind rewrite of a golden segment, on hand-built segments of the harbour world (with
 * the listing paginated, job routes and a decoy listed first where a case needs them). The rewrite
 * is pure: these run in milliseconds, for every mutant of `npm run mutate certify-axis-necessity`;
 * the gate's verdicts on whole tasks are in axis-necessity-checks.test.ts.
 */

describe("renameStep", () => {
  it("renames a store's source and a send's placeholders, each rename in turn", () => {
    const renames: Array<[string, string]> = [
      ["a", "b"],
      ["b", "c"],
    ];
    expect(renameStep({ op: "store", name: "kept", scope: "local", from: "a" }, renames)).toEqual({
      op: "store",
      name: "kept",
      scope: "local",
      from: "c",
    });
    expect(renameStep({ op: "store", name: "kept", scope: "local", from: "z" }, renames)).toEqual({
      op: "store",
      name: "kept",
      scope: "local",
      from: "z",
    });
    expect(renameStep(get("/v3/vessels/{{a}}"), renames)).toEqual(get("/v3/vessels/{{c}}"));
    expect(renameStep(answer, renames)).toEqual(answer);
  });
});

describe("pagination-blind: one page at the largest size the route allows", () => {
  const vessels = (ids: string[]) => ids.map((vessel_id) => ({ vessel_id, name: `ship ${vessel_id}` }));
  /** A three-page walk of the vessel listing, 2 a page: a name read on page 2, the record picked on page 3. */
  const walk = (query = "") => [
    mint(),
    get(`/v3/vessels?per_page=2&page=1${query}`, { total: "total" }),
    get(`/v3/vessels?per_page=2&page=2${query}`, { name: "vessels.0.name" }),
    get(`/v3/vessels?per_page=2&page=3${query}`, { pick: "vessels.0.vessel_id" }),
    answer,
  ];
  const bodies = {
    1: { vessels: vessels(["V-1", "V-2"]), total: 5 },
    2: { vessels: vessels(["V-3", "V-4"]), total: 5 },
    3: { vessels: vessels(["V-5"]), total: 5 },
  };

  it.each([
    ["page", "page=1&per_page=3", "per_page=3"],
    ["link", "page=1&per_page=3", "per_page=3"],
    ["offset", "offset=0&limit=3", "limit=3"],
    ["cursor", "limit=3", "limit=3"],
  ] as const)("%s style: one request for the first page, other parameters kept", (style, query, what) => {
    const ctx = ctxOf(walk("&fleet=north&cursor=c1&offset=2&limit=2"), {
      world: world({ style, max_page_size: 3 }),
      bodies,
    });
    const blind = whole("pagination", ctx);
    expect(blind.what).toEqual([`one page of /v3/vessels at ${what}`]);
    expect(blind.renames).toEqual([]);
    expect(blind.steps).toEqual([
      mint(),
      // V-3 is the third record listed; V-5, beyond the blind page of 3, is replaced by its first.
      get(`/v3/vessels?fleet=north&${query}`, {
        total: "total",
        name: "vessels.2.name",
        pick: "vessels.0.vessel_id",
      }),
      answer,
    ]);
  });

  it("a record within the blind page is found there; the page size defaults to 100", () => {
    const ctx = ctxOf(walk(), { world: world({ style: "page" }), bodies });
    const blind = whole("pagination", ctx);
    expect(blind.what).toEqual(["one page of /v3/vessels at per_page=100"]);
    expect(blind.steps[1]).toEqual(
      get("/v3/vessels?page=1&per_page=100", {
        total: "total",
        name: "vessels.2.name",
        pick: "vessels.4.vessel_id",
      }),
    );
  });

  it("captures that are not a listed record's field are kept as written", () => {
    const steps = [
      get("/v3/vessels?page=1", {
        a: "total",
        b: "vessels.first.vessel_id",
        c: "vessels.1",
        d: "vessels.1x.vessel_id",
        e: "others.1.vessel_id",
        g: "vessels.x1.vessel_id",
      }),
      get("/v3/vessels?page=2", { f: "vessels.1.vessel_id" }),
    ];
    const ctx = ctxOf(steps, {
      world: world({ style: "page", max_page_size: 10 }),
      bodies: {
        0: { vessels: vessels(["V-1", "V-2"]), total: 3 },
        1: { vessels: vessels(["V-2", "V-3"]), total: 3 },
      },
    });
    expect(whole("pagination", ctx).steps).toEqual([
      get("/v3/vessels?page=1&per_page=10", {
        a: "total",
        b: "vessels.first.vessel_id",
        c: "vessels.1",
        d: "vessels.1x.vessel_id",
        e: "others.1.vessel_id",
        g: "vessels.x1.vessel_id",
        // V-2 listed twice counts once: V-3 is the third record of the collection.
        f: "vessels.2.vessel_id",
      }),
    ]);
  });

  it("pages with no listing in their body add no records; the listing is found under any key", () => {
    const steps = [
      get("/v3/vessels?page=1"),
      get("/v3/vessels?page=2"),
      get("/v3/vessels?page=3"),
      get("/v3/vessels?page=4", { pick: "items.1.vessel_id" }),
    ];
    const ctx = ctxOf(steps, {
      world: world({ style: "page", max_page_size: 10 }),
      bodies: { 1: [[{ vessel_id: "V-0" }]], 2: "no page", 3: { total: 2, items: vessels(["V-7", "V-8"]) } },
    });
    expect(whole("pagination", ctx).steps).toEqual([
      get("/v3/vessels?page=1&per_page=10", { pick: "items.1.vessel_id" }),
    ]);
  });

  it("leaves a segment with no paginated walk as it is: a plain read, an unsent step, a write", () => {
    const steps = [
      mint(),
      get("/v3/vessels/V-204", { b: "berth" }),
      get("/v3/vessels?page=1"),
      send("POST", "/v3/maintenance-orders", { order: "order_id" }),
      answer,
    ];
    const ctx = ctxOf(steps, { world: world({ style: "page" }), unsent: [2] });
    expect(whole("pagination", ctx)).toEqual({ steps, renames: [], what: [] });
  });

  it("blinds only its own segment, reading each step's exchange by its golden index", () => {
    const steps = [
      get("/v3/vessels?page=1&per_page=2", { early: "vessels.1.vessel_id" }),
      ...walk().slice(1),
    ];
    const ctx = ctxOf(steps, {
      world: world({ style: "page", max_page_size: 3 }),
      bodies: { 0: { vessels: vessels(["V-1", "V-2"]) }, ...bodies },
    });
    const blind = blindSegment("pagination", ctx, 1, 4);
    expect(blind.steps).toEqual([
      get("/v3/vessels?page=1&per_page=3", {
        total: "total",
        name: "vessels.2.name",
        pick: "vessels.0.vessel_id",
      }),
    ]);
  });

  it("walks of two listings are each cut to one page", () => {
    const orders = route({
      id: "listOrders",
      method: "GET",
      path: "/v3/maintenance-orders",
      resource: "maintenance-orders",
      action: "list",
      pagination: { style: "offset", max_page_size: 5 },
    });
    const steps = [
      get("/v3/vessels?page=1"),
      get("/v3/maintenance-orders?offset=0"),
      get("/v3/vessels?page=2"),
    ];
    const ctx = ctxOf(steps, { world: world({ style: "page", max_page_size: 3 }, [orders]) });
    const blind = whole("pagination", ctx);
    expect(blind.what).toEqual([
      "one page of /v3/vessels at per_page=3",
      "one page of /v3/maintenance-orders at limit=5",
    ]);
    expect(blind.steps).toEqual([
      get("/v3/vessels?page=1&per_page=3"),
      get("/v3/maintenance-orders?offset=0&limit=5"),
    ]);
  });
});

describe("auth-blind: never re-mints, never signs", () => {
  it("a second mint is dropped: its token becomes the first's, and its pause is taken before the next call", () => {
    const steps: GoldenStep[] = [
      mint({ token: "access_token", expires: "expires_in" }),
      send("GET", "/v3/vessels/V-204", { b: "berth" }, { headers: bearer("token") }),
      mint({ token2: "access_token", other: "scope" }, { "X-Apiflow-Wait": "30" }),
      { op: "store", name: "kept", scope: "local", from: "token2" },
      send("GET", "/v3/vessels/V-311", {}, { headers: { ...bearer("token2"), "x-apiflow-wait": "5" } }),
      send("GET", "/v3/vessels/V-412", {}, { headers: bearer("token2") }),
      answer,
    ];
    const blind = whole("auth", ctxOf(steps));
    expect(blind.what).toEqual(["1 re-mint(s) dropped"]);
    expect(blind.renames).toEqual([["token2", "token"]]);
    expect(blind.steps).toEqual([
      steps[0],
      steps[1],
      { op: "store", name: "kept", scope: "local", from: "token" },
      send("GET", "/v3/vessels/V-311", {}, { headers: { ...bearer("token"), "x-apiflow-wait": "35" } }),
      send("GET", "/v3/vessels/V-412", {}, { headers: bearer("token") }),
      answer,
    ]);
  });

  it("a dropped mint under the same binding name renames nothing, and one with no pause adds none", () => {
    const steps = [
      mint(),
      mint({ token: "access_token" }),
      send("GET", "/v3/vessels/V-204", {}, { headers: bearer("token") }),
    ];
    const blind = whole("auth", ctxOf(steps));
    // The same binding name: nothing to rename.
    expect(blind.renames).toEqual([]);
    expect(blind.steps).toEqual([mint(), send("GET", "/v3/vessels/V-204", {}, { headers: bearer("token") })]);
  });

  it("mints are told apart by position: one mint object sent twice (a generated chain's) is still a re-mint", () => {
    const once = mint();
    const read = send("GET", "/v3/vessels/V-204", {}, { headers: bearer("token") });
    const blind = whole("auth", ctxOf([once, read, once, read]));
    expect(blind.what).toEqual(["1 re-mint(s) dropped"]);
    expect(blind.steps).toEqual([once, read, read]);
    // A later segment holding the same object as the earlier one's mint drops it too.
    expect(blindSegment("auth", ctxOf([once, read, once, read]), 2, 4).steps).toEqual([read]);
  });

  it("a segment after a mint keeps the earlier token: its own mint is dropped", () => {
    const steps = [mint({ t1: "access_token" }), mint({ t2: "access_token" }), get("/v3/vessels/{{t2}}")];
    const blind = blindSegment("auth", ctxOf(steps), 1, 3);
    expect(blind.renames).toEqual([["t2", "t1"]]);
    expect(blind.steps).toEqual([get("/v3/vessels/{{t1}}")]);
    expect(blind.what).toEqual(["1 re-mint(s) dropped"]);
  });

  it("a client that held the vault's stale token: the blind agent keeps it and mints nothing", () => {
    const steps = [
      mint({ tok: "access_token", ttl: "expires_in" }, { "x-apiflow-wait": "10" }),
      send("GET", "/v3/vessels/V-204", {}, { headers: bearer("tok") }),
    ];
    const premises = [call({ token: "stale", status: 401 })];
    const blind = whole("auth", ctxOf(steps, { premises, vault: { access_token: "tk_hb_old" } }));
    expect(blind.what).toEqual(["the vault's access_token kept, 1 mint(s) dropped"]);
    expect(blind.renames).toEqual([["tok", "access_token"]]);
    expect(blind.steps).toEqual([
      send(
        "GET",
        "/v3/vessels/V-204",
        {},
        { headers: { ...bearer("access_token"), "x-apiflow-wait": "10" } },
      ),
    ]);
  });

  it("the vault's token is kept only when the client held it stale, the vault has it and no earlier mint exists", () => {
    const steps = [mint({ tok: "access_token" }), get("/v3/vessels/{{tok}}")];
    const stale = [call({ token: "stale", status: 401 })];
    const unchanged = { steps, renames: [], what: [] };
    expect(whole("auth", ctxOf(steps, { premises: stale }))).toEqual(unchanged);
    expect(
      whole(
        "auth",
        ctxOf(steps, { premises: [call({ token: "fresh" })], vault: { access_token: "tk_hb_old" } }),
      ),
    ).toEqual(unchanged);
    expect(
      whole(
        "auth",
        ctxOf(steps, {
          premises: [{ kind: "spec_body", method: "GET", path: "/v3/vessels", fields: ["x"] }],
          vault: { access_token: "tk_hb_old" },
        }),
      ),
    ).toEqual(unchanged);
    const after = [mint({ t0: "access_token" }), ...steps];
    expect(
      blindSegment("auth", ctxOf(after, { premises: stale, vault: { access_token: "tk_hb_old" } }), 1, 3),
    ).toEqual({
      steps: [get("/v3/vessels/{{t0}}")],
      renames: [["tok", "t0"]],
      what: ["1 re-mint(s) dropped"],
    });
  });

  it("in an API-key world the vault's key is the credential kept", () => {
    const keyed: World = { ...world(), auth: { ...HARBOR_WORLD.auth, scheme: "api_key" } };
    const steps = [mint({ key: "api_key" }), get("/v3/vessels/{{key}}")];
    const blind = whole(
      "auth",
      ctxOf(steps, { world: keyed, premises: [call({ token: "stale" })], vault: { api_key: "k_old" } }),
    );
    expect(blind.renames).toEqual([["key", "api_key"]]);
    expect(blind.what).toEqual(["the vault's api_key kept, 1 mint(s) dropped"]);
  });

  it("signed requests go out unsigned, with or without a mint", () => {
    const sign = { secret: "{{client_secret}}" };
    const steps = [
      send("GET", "/v3/vessels/V-204", {}, { sign }),
      get("/v3/vessels/V-311"),
      send("POST", "/v3/maintenance-orders", {}, { sign, body: { a: 1 } }),
    ];
    const blind = whole("auth", ctxOf(steps));
    expect(blind.what).toEqual(["2 signed request(s) sent unsigned"]);
    expect(blind.steps).toEqual([
      get("/v3/vessels/V-204"),
      get("/v3/vessels/V-311"),
      send("POST", "/v3/maintenance-orders", {}, { body: { a: 1 } }),
    ]);
    const minted = [mint(), mint({ t2: "access_token" }), send("GET", "/v3/vessels/{{t2}}", {}, { sign })];
    expect(whole("auth", ctxOf(minted))).toEqual({
      steps: [minted[0], get("/v3/vessels/{{token}}")],
      renames: [["t2", "token"]],
      what: ["1 re-mint(s) dropped", "1 signed request(s) sent unsigned"],
    });
  });
});

describe("discovery-blind: the first candidate", () => {
  const v1 = route({
    id: "getVesselV1",
    method: "GET",
    path: "/v1/ships/{vessel_id}",
    resource: "vessels",
    action: "get",
    status: "deprecated",
    version: "v1",
  });

  const toV2 = "GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}";

  it("the first documented route of its resource, action and method in the spec's order, whatever the ticket's client used", () => {
    // The harbour world lists its deprecated read (/v2) before the current one (/v3).
    const steps = [mint(), get("/v3/vessels/V-311", { b: "berth" }), send("POST", "/v3/maintenance-orders")];
    const moved = {
      steps: [steps[0], get("/v2/vessels/V-311", { b: "berth" }), steps[2]],
      renames: [],
      what: [toV2],
    };
    expect(whole("discovery", ctxOf(steps))).toEqual(moved);
    // The client's call (its route, its status) does not steer the blind agent.
    for (const premise of [
      call({ url: "/v2/vessels/V-311", status: 200 }),
      call({ url: "/v2/vessels/V-311", status: 404 }),
      call({ url: "/v3/vessels/V-204", status: 200 }),
      call({ method: "POST", url: "/v2/vessels/V-311" }),
    ])
      expect(whole("discovery", ctxOf(steps, { premises: [premise] }))).toEqual(moved);
  });

  it("a call already on the first candidate is kept; a world listing its right route first makes no change", () => {
    const onFirst = [get("/v2/vessels/V-311")];
    expect(whole("discovery", ctxOf(onFirst))).toEqual({ steps: onFirst, renames: [], what: [] });
    // Built to fail the gate: the right route first in the spec, so the blind agent plays the golden.
    const rightFirst: World = {
      ...world(),
      routes: [...world().routes].sort(
        (x, y) => Number(x.path.startsWith("/v2/")) - Number(y.path.startsWith("/v2/")),
      ),
    };
    const steps = [get("/v3/vessels/V-311")];
    expect(whole("discovery", ctxOf(steps, { world: rightFirst }))).toEqual({ steps, renames: [], what: [] });
  });

  it("else the first documented route of its resource and action, path parameters carried", () => {
    const steps = [get("/v3/vessels/V-311?x=1", { b: "berth" }), get("/v3/maintenance-orders/MO-1")];
    const blind = whole("discovery", ctxOf(steps, { world: world(undefined, [v1]) }));
    expect(blind.steps).toEqual([get("/v1/ships/V-311?x=1", { b: "berth" }), steps[1]]);
    expect(blind.what).toEqual(["GET /v1/ships/{vessel_id} instead of /v3/vessels/{vessel_id}"]);
    // An undocumented first route, or one for another method, is not a candidate: the next one is.
    for (const other of [
      { ...v1, documented: false },
      { ...v1, method: "PUT" as const },
    ])
      expect(whole("discovery", ctxOf(steps, { world: world(undefined, [other]) })).what).toEqual([toV2]);
  });

  it("a first route whose path needs a parameter the call does not carry is not taken", () => {
    const fleet = { ...v1, path: "/v1/fleets/{fleet}/ships/{vessel_id}" };
    const steps = [get("/v3/vessels/V-311")];
    expect(whole("discovery", ctxOf(steps, { world: world(undefined, [fleet]) }))).toEqual({
      steps,
      renames: [],
      what: [],
    });
  });

  it("undocumented query parameters are left out; documented ones and unknown ones stay", () => {
    const params = [
      { name: "include_archived", documented: false },
      { name: "fleet" },
      { name: "debug", documented: false },
    ];
    const w: World = {
      ...world(),
      routes: world().routes.map((r) => (r.id === "listVessels" ? { ...r, query_params: params } : r)),
    };
    const steps = [
      get("/v3/vessels?fleet=north&include_archived=true&z=1"),
      get("/v3/vessels?include_archived=1"),
    ];
    const blind = whole("discovery", ctxOf(steps, { world: w }));
    expect(blind.steps).toEqual([get("/v3/vessels?fleet=north&z=1"), get("/v3/vessels")]);
    expect(blind.what).toEqual([
      "undocumented parameter include_archived left out",
      "undocumented parameter include_archived left out",
    ]);
  });

  it("steps that match no route, or are not REST calls, are kept", () => {
    const steps: GoldenStep[] = [{ op: "read_spec" }, get("/nowhere"), mint(), answer];
    expect(whole("discovery", ctxOf(steps))).toEqual({ steps, renames: [], what: [] });
  });

  it("a record picked from an unpaginated listing is its first one", () => {
    const steps = [
      get("/v3/vessels", { pick: "vessels.2.vessel_id", count: "total" }),
      get("/v2/vessels/{{pick}}"),
    ];
    const blind = whole("discovery", ctxOf(steps));
    expect(blind.steps).toEqual([
      get("/v3/vessels", { count: "total", pick: "vessels.0.vessel_id" }),
      steps[1],
    ]);
    expect(blind.what).toEqual(["the first record listed by GET /v3/vessels taken, from its first page"]);
  });

  it("a listing whose pick already is its first record, or that picks none, is no change", () => {
    const captures: Array<Record<string, string>> = [{ pick: "vessels.0.vessel_id" }, { count: "total" }];
    for (const capture of captures) {
      const steps = [get("/v3/vessels", capture)];
      expect(whole("discovery", ctxOf(steps))).toEqual({ steps, renames: [], what: [] });
    }
    // A listing the golden run never sent, or a non-GET call to it, is not a walk.
    const steps = [get("/v3/vessels", { pick: "vessels.2.vessel_id" })];
    expect(whole("discovery", ctxOf(steps, { unsent: [0] })).what).toEqual([]);
    expect(
      whole("discovery", ctxOf([send("POST", "/v3/vessels", { pick: "vessels.2.vessel_id" })])).what,
    ).toEqual([]);
  });

  it("a paginated walk: the pick comes from the first page read, later pages are not read", () => {
    const steps = [
      get("/v3/vessels?page=1", { total: "total" }),
      get("/v3/vessels?page=2", { pick: "vessels.1.vessel_id", pages: "total_pages" }),
      get("/v2/vessels/{{pick}}"),
    ];
    const blind = whole("discovery", ctxOf(steps, { world: world({ style: "page" }) }));
    expect(blind.steps).toEqual([
      get("/v3/vessels?page=1", { total: "total", pick: "vessels.0.vessel_id", pages: "total_pages" }),
      steps[2],
    ]);
    expect(blind.what).toEqual(["the first record listed by GET /v3/vessels taken, from its first page"]);
    // The first page's pick of its first record: no change but the pages not read.
    const first = [get("/v3/vessels?page=1", { pick: "vessels.0.vessel_id" }), get("/v3/vessels?page=2")];
    expect(whole("discovery", ctxOf(first, { world: world({ style: "page" }) })).steps).toEqual([first[0]]);
  });
});

describe("schema_repair- and error_recovery-blind: the quoted call sent as the client sent it", () => {
  const order = { vessel_id: "V-204", priority: "high", firmware_build: "FW-1" };
  const golden = () => [
    mint(),
    get("/v3/vessels/V-204", { fw: "firmware_build" }),
    send(
      "POST",
      "/v3/maintenance-orders",
      { o: "order_id" },
      {
        headers: { ...bearer("token"), "Content-Type": "application/json", "X-Api-Key": "k" },
        body: order,
      },
    ),
    send("POST", "/v3/maintenance-orders", { o2: "order_id" }, { headers: bearer("token"), body: order }),
    answer,
  ];
  const quoted = (status: number, extra: Partial<Extract<Premise, { kind: "call" }>> = {}) =>
    call({ method: "POST", url: "/v3/maintenance-orders", body: { vessel: "V-204" }, status, ...extra });

  it.each(["schema_repair", "error_recovery"] as const)(
    "%s: every repaired send from the first on is the client's own call, credentials kept",
    (axis) => {
      const steps = golden();
      const blind = whole(axis, ctxOf(steps, { premises: [quoted(422)] }));
      expect(blind.what).toEqual(["POST /v3/maintenance-orders sent as the client sent it (2×)"]);
      expect(blind.renames).toEqual([]);
      expect(blind.steps).toEqual([
        steps[0],
        steps[1],
        send(
          "POST",
          "/v3/maintenance-orders",
          { o: "order_id" },
          {
            headers: { ...bearer("token"), "X-Api-Key": "k" },
            body: { vessel: "V-204" },
          },
        ),
        send(
          "POST",
          "/v3/maintenance-orders",
          { o2: "order_id" },
          {
            headers: bearer("token"),
            body: { vessel: "V-204" },
          },
        ),
        answer,
      ]);
    },
  );

  it("only failed calls (400 and up) are quoted, except a 401 (the auth axis's)", () => {
    for (const status of [200, 399, 401])
      expect(whole("schema_repair", ctxOf(golden(), { premises: [quoted(status)] })).what).toEqual([]);
    expect(whole("schema_repair", ctxOf(golden(), { premises: [quoted(400)] })).what).toHaveLength(1);
    const spec: Premise = {
      kind: "spec_body",
      method: "POST",
      path: "/v3/maintenance-orders",
      fields: ["a"],
    };
    expect(whole("schema_repair", ctxOf(golden(), { premises: [spec] })).what).toEqual([]);
  });

  it("a call without a body, or without credentials, is resent without them", () => {
    const steps = [get("/v3/vessels/V-204"), get("/v3/vessels/V-204")];
    const blind = whole(
      "error_recovery",
      ctxOf(steps, { premises: [call({ url: "/v3/vessels/V-204?debug=1", status: 429 })] }),
    );
    expect(blind.steps).toEqual([get("/v3/vessels/V-204?debug=1"), get("/v3/vessels/V-204?debug=1")]);
    expect(blind.what).toEqual(["GET /v3/vessels/V-204?debug=1 sent as the client sent it (2×)"]);
  });

  it("a write the client sent to a wrong path: the golden's first write to a route other than the token's", () => {
    const steps = golden();
    const blind = whole(
      "schema_repair",
      ctxOf(steps, { premises: [quoted(404, { url: "/v3/maintenance-orders/Nordic", body: undefined })] }),
    );
    expect(blind.what).toEqual(["POST /v3/maintenance-orders/Nordic sent as the client sent it (2×)"]);
    expect(blind.steps.slice(0, 2)).toEqual(steps.slice(0, 2));
    expect(blind.steps[2]).toEqual(
      send(
        "POST",
        "/v3/maintenance-orders/Nordic",
        { o: "order_id" },
        { headers: { ...bearer("token"), "X-Api-Key": "k" } },
      ),
    );
    // A read the client sent to a wrong path has no such stand-in.
    expect(
      whole("schema_repair", ctxOf(steps, { premises: [call({ url: "/v3/ships/Nordic", status: 404 })] }))
        .what,
    ).toEqual([]);
  });

  it("a method the golden never sends there: its first write there is the call, and later writes of that method", () => {
    const steps = [
      get("/v3/maintenance-orders/MO-1"),
      send("PATCH", "/v3/maintenance-orders/MO-1", {}, { body: { status: "done" } }),
      send("POST", "/v3/maintenance-orders/MO-1", {}, { body: { status: "done" } }),
      send("PATCH", "/v3/maintenance-orders/MO-1", {}, { body: { status: "done" } }),
    ];
    const blind = whole(
      "error_recovery",
      ctxOf(steps, { premises: [call({ method: "PUT", url: "/v3/maintenance-orders/MO-1", status: 409 })] }),
    );
    expect(blind.steps).toEqual([
      steps[0],
      send("PUT", "/v3/maintenance-orders/MO-1", {}),
      steps[2],
      send("PUT", "/v3/maintenance-orders/MO-1", {}),
    ]);
  });

  it("a send replaced for one quoted call is not replaced again for the next", () => {
    const blind = whole(
      "schema_repair",
      ctxOf(golden(), { premises: [quoted(422), quoted(409, { body: { v: 2 } })] }),
    );
    expect(blind.what).toEqual(["POST /v3/maintenance-orders sent as the client sent it (2×)"]);
    expect((blind.steps[2] as Execute).request.body).toEqual({ vessel: "V-204" });
  });

  it("the path is matched on what the golden run sent, not on the step's placeholders", () => {
    const steps = [get("/v3/vessels/{{id}}"), get("/v3/vessels/V-311")];
    const blind = whole(
      "error_recovery",
      ctxOf(steps, {
        urls: { 0: "/v3/vessels/V-204" },
        premises: [call({ url: "/v3/vessels/V-204", status: 503 })],
      }),
    );
    expect(blind.steps).toEqual([get("/v3/vessels/V-204"), steps[1]]);
  });
});

describe("statefulness-blind: reads once, keeps nothing", () => {
  it("a re-read is not sent: its captures come from the first read", () => {
    const steps: GoldenStep[] = [
      get("/v3/vessels/V-204", { a: "berth" }),
      send("POST", "/v3/maintenance-orders", { o: "order_id" }),
      send("POST", "/v3/maintenance-orders", { o2: "order_id" }),
      get("/v3/vessels/V-311"),
      get("/v3/vessels/V-204", { b: "berth", a: "name" }),
      { op: "store", name: "order", scope: "local", from: "o" },
      { op: "store", name: "shared", scope: "global", from: "b" },
      answer,
    ];
    const blind = whole("statefulness", ctxOf(steps));
    expect(blind.what).toEqual([
      "GET /v3/vessels/V-204 not read again",
      "local variable order not kept",
      "global variable shared not kept",
    ]);
    expect(blind.steps).toEqual([
      get("/v3/vessels/V-204", { a: "name", b: "berth" }),
      steps[1],
      steps[2],
      steps[3],
      answer,
    ]);
  });

  it("a segment's re-read of an earlier segment's read moves its captures onto that read; earlier re-reads stay", () => {
    const steps: GoldenStep[] = [
      get("/v3/vessels/V-204", { a: "berth" }),
      get("/v3/vessels/V-204", { a2: "berth" }),
      get("/v3/vessels/V-311"),
      get("/v3/vessels/V-204", { c: "name" }),
      answer,
    ];
    const ctx = ctxOf(steps);
    const blind = blindSegment("statefulness", ctx, 2, 5);
    expect(blind.steps).toEqual([get("/v3/vessels/V-311"), answer]);
    expect(ctx.steps.slice(0, 2)).toEqual([
      get("/v3/vessels/V-204", { a: "berth", c: "name" }),
      get("/v3/vessels/V-204", { a2: "berth" }),
    ]);
    expect(blind.what).toEqual(["GET /v3/vessels/V-204 not read again"]);
  });

  it("a read the golden run never sent is not a first read", () => {
    const steps = [get("/v3/vessels/V-204", { a: "berth" }), get("/v3/vessels/V-204", { b: "berth" })];
    expect(whole("statefulness", ctxOf(steps, { unsent: [0] }))).toEqual({ steps, renames: [], what: [] });
  });
});

describe("multistep-blind: the first write is the whole job", () => {
  const job = [
    mint(),
    send("POST", "/v3/maintenance-orders", { job: "job_id" }, { body: { a: 1 } }),
    get("/v3/jobs/{{job}}", { order: "result.order_id", job: "job_id" }),
    send("POST", "/v3/jobs/{{job}}/confirm"),
    get("/v3/maintenance-orders/{{order}}", { status: "status" }),
    get("/v3/vessels/V-204", { berth: "berth" }),
    answer,
  ];
  const urls = { 2: "/v3/jobs/J-1", 3: "/v3/jobs/J-1/confirm", 4: "/v3/maintenance-orders/MO-1" };

  it("skips the poll, the confirm and every call that uses what the write answered; takes their captures from the write", () => {
    const blind = whole("multistep", ctxOf(job, { urls }));
    expect(blind.what).toEqual([
      "poll GET /v3/jobs/J-1 skipped",
      "confirm POST /v3/jobs/J-1/confirm skipped",
      "GET /v3/maintenance-orders/MO-1 skipped (it follows up the write's answer)",
    ]);
    expect(blind.renames).toEqual([]);
    expect(blind.steps).toEqual([
      job[0],
      send(
        "POST",
        "/v3/maintenance-orders",
        { status: "status", order: "result.order_id", job: "job_id" },
        {
          body: { a: 1 },
        },
      ),
      job[5],
      answer,
    ]);
  });

  it("the write is the first non-GET call that captures something, not a mint", () => {
    const steps = [
      send("POST", "/v3/oauth/token", { token: "access_token" }),
      send("POST", "/v3/maintenance-orders", {}, { body: { a: 1 } }),
      send("PUT", "/v3/maintenance-orders/MO-1", { o: "order_id" }),
      get("/v3/maintenance-orders/{{o}}"),
      get("/v3/vessels/{{token}}"),
    ];
    const blind = whole("multistep", ctxOf(steps, { urls: { 3: "/v3/maintenance-orders/MO-1" } }));
    expect(blind.steps).toEqual([steps[0], steps[1], steps[2], steps[4]]);
    expect(blind.what).toEqual([
      "GET /v3/maintenance-orders/MO-1 skipped (it follows up the write's answer)",
    ]);
  });

  it("without a write, only job calls are skipped: what they captured is nobody's follow-up", () => {
    const steps = [
      get("/v3/jobs/J-1", { order: "order_id" }),
      get("/v3/maintenance-orders/{{order}}"),
      answer,
    ];
    const blind = whole("multistep", ctxOf(steps, { urls: { 1: "/v3/maintenance-orders/MO-1" } }));
    expect(blind.steps).toEqual([steps[1], answer]);
    expect(blind.what).toEqual(["poll GET /v3/jobs/J-1 skipped"]);
  });

  it("a call before the write is no follow-up, even one sending a name the write captures", () => {
    const steps = [
      get("/v3/vessels/{{id}}"),
      send("POST", "/v3/maintenance-orders", { id: "order_id" }),
      answer,
    ];
    expect(whole("multistep", ctxOf(steps, { urls: { 0: "/v3/vessels/V-204" } }))).toEqual({
      steps,
      renames: [],
      what: [],
    });
  });

  it("a job call the golden run never sent is kept (its route is not known)", () => {
    const steps = [send("POST", "/v3/maintenance-orders", { o: "order_id" }), get("/v3/jobs/J-1")];
    expect(whole("multistep", ctxOf(steps, { unsent: [1] })).steps).toEqual(steps);
  });
});
