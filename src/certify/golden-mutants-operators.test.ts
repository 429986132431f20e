import { describe, expect, it } from "vitest";
import { blindExchange } from "../../test/support/blind-segments.js";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import { idIn, SUB02, skeletonIn, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { G1Predicate, GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { forbiddenUrl, type GoldenMutant, requirementMutants } from "./golden-mutants.js";

/**
 * Issue 21: the requirement operators' helpers the requirement tests leave open (area
 * certify-golden-mutants-operators): the stopped walk of a `covered` predicate, a chain's repeat
 * re-minted with the newest refresh token, and the forbidden call's concrete URL. Each mutant's
 * steps are pinned without a trial.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const bearer = { Authorization: "Bearer {{token}}" };
const job = positionalJobTask();
const mint = job.golden[0] as Execute;
const get = (url: string, capture: Record<string, string> = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: bearer },
  capture,
});

function task(
  golden: GoldenStep[],
  requirements: Requirement[],
  g1: G1Predicate[] = [],
  extra: Partial<Task> = {},
): Task {
  return { ...job, golden, requirements, grader: { ...job.grader, g1: [...job.grader.g1, ...g1] }, ...extra };
}
/** A GET of `url` a golden run logged (200, an empty object answered). */
const sent = (url: string): ExchangeEvent => blindExchange("GET", url, {});
const names = (ms: GoldenMutant[]) => ms.map((m) => m.name);
const mutants = (
  t: Task,
  statuses: Array<number | undefined> = [],
  exchanges: ExchangeEvent[] = [],
  world = W,
) => requirementMutants(world, t, t.requirements ?? [], statuses, exchanges);

describe("covered: the walk stopped after the page a later step takes its value from", () => {
  const covered = (patterns = ["^/v3/vessels\\?page=\\d+$"], extra: Partial<G1Predicate> = {}): G1Predicate =>
    ({
      kind: "covered",
      id: "walked",
      explain: "",
      url_patterns: patterns,
      body_key: "vessels.vessel_id",
      ids: ["V-204", "V-311", "V-412"],
      ...extra,
    }) as G1Predicate;
  const whole: Requirement = { id: "whole", kind: "value_flow", predicates: ["walked"] };
  const page = (n: number | string, capture: Record<string, string> = {}) =>
    get(`/v3/vessels?page=${n}`, capture);
  const answer: GoldenStep = { op: "answer", fields: { berth: "berth" } };
  const read = get("/v3/vessels/{{second}}", { berth: "berth" });

  it("the pages after the last one used are dropped; the mutant names the first of them", () => {
    const golden = [
      mint,
      page(1, { first: "vessels.0.vessel_id" }),
      page(2, { second: "vessels.0.vessel_id" }),
      page(3),
      page(4),
      read,
      answer,
    ];
    const [m, ...rest] = mutants(task(golden, [whole], [covered()]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({
      name: "whole:stopped_walk@4",
      operator: "drop_step",
      step: 4,
      requirement: "whole",
    });
    expect(m?.steps("s")).toEqual([mint, golden[1], golden[2], read, answer]);
  });

  it("the last page used is the last of those whose values are used (the first page's too)", () => {
    const golden = [
      mint,
      page(1, { second: "vessels.0.vessel_id" }),
      page(2, { other: "vessels.0.vessel_id" }),
      page(3, { third: "vessels.0.vessel_id" }),
      page(4),
      get("/v3/vessels/{{third}}"),
      read,
      answer,
    ];
    expect(names(mutants(task(golden, [whole], [covered()])))).toEqual(["whole:stopped_walk@5"]);
  });

  it("a value the card reads is used too", () => {
    const golden = [mint, page(1), page(2, { berth: "vessels.0.berth" }), page(3), answer];
    const [m] = mutants(task(golden, [whole], [covered()]));
    expect(m?.name).toBe("whole:stopped_walk@4");
    expect(m?.steps("s")).toEqual([mint, page(1), golden[2], answer]);
  });

  it("no mutant: the page used is the last, no page is used, or a page kept needs a dropped page's value", () => {
    const last = [mint, page(1), page(2, { second: "vessels.0.vessel_id" }), read, answer];
    expect(mutants(task(last, [whole], [covered()]))).toEqual([]);
    const unused = [mint, page(1, { x: "vessels.0.vessel_id" }), page(2), get("/v3/vessels/V-204"), answer];
    expect(mutants(task(unused, [whole], [covered()]))).toEqual([]);
    // Page 1 follows a cursor page 2 captured (drawn out of order): dropping page 2 would break page 1.
    const cursor = [
      mint,
      get("/v3/vessels?page=1&after={{cursor}}", { second: "vessels.0.vessel_id" }),
      page(2, { cursor: "next" }),
      read,
      answer,
    ];
    expect(mutants(task(cursor, [whole], [covered(["^/v3/vessels\\?page="])]))).toEqual([]);
  });

  it("a walk outside the requirement's steps (here: a page failed in the golden run) is dropped too, unless a value of it is used", () => {
    const golden = [mint, page(1), page(1, { second: "vessels.0.vessel_id" }), page(2), read, answer];
    const [m] = mutants(task(golden, [whole], [covered()]), [200, 500]);
    expect(m?.name).toBe("whole:stopped_walk@4");
    expect(m?.steps("s")).toEqual([mint, golden[2], read, answer]);
    // The page outside holds the value used: no mutant.
    const held = [
      mint,
      page(1, { berth: "vessels.0.berth" }),
      page(1, { second: "vessels.0.vessel_id" }),
      page(2),
      read,
      answer,
    ];
    expect(mutants(task(held, [whole], [covered()]), [200, 500])).toEqual([]);
  });

  it("a page is known by the URL the golden run sent (placeholders resolved) or as written; a bad pattern matches nothing", () => {
    const golden = [
      mint,
      get("/v3/vessels?page={{p}}", { second: "vessels.0.vessel_id" }),
      get("/v3/vessels?page={{q}}"),
      read,
      answer,
    ];
    const t = task(golden, [whole], [covered(["(", "^/v3/vessels\\?page=\\d+$"])]);
    expect(mutants(t)).toEqual([]);
    const exchanges = [undefined, sent("/v3/vessels?page=1"), sent("/v3/vessels?page=2")] as ExchangeEvent[];
    expect(names(mutants(t, [], exchanges))).toEqual(["whole:stopped_walk@3"]);
    // As written: a pattern for the placeholder form matches without the log.
    expect(names(mutants(task(golden, [whole], [covered(["^/v3/vessels\\?page=\\{"])])))).toEqual([
      "whole:stopped_walk@3",
    ]);
  });

  it("a step that sends nothing is no page, even with a logged URL at its index", () => {
    const store: GoldenStep = { op: "store", name: "kept", scope: "local", from: "berth" };
    const golden = [mint, page(1, { second: "vessels.0.vessel_id" }), page(2), read, store, answer];
    const urls = [
      "/v3/oauth/token",
      "/v3/vessels?page=1",
      "/v3/vessels?page=2",
      "/v3/vessels/V-311",
      "/v3/vessels?page=3",
    ];
    const [m] = mutants(task(golden, [whole], [covered()]), [], urls.map(sent));
    expect(m?.steps("s")).toEqual([mint, golden[1], read, store, answer]);
  });

  it("the covered predicate of the requirement's segment; without a mutant the next predicate is tried", () => {
    const golden = [mint, page(1, { second: "vessels.0.vessel_id" }), page(2), read, answer];
    const flow: G1Predicate = {
      kind: "data_flow",
      id: "berth_flow",
      explain: "",
      from_response_url_pattern: "^/v3/vessels/[^/]+$",
      from_status: 200,
      from_body_key: "berth",
      answer_field: "berth",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    };
    const both: Requirement = { id: "whole", kind: "value_flow", predicates: ["walked", "berth_flow"] };
    const last = [mint, page(1), page(2, { second: "vessels.0.vessel_id" }), read, answer];
    expect(names(mutants(task(last, [both], [covered(), flow])))).toEqual(["whole:wrong_card:berth"]);
    // Another segment's predicate of the same id is not this requirement's.
    const seg = { ...whole, segment: 1 };
    const other = covered(["^/v3/nothing$"], { segment: 2 } as Partial<G1Predicate>);
    expect(
      names(
        mutants(
          task(
            golden,
            [seg],
            [other, covered(["^/v3/vessels\\?page=\\d+$"], { segment: 1 } as Partial<G1Predicate>)],
          ),
        ),
      ),
    ).toEqual(["whole:stopped_walk@3"]);
  });
});

describe("a chain's repeat: the token minted again with the newest refresh token", () => {
  const refreshMint = (refresh: string, capture: Record<string, string>): Execute => ({
    op: "execute",
    request: {
      method: "POST",
      url: "/v3/oauth/token",
      headers: { "Content-Type": "application/json" },
      body: { grant_type: "refresh_token", refresh_token: refresh },
    },
    capture,
  });
  const first = { ...mint, capture: { token: "access_token", r1: "refresh_token" } };
  const [, create, poll, confirm, answer] = job.golden as Execute[];
  const once: Requirement = {
    id: "once",
    kind: "call_count",
    predicates: ["p"],
    call: { method: "POST", url_pattern: "^/v3/maintenance-orders$" },
    max: 1,
  };
  const chain = (golden: GoldenStep[]) => task(golden, [once], [], { kind: "chain", positions: [1, 2] });

  it("the mint the create's token comes from, sending the refresh token captured last before the create", () => {
    const renew = refreshMint("{{r1}}", { token: "access_token", r2: "refresh_token" });
    const golden = [
      first,
      get("/v3/vessels/V-204"),
      renew,
      get("/v3/vessels/V-311", { r3: "x" }),
      create,
      poll,
      confirm,
      answer,
    ];
    const [m] = mutants(chain(golden as GoldenStep[]));
    expect(m?.name).toBe("once:repeat@5");
    const steps = m?.steps("s") as Execute[];
    expect(steps.slice(0, 7)).toEqual(golden.slice(0, 7));
    expect(steps[7]).toEqual(refreshMint("{{r2}}", { token: "access_token", r2: "refresh_token" }));
    expect(steps.slice(8, 11).map((s) => s.request.url)).toEqual([
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__again}}",
      "/v3/jobs/{{job__again}}/confirm",
    ]);
    expect(steps.slice(11)).toEqual([answer]);
  });

  it("a refresh token captured after the create, or by a step that is no REST call, is not the newest", () => {
    const renew = refreshMint("{{r1}}", { token: "access_token" });
    const late = refreshMint("{{r1}}", { r9: "refresh_token" });
    const golden = [first, renew, create, late, poll, confirm, answer];
    const steps = (mutants(chain(golden as GoldenStep[]))[0]?.steps("s") ?? []) as Execute[];
    expect(steps[6]).toEqual(refreshMint("{{r1}}", { token: "access_token" }));
  });

  it("the mint kept as it is: a literal refresh token, a text around the placeholder, no refresh token before", () => {
    for (const sent of ["rt_literal", "x{{r1}}"]) {
      const renew = refreshMint(sent, { token: "access_token", r2: "refresh_token" });
      const steps = mutants(chain([first, renew, create, poll, confirm, answer] as GoldenStep[]))[0]?.steps(
        "s",
      );
      expect(steps?.[5]).toEqual(renew);
    }
    const plain = { ...mint, capture: { token: "access_token" } };
    const renew = refreshMint("{{r0}}", { token: "access_token" });
    const steps = mutants(chain([plain, renew, create, poll, confirm, answer] as GoldenStep[]))[0]?.steps(
      "s",
    );
    expect(steps?.[5]).toEqual(renew);
  });

  it("the newest of three refresh tokens, past a store and a spec read; a mint without a body is kept", () => {
    const renew2 = refreshMint("{{r1}}", { token: "access_token", r2: "refresh_token" });
    const renew3 = refreshMint("{{r2}}", { token: "access_token", r3: "refresh_token" });
    const store: GoldenStep = { op: "store", name: "kept", scope: "local", from: "r3" };
    const golden = [
      first,
      renew2,
      renew3,
      store,
      { op: "read_spec" },
      create,
      poll,
      confirm,
      answer,
    ] as GoldenStep[];
    const steps = (mutants(chain(golden))[0]?.steps("s") ?? []) as Execute[];
    expect(steps[8]).toEqual(refreshMint("{{r3}}", { token: "access_token", r3: "refresh_token" }));
    const bare = { ...renew3, request: { method: "POST", url: "/v3/oauth/token", headers: {} } } as Execute;
    const kept = (mutants(chain([first, bare, create, poll, confirm, answer] as GoldenStep[]))[0]?.steps(
      "s",
    ) ?? []) as Execute[];
    expect(kept[5]).toEqual(bare);
  });

  it("a solo task's repeat mints nothing again", () => {
    const renew = refreshMint("{{r1}}", { token: "access_token", r2: "refresh_token" });
    const golden = [first, renew, create, poll, confirm, answer] as GoldenStep[];
    const steps = (mutants(task(golden, [once]))[0]?.steps("s") ?? []) as Execute[];
    expect(steps).toHaveLength(golden.length + 3);
    expect(steps.slice(0, 5)).toEqual(golden.slice(0, 5));
  });
});

describe("forbiddenUrl: a concrete request the forbid pattern matches", () => {
  it("reads first, path parameters filled with seeded ids, the method as the route's", () => {
    expect(forbiddenUrl(W, "^/v2/vessels/V-204$", undefined)).toEqual({
      method: "GET",
      path: "/v2/vessels/V-204",
    });
    // The last parameter tries the other seeded ids.
    expect(forbiddenUrl(W, "^/v2/vessels/V-311$", undefined)).toEqual({
      method: "GET",
      path: "/v2/vessels/V-311",
    });
    const reversed: World = { ...W, routes: [...W.routes].reverse() };
    expect(forbiddenUrl(reversed, "^/v3/vessels/V-412$", undefined)).toEqual({
      method: "GET",
      path: "/v3/vessels/V-412",
    });
    expect(forbiddenUrl(reversed, "^/v3/vessels/V-412$", "patch")).toEqual({
      method: "PATCH",
      path: "/v3/vessels/V-412",
    });
    const lower: World = {
      ...W,
      routes: W.routes.map((r) => (r.id === "updateVessel" ? { ...r, method: "patch" as never } : r)),
    };
    expect(forbiddenUrl(lower, "^/v3/vessels/V-412$", "PATCH")).toEqual({
      method: "PATCH",
      path: "/v3/vessels/V-412",
    });
    expect(forbiddenUrl(W, "^/v3/vessels$", undefined)).toEqual({ method: "GET", path: "/v3/vessels" });
  });

  it("a parameter of no seeded resource is X-1; no route or a bad pattern, none", () => {
    expect(forbiddenUrl(W, "^/v3/jobs/X-1$", "GET")).toEqual({ method: "GET", path: "/v3/jobs/X-1" });
    expect(forbiddenUrl(W, "^/v3/nothing$", undefined)).toBeNull();
    expect(forbiddenUrl(W, "(", undefined)).toBeNull();
    expect(forbiddenUrl(W, "^/v2/vessels/V-204$", "DELETE")).toBeNull();
  });

  it("several parameters: each its first seeded id, the last one its first three", () => {
    const vessels = W.resources.vessels as World["resources"][string];
    const world: World = {
      ...W,
      resources: {
        ...W.resources,
        vessels: { ...vessels, records: [...vessels.records, { ...vessels.records[0], vessel_id: "V-999" }] },
      },
      routes: [
        ...W.routes,
        {
          ...(W.routes.find((r) => r.id === "getVessel") as World["routes"][number]),
          id: "sister",
          path: "/v3/vessels/{vessel_id}/sister/{sister_id}",
        },
      ],
    };
    expect(forbiddenUrl(world, "/sister/V-412$", undefined)).toEqual({
      method: "GET",
      path: "/v3/vessels/V-204/sister/V-412",
    });
    expect(forbiddenUrl(world, "^/v3/vessels/V-311/sister/", undefined)).toBeNull();
    expect(forbiddenUrl(world, "/sister/V-999$", undefined)).toBeNull();
  });
});

describe("stay_canonical: the forbidden call, before the answer, with the last call's headers", () => {
  const forbid = (id: string, url_pattern: string, method?: string) => ({
    kind: "forbid" as const,
    id,
    explain: "",
    url_pattern,
    ...(method ? { method } : {}),
  });
  const stay = (...ids: string[]): Requirement => ({ id: "s", kind: "stay_canonical", predicates: ids });
  const withConstraints = (golden: GoldenStep[], constraints: ReturnType<typeof forbid>[], ids: string[]) => {
    const t = task(golden, [stay(...ids)]);
    return { ...t, grader: { ...t.grader, constraints } };
  };
  const h1 = { Authorization: "Bearer {{token}}", "X-Trace": "one" };
  const h2 = { Authorization: "Bearer {{token}}", "X-Trace": "two" };
  const read = (url: string, headers: Record<string, string>): Execute => ({
    op: "execute",
    request: { method: "GET", url, headers },
    capture: {},
  });
  const answer: GoldenStep = { op: "answer", fields: { order_id: "token" } };

  it("the headers of the last call before the answer that is no token mint", () => {
    const golden = [mint, read("/v3/vessels/V-204", h1), read("/v3/vessels/V-311", h2), mint, answer];
    const [m, ...rest] = mutants(withConstraints(golden, [forbid("v2", "^/v2/")], ["v2"]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "s:forbidden_call:v2", operator: "decoy_read", step: 5 });
    expect(m?.steps("s")).toEqual([
      ...golden.slice(0, 4),
      { op: "execute", request: { method: "GET", url: "/v2/vessels/V-204", headers: h2 }, capture: {} },
      answer,
    ]);
  });

  it("no answer: the call goes last; no call but the mint: no headers", () => {
    const golden = [mint, read("/v3/vessels/V-204", h1)];
    const [m] = mutants(withConstraints(golden, [forbid("v2", "^/v2/")], ["v2"]));
    expect(m?.step).toBe(3);
    expect(((m?.steps("s") ?? []) as Execute[]).map((s) => s.request.url)).toEqual([
      "/v3/oauth/token",
      "/v3/vessels/V-204",
      "/v2/vessels/V-204",
    ]);
    const [bare] = mutants(withConstraints([mint, answer], [forbid("v2", "^/v2/")], ["v2"]));
    expect((bare?.steps("s")[1] as Execute | undefined)?.request.headers).toEqual({});
  });

  it("a write gets an empty body, a read or a delete none; a constraint no route matches, no mutant", () => {
    const golden = [mint, read("/v3/vessels/V-204", h1), answer];
    const constraints = [
      forbid("post", "^/v3/maintenance-orders$", "POST"),
      forbid("none", "^/v9/"),
      forbid("get", "^/v3/vessels/V-311$"),
    ];
    const ms = mutants(withConstraints(golden, constraints, ["post", "none", "get"]));
    expect(names(ms)).toEqual(["s:forbidden_call:post", "s:forbidden_call:get"]);
    expect((ms[0]?.steps("s")[2] as Execute | undefined)?.request).toEqual({
      method: "POST",
      url: "/v3/maintenance-orders",
      headers: h1,
      body: {},
    });
    expect((ms[1]?.steps("s")[2] as Execute | undefined)?.request).toEqual({
      method: "GET",
      url: "/v3/vessels/V-311",
      headers: h1,
    });
    const deleteRoute = {
      ...(W.routes.find((r) => r.id === "updateVessel") as World["routes"][number]),
      id: "deleteVessel",
      method: "DELETE" as const,
      action: "delete" as const,
    };
    const world = { ...W, routes: [...W.routes, deleteRoute] };
    const del = withConstraints(golden, [forbid("del", "^/v3/vessels/", "DELETE")], ["del"]);
    const [d] = mutants(del, [], [], world);
    expect((d?.steps("s")[2] as Execute | undefined)?.request).toEqual({
      method: "DELETE",
      url: "/v3/vessels/V-204",
      headers: h1,
    });
  });
});

describe("the operators' small helpers, through the requirements that use them", () => {
  const patch = (vessel: string, body: unknown) =>
    ({
      op: "execute",
      request: { method: "PATCH", url: `/v3/vessels/${vessel}`, headers: bearer, body },
      capture: {},
    }) as Execute;
  const answer: GoldenStep = { op: "answer", fields: { order_id: "token" } };
  const written = (alternatives: unknown[], key = "firmware_channel"): Requirement =>
    ({
      id: "w",
      kind: "value_written",
      predicates: ["p"],
      call: { method: "PATCH", url_pattern: "^/v3/vessels/" },
      key,
      value: "maritime-edge",
      alternatives,
    }) as Requirement;
  const sentBody = (
    r: Requirement,
    golden: GoldenStep[] = [mint, patch("V-412", { firmware_channel: "maritime-edge" }), answer],
  ) => (mutants(task(golden, [r]))[0]?.steps("seed")[1] as Execute | undefined)?.request.body;

  it("playable alternatives: a literal, null, a list, a canary; a record reference is not (the API's other value instead)", () => {
    expect(sentBody(written(["maritime-beta"]))).toEqual({ firmware_channel: "maritime-beta" });
    // null is playable, and `??` then reads it as none: the API's other value.
    expect(sentBody(written([null]))).toEqual({ firmware_channel: "maritime-lts" });
    expect(sentBody(written([["a", "b"]]))).toEqual({ firmware_channel: ["a", "b"] });
    expect(sentBody(written([{ $record: { resource: "vessels", where: {} }, field: "name" }]))).toEqual({
      firmware_channel: "maritime-lts",
    });
  });

  it("a body key: only in an object body; a null, list or text body sends none", () => {
    for (const body of [null, ["firmware_channel"], "firmware_channel"]) {
      expect(mutants(task([mint, patch("V-412", body), answer], [written(["maritime-beta"])]))).toEqual([]);
    }
  });

  it("end_state field: the resource's own writes, the last one dropped when none sends the field", () => {
    const order = {
      op: "execute",
      request: { method: "POST", url: "/v3/maintenance-orders", headers: bearer, body: { name: "n" } },
      capture: {},
    } as Execute;
    const unknown = { ...order, request: { ...order.request, url: "/v9/unknown" } } as Execute;
    const field = (f: string): Requirement =>
      ({
        id: "e",
        kind: "end_state",
        predicates: ["p"],
        record: { resource: "vessels", where: { vessel_id: "V-412" } },
        expect: { is: "field", field: f, value: "x" },
      }) as Requirement;
    const golden = [
      mint,
      unknown,
      order,
      patch("V-412", { name: "Boat" }),
      patch("V-204", { note: 1 }),
      patch("V-311", { note: 2 }),
      answer,
    ];
    const [m] = mutants(task(golden, [field("name")]));
    expect(m).toMatchObject({ name: "e:other_value@4:name", step: 4 });
    expect(names(mutants(task(golden, [field("berth")])))).toEqual(["e:drop_step@6"]);
    // absent: the delete, not the last write; count: the last create dropped under a least.
    const del = {
      ...patch("V-204", undefined),
      request: { method: "DELETE", url: "/v3/vessels/V-204", headers: bearer },
    } as Execute;
    const deleteRoute = {
      ...(W.routes.find((r) => r.id === "updateVessel") as World["routes"][number]),
      id: "deleteVessel",
      method: "DELETE" as const,
      action: "delete" as const,
    };
    const world = { ...W, routes: [...W.routes, deleteRoute] };
    const absent = {
      id: "e",
      kind: "end_state",
      predicates: ["p"],
      record: { resource: "vessels", where: { vessel_id: "V-204" } },
      expect: { is: "absent" },
    } as Requirement;
    const gone = mutants(task([mint, unknown, del, patch("V-311", {}), answer], [absent]), [], [], world);
    expect(names(gone)).toEqual(["e:sibling_target@3"]);
    const create = (v: string) =>
      ({ ...order, request: { ...order.request, body: { vessel_id: v, priority: "high" } } }) as Execute;
    const least = {
      id: "e",
      kind: "end_state",
      predicates: ["p"],
      record: { resource: "maintenance-orders", where: {} },
      expect: { is: "count", min: 1 },
    } as Requirement;
    expect(
      names(mutants(task([mint, unknown, create("V-1"), create("V-2"), create("V-3"), answer], [least]))),
    ).toEqual(["e:drop_step@5"]);
  });

  it("a predicate of the requirement's segment, or of none; a requirement of none takes any", () => {
    const golden = [mint, patch("V-412", { firmware_channel: "maritime-edge" }), answer];
    const card: G1Predicate = {
      kind: "data_flow",
      id: "f",
      explain: "",
      from_response_url_pattern: "^/v9/",
      from_status: 200,
      from_body_key: "x",
      answer_field: "order_id",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    };
    const flow = (segment?: number): Requirement => ({
      id: "v",
      kind: "value_flow",
      predicates: ["f"],
      ...(segment === undefined ? {} : { segment }),
    });
    expect(names(mutants(task(golden, [flow()], [{ ...card, segment: 2 } as G1Predicate])))).toEqual([
      "v:wrong_card:order_id",
    ]);
    expect(names(mutants(task(golden, [flow(1)], [card])))).toEqual(["v:wrong_card:order_id"]);
    expect(names(mutants(task(golden, [flow(1)], [{ ...card, segment: 2 } as G1Predicate])))).toEqual([]);
  });

  it("a data flow's body key matches a capture path whatever their array indices, and only then", () => {
    const flowOf = (key: string): G1Predicate =>
      ({
        kind: "data_flow",
        id: "f",
        explain: "",
        from_response_url_pattern: "^/v3/vessels$",
        from_status: 200,
        from_body_key: key,
        answer_field: undefined,
        must_be_stored: false,
        used_in_request_url_pattern: "^/v3/",
      }) as G1Predicate;
    const flow: Requirement = { id: "v", kind: "value_flow", predicates: ["f"] };
    const golden = (capture: Record<string, string>) => [
      mint,
      get("/v3/vessels", capture),
      get(
        `/v3/vessels/${Object.keys(capture)
          .map((c) => `{{${c}}}`)
          .join("/")}`,
      ),
      answer,
    ];
    const run = (key: string, capture: Record<string, string>) =>
      names(mutants(task(golden(capture), [flow], [flowOf(key)])));
    expect(run("vessels.0.vessel_id", { v: "vessels.12.vessel_id" })).toEqual(["v:fabricated@3:v"]);
    expect(run("vessels.0.vessel_id", { w: "orders.0.order_id", v: "vessels.1.vessel_id" })).toEqual([
      "v:fabricated@3:v",
    ]);
    expect(run("vessels.0.code1", { w: "vessels.0.code2", v: "vessels.0.code1" })).toEqual([
      "v:fabricated@3:v",
    ]);
    expect(run("vessels.0.1code", { w: "vessels.0.2code", v: "vessels.0.1code" })).toEqual([
      "v:fabricated@3:v",
    ]);
  });
});

describe("stay_canonical in a GraphQL or MCP world: the forbidden call asked as the decoy's field or tool", () => {
  it.each(["graphql", "mcp"] as const)(
    "%s: the extra step a call of the protocol, named by the constraint, before the answer",
    (protocol) => {
      const bank = bankFromContent(skeletonIn(protocol));
      const t = taskOf(bank, idIn(protocol, SUB02));
      const stay: Requirement = {
        id: "s",
        kind: "stay_canonical",
        predicates: t.grader.constraints.map((c) => c.id),
      };
      const [m, ...rest] = requirementMutants(bank.worlds[0] as World, t, [stay]);
      expect(rest).toEqual([]);
      expect(m).toMatchObject({
        name: "s:forbidden_call:stay_on_v3",
        operator: "decoy_read",
        step: t.golden.length,
      });
      const steps = m?.steps("s") ?? [];
      const extra = steps[t.golden.length - 1];
      expect(extra?.op).toBe("execute_native");
      expect(JSON.stringify(extra)).toContain(`"protocol":"${protocol}"`);
      expect(steps.filter((_, i) => i !== t.golden.length - 1)).toEqual(t.golden);
    },
  );
});
