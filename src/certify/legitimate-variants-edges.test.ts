import { describe, expect, it } from "vitest";
import { SUB01, SUB02, SUB03, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { legitimateVariants } from "./legitimate-variants.js";

/**
 * Issue 21: the edges of legitimate-variants.ts's second half (listings, extra reads, the other
 * routes, the call checks that hold a body key, deletes before a read), each on the skeleton's
 * harbour world edited for the one rule it shows. legitimate-variants-kinds.test.ts shows each
 * kind of variant; this file the conditions each kind is refused or shaped by.
 */

const skeleton = bankFromContent(skeletonContent());
const task = (id: string) => structuredClone(taskOf(skeleton, id));
type Execute = Extract<GoldenStep, { op: "execute" }>;
type Predicate = Task["grader"]["g1"][number];

const route = (id: string) => structuredClone(HARBOR_WORLD.routes.find((r) => r.id === id) as Route);
const getVessel = route("getVessel");
const listVessels = route("listVessels");
const createOrder = route("createMaintenanceOrder");

/** The harbour world with routes put first (`before`), last (`after`), and `edit` applied. */
function harbour(edit: (w: World) => void = () => {}, after: Route[] = [], before: Route[] = []): World {
  const w = structuredClone(HARBOR_WORLD);
  w.routes = [...structuredClone(before), ...w.routes, ...structuredClone(after)];
  edit(w);
  return w;
}

const editRoute = (id: string, edit: (r: Route) => void) => (w: World) => {
  for (const r of w.routes) if (r.id === id) edit(r);
};

const names = (world: World, t: Task) => legitimateVariants(world, t).map((v) => v.name);
const variant = (world: World, t: Task, name: string) => {
  const v = legitimateVariants(world, t).find((x) => x.name === name);
  if (!v) throw new Error(`no variant ${name} among ${names(world, t).join(", ")}`);
  return v;
};

const bearer = { Authorization: "Bearer {{token}}" };
const read = (url: string, capture: Record<string, string> = {}, headers = bearer): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers },
  capture,
});
const del = (url: string): Execute => ({
  op: "execute",
  request: { method: "DELETE", url, headers: bearer },
  capture: {},
});

/** The GET requests of a task's extra_reads variant (the steps it inserts before the answer). */
function extraReadsOf(world: World, t: Task): Array<{ url: string; headers: unknown }> {
  const v = variant(world, t, "extra_reads");
  const added = v.steps.slice(v.step - 1, v.step - 1 + v.steps.length - t.golden.length);
  return added.map((s) =>
    s.op === "execute" ? { url: s.request.url, headers: s.request.headers } : { url: "", headers: null },
  );
}
const urls = (world: World, t: Task) => extraReadsOf(world, t).map((r) => r.url);

/** SUB02 (mint, read V-311 for its berth and port) reading `url` instead. */
function readsAt(url: string): Task {
  const t = task(SUB02);
  return {
    ...t,
    golden: t.golden.map((s) =>
      s.op === "execute" && s.request.url === "/v3/vessels/V-311"
        ? { ...s, request: { ...s.request, url } }
        : s,
    ),
  };
}
const readsVessel = (id: string) => readsAt(`/v3/vessels/${id}`);

describe("the listing an extra read or a read through the listing uses: the resource's canonical, plain GET list", () => {
  it("not another resource's listing, another action, or another method, even when listed first", () => {
    const t = task(SUB01);
    expect(urls(HARBOR_WORLD, t)).toEqual(["/v3/vessels", "/v3/vessels/V-204"]);
    const listOrders: Route = {
      ...listVessels,
      id: "listOrders",
      resource: "maintenance-orders",
      path: "/v3/maintenance-orders",
    };
    const summary: Route = { ...getVessel, id: "vesselSummary", path: "/v3/vessels-summary" };
    const search: Route = { ...listVessels, id: "searchVessels", method: "POST", path: "/v3/vessels/search" };
    for (const first of [listOrders, summary, search])
      expect(urls(harbour(undefined, [], [first]), t), first.id).toEqual([
        "/v3/vessels",
        "/v3/vessels/V-204",
      ]);
  });

  it("a listing that declares no query parameter (an empty list) is plain", () => {
    const w = harbour(editRoute("listVessels", (r) => (r.query_params = [])));
    expect(urls(w, task(SUB01))).toEqual(["/v3/vessels", "/v3/vessels/V-204"]);
    expect(names(w, readsVessel("V-412"))).toContain("other_route@3");
  });
});

describe("extra_reads: credentials, the cap, concurrency", () => {
  it("sends the credential of the last step that sent one", () => {
    const t = task(SUB01);
    const twoTokens: Task = {
      ...t,
      golden: [
        t.golden[0] as GoldenStep,
        read("/v3/vessels/V-311", { a: "berth" }, { Authorization: "Bearer {{old}}" }),
        read("/v3/vessels/V-204", { b: "berth" }),
        t.golden.at(-1) as GoldenStep,
      ],
    };
    const reads = extraReadsOf(HARBOR_WORLD, twoTokens);
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.headers).toEqual(bearer);
  });

  it("stops at four reads when the golden touches more", () => {
    const t = task(SUB01);
    const five: Task = {
      ...t,
      golden: [
        t.golden[0] as GoldenStep,
        ...["V-204", "V-311", "V-412", "V-999"].map((id, k) =>
          read(`/v3/vessels/${id}`, { [`v${k}`]: "berth" }),
        ),
        t.golden.at(-1) as GoldenStep,
      ],
    };
    expect(urls(HARBOR_WORLD, five)).toEqual([
      "/v3/vessels",
      "/v3/vessels/V-204",
      "/v3/vessels/V-311",
      "/v3/vessels/V-412",
    ]);
  });

  it("no re-read of a record on a route with optimistic concurrency (its version moves)", () => {
    const w = harbour(editRoute("getVessel", (r) => (r.concurrency = { mode: "etag" })));
    expect(urls(w, task(SUB01))).toEqual(["/v3/vessels"]);
  });
});

describe("other_route through the listing: refused edges", () => {
  it("not from a deprecated read route", () => {
    expect(names(HARBOR_WORLD, readsAt("/v2/vessels/V-412"))).not.toContain("other_route@3");
    expect(names(HARBOR_WORLD, readsAt("/v3/vessels/V-412"))).toContain("other_route@3");
    // The same route, plain in every other way, once deprecated.
    const deprecated = harbour(editRoute("getVessel", (r) => (r.status = "deprecated")));
    expect(names(deprecated, readsVessel("V-412"))).not.toContain("other_route@3");
  });

  it("not when the route's path does not name the resource's id field", () => {
    const w = harbour((x) => {
      const vessels = x.resources.vessels;
      if (vessels) vessels.id_field = "imo";
    });
    expect(names(w, readsVessel("V-412"))).not.toContain("other_route@3");
  });

  it("a delete after the read does not move the record's place", () => {
    const deleteRoute: Route = { ...getVessel, id: "deleteVessel", method: "DELETE", action: "delete" };
    const t = readsVessel("V-412");
    const later: Task = {
      ...t,
      golden: [...t.golden.slice(0, 3), del("/v3/vessels/V-204"), ...t.golden.slice(3)],
    };
    expect(variant(harbour(undefined, [deleteRoute]), later, "other_route@3").steps[2]).toMatchObject({
      capture: { berth: "vessels.2.berth" },
    });
  });

  it("gives up when a delete before names the record by another field than its id", () => {
    const byName: Route = {
      ...getVessel,
      id: "deleteVesselByName",
      method: "DELETE",
      action: "delete",
      path: "/v3/vessels/by-name/{name}",
    };
    const t: Task = { ...readsVessel("V-412"), setup: [del("/v3/vessels/by-name/Extra")] };
    expect(names(harbour(undefined, [byName]), t)).not.toContain("other_route@3");
  });

  it("a record exactly one page size in is on the page the largest size holds, not the first", () => {
    const w = harbour(
      editRoute("listVessels", (r) => (r.pagination = { style: "page", page_size: 2, max_page_size: 3 })),
    );
    expect(variant(w, readsVessel("V-412"), "other_route@3").steps[2]).toMatchObject({
      request: { url: "/v3/vessels?page=1&per_page=3" },
      capture: { berth: "vessels.2.berth" },
    });
    expect(variant(w, readsVessel("V-311"), "other_route@3").steps[2]).toMatchObject({
      request: { url: "/v3/vessels" },
      capture: { berth: "vessels.1.berth" },
    });
  });
});

describe("other_route through the parent's create: refused edges", () => {
  const nested: Route = {
    ...createOrder,
    id: "createVesselOrder",
    path: "/v3/vessels/{vessel_id}/maintenance-orders",
  };

  /** SUB03 whose grader's checks are `g1` (its call check no longer holds the vessel when unchanged). */
  function sub03(g1: (checks: Predicate[]) => Predicate[] = (c) => c): Task {
    const t = task(SUB03);
    const unheld = t.grader.g1.map((p) =>
      p.kind === "call" && p.sent ? { ...p, sent: { priority: "high" } } : p,
    );
    return { ...t, grader: { ...t.grader, g1: g1(unheld) } };
  }
  const post = (t: Task) => t.golden[2] as Execute;
  const withPost = (t: Task, edit: (p: Execute) => Execute): Task => ({
    ...t,
    golden: t.golden.map((s, i) => (i === 2 ? edit(s as Execute) : s)),
  });

  it("the variant the edges below refuse", () => {
    expect(names(harbour(undefined, [nested]), sub03())).toContain("other_route@3");
  });

  it("not from a deprecated create, nor from a create sent as PUT", () => {
    const deprecated = harbour(
      editRoute("createMaintenanceOrder", (r) => (r.status = "deprecated")),
      [nested],
    );
    expect(names(deprecated, sub03())).not.toContain("other_route@3");
    const put = harbour(
      editRoute("createMaintenanceOrder", (r) => (r.method = "PUT")),
      [nested],
    );
    const t = withPost(sub03(), (p) => ({ ...p, request: { ...p.request, method: "PUT" } }));
    expect(names(put, t)).not.toContain("other_route@3");
  });

  it("not from a create without a JSON object body (null, or none)", () => {
    const w = harbour(undefined, [nested]);
    const t = sub03();
    const { body: _b, ...noBody } = post(t).request;
    for (const request of [{ ...post(t).request, body: null }, noBody]) {
      const edited = withPost(t, (p) => ({ ...p, request }));
      expect(names(w, edited), JSON.stringify(request)).not.toContain("other_route@3");
    }
  });

  it("not back to the very create the golden sent, already nested under its parent", () => {
    const w = harbour(
      editRoute("createMaintenanceOrder", (r) => (r.path = "/v3/harbours/{harbour_id}/maintenance-orders")),
    );
    const t = withPost(sub03(), (p) => ({
      ...p,
      request: {
        ...p.request,
        url: "/v3/harbours/H-1/maintenance-orders",
        body: { harbour_id: "H-1", priority: "high" },
      },
    }));
    expect(names(w, t)).not.toContain("other_route@3");
  });

  it("not to a nested create with two path parameters, even when the body names the first", () => {
    const two: Route = { ...nested, path: "/v3/vessels/{vessel_id}/maintenance-orders/{slot}" };
    expect(names(harbour(undefined, [two]), sub03())).not.toContain("other_route@3");
  });

  it("a call check that holds the parent with no method holds it for any method", () => {
    const t = task(SUB03);
    t.grader.g1 = t.grader.g1.map((p) => {
      if (p.kind !== "call" || !p.sent) return p;
      const { method: _m, ...rest } = p;
      return rest;
    });
    expect(names(harbour(undefined, [nested]), t)).not.toContain("other_route@3");
  });

  it("a call check that holds no body key holds nothing", () => {
    const anyRead: Predicate = {
      kind: "call",
      id: "any_vessel_read",
      explain: "",
      url_pattern: "^/v3/maintenance-orders",
      body_has_keys: [],
    };
    expect(
      names(
        harbour(undefined, [nested]),
        sub03((c) => [anyRead, ...c]),
      ),
    ).toContain("other_route@3");
  });

  it("a call check's empty pattern, or one matching only the text 'undefined', matches no step (no URL was sent)", () => {
    for (const url_pattern of ["", "^undefined$"]) {
      const holding: Predicate = {
        kind: "call",
        id: "holds_vessel",
        explain: "",
        method: "POST",
        url_pattern,
        body_has_keys: [],
        sent: { vessel_id: "V-204" },
      };
      expect(
        names(
          harbour(undefined, [nested]),
          sub03((c) => [...c, holding]),
        ),
        url_pattern,
      ).toContain("other_route@3");
    }
  });
});

describe("other_route through an update sub-route: refused edges", () => {
  const settings: Route = {
    ...getVessel,
    id: "putSettings",
    method: "PUT",
    action: "update",
    path: "/v3/vessels/{vessel_id}/settings",
  };
  const update: Route = { ...getVessel, id: "updateVessel", method: "PATCH", action: "update" };

  /** SUB01 with a PATCH of `url` (body `body`) before the answer. */
  function updating(url = "/v3/vessels/V-204", body: unknown = { firmware_channel: "maritime-edge" }): Task {
    const t = task(SUB01);
    const patch = {
      op: "execute",
      request: { method: "PATCH", url, headers: bearer, body },
      capture: { channel: "firmware_channel" },
    } as Execute;
    return { ...t, golden: [...t.golden.slice(0, 2), patch, ...t.golden.slice(2)] };
  }

  it("the variant the edges below refuse", () => {
    expect(names(harbour(undefined, [update, settings]), updating())).toContain("other_route@3");
  });

  it("not for an update whose body is null", () => {
    expect(names(harbour(undefined, [update, settings]), updating(undefined, null))).not.toContain(
      "other_route@3",
    );
  });

  it("not for a record whose id the route's path does not name, or of a resource the world does not describe", () => {
    const renamed = harbour(
      (x) => {
        const vessels = x.resources.vessels;
        if (vessels) vessels.id_field = "imo";
      },
      [update, settings],
    );
    expect(names(renamed, updating())).not.toContain("other_route@3");
    const ghost = (r: Route): Route => ({
      ...r,
      resource: "ghosts",
      path: r.path.replace("/v3/vessels", "/v3/ghosts"),
    });
    const ghosts = harbour(undefined, [ghost(update), ghost(settings)]);
    expect(names(ghosts, updating("/v3/ghosts/G-1"))).not.toContain("other_route@3");
  });

  it("a sub-route with body versions needs a GET `get` route of its own path to read them from", () => {
    const versioned: Route = { ...settings, concurrency: { mode: "body" } };
    const t = updating();
    // Neither the record's own read (another path) nor a listing of the sub-route's path will do.
    const listSettings: Route = { ...getVessel, id: "listSettings", action: "list", path: settings.path };
    expect(names(harbour(undefined, [update, versioned]), t)).not.toContain("other_route@3");
    expect(names(harbour(undefined, [update, versioned, listSettings]), t)).not.toContain("other_route@3");
    // Nor a `get` route of that path reached by another method than GET.
    const postSettings: Route = { ...getVessel, id: "postSettings", method: "POST", path: settings.path };
    expect(names(harbour(undefined, [update, versioned, postSettings]), t)).not.toContain("other_route@3");
    const readSettings: Route = { ...getVessel, id: "getSettings", path: settings.path };
    expect(names(harbour(undefined, [update, versioned, readSettings]), t)).toContain("other_route@3");
  });
});
