import { describe, expect, it } from "vitest";
import { blindExchange } from "../../test/support/blind-segments.js";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import { CHAIN, SUB03, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { protocolVariant } from "../generate/protocol-variants.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { stepFacts } from "./golden-edits.js";
import {
  type GoldenMutant,
  goldenMutants,
  mutatedRequirements,
  otherValue,
  requirementMutants,
  requirementsOf,
  stepMutants,
} from "./golden-mutants.js";

/**
 * Issue 21: the per-step mutants of banks without requirements as data (other value, sibling,
 * repeat, drop, drop wait, swap), pinned step by step on the requirement world without a trial, so
 * `npm run mutate` (area certify-golden-mutants-steps) can run them for every mutant.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const bearer = { Authorization: "Bearer {{token}}" };
const job = positionalJobTask();
const mint = job.golden[0] as Execute;
const get = (
  url: string,
  capture: Record<string, string> = {},
  headers: Record<string, string> = {},
): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: { ...bearer, ...headers } },
  capture,
});
const send = (
  method: string,
  url: string,
  body?: Record<string, unknown>,
  capture: Record<string, string> = {},
): Execute => ({
  op: "execute",
  request: { method, url, headers: bearer, ...(body ? { body: body as never } : {}) },
  capture,
});
const patch = (vessel: string, body: Record<string, unknown> = { firmware_channel: "maritime-edge" }) =>
  send("PATCH", `/v3/vessels/${vessel}`, body, { berth: "berth" });
const answer: GoldenStep = { op: "answer", fields: { berth: "berth" } };

/** A solo task of the requirement world with this golden and ticket, without requirements. */
function task(golden: GoldenStep[], ticket = "Move V-412 to `maritime-edge`."): Task {
  const { requirements: _r, ...t } = job;
  return { ...t, ticket, golden };
}

/** A request a golden run logged (200, an empty object answered). */
const exchangeOf = (method: string, url: string): ExchangeEvent => blindExchange(method, url, {});

const names = (ms: GoldenMutant[]) => ms.map((m) => m.name);
const byName = (ms: GoldenMutant[], name: string) => {
  const m = ms.find((x) => x.name === name);
  if (!m) throw new Error(`no mutant ${name} in ${names(ms).join(" ")}`);
  return m;
};

describe("which mutants a task gets", () => {
  it("requirements as data: one per requirement (named by it); none stated: per golden step", () => {
    const golden = [mint, patch("V-412"), answer];
    const plain = task(golden);
    expect(requirementsOf(plain)).toEqual([]);
    expect(names(goldenMutants(W, plain))).toEqual(names(stepMutants(W, plain)));
    expect(names(goldenMutants(W, plain))).toContain("drop_step@2");
    const r: Requirement = {
      id: "n",
      kind: "call_count",
      predicates: ["p"],
      call: { method: "PATCH", url_pattern: "^/v3/vessels/V-412$" },
      min: 1,
    };
    const stated = { ...plain, requirements: [r] };
    expect(requirementsOf(stated)).toEqual([r]);
    expect(names(goldenMutants(W, stated))).toEqual(["n:drop_step@2"]);
    // The golden run's statuses reach the step mutants: a call that failed there is not mutated.
    expect(names(goldenMutants(W, plain, [undefined, 500]))).toEqual([]);
  });

  it("a solo task's requirements are all mutated; a chain's, those of its last segment or of none", () => {
    const r = (id: string, segment?: number): Requirement => ({
      id,
      kind: "report",
      predicates: [`answer:${id}`],
      fields: [id],
      ...(segment === undefined ? {} : { segment }),
    });
    const all = [r("a", 1), r("b", 3), r("c")];
    expect(mutatedRequirements({ ...task([]), requirements: all }).map((x) => x.id)).toEqual(["a", "b", "c"]);
    const chain = taskOf(bankFromContent(skeletonContent()), CHAIN);
    expect(mutatedRequirements({ ...chain, requirements: all }).map((x) => x.id)).toEqual(["b", "c"]);
    expect(mutatedRequirements(chain)).toEqual([]);
  });
});

describe("stepMutants: a write", () => {
  // Computed in each test, not when the suite is collected: `npm run mutate` activates a mutant per test.
  const golden = [mint, patch("V-412"), answer];

  it("a ticket's value at a write: other value; the write aimed at a sibling; the write dropped", () => {
    const all = stepMutants(W, task(golden));
    expect(names(all)).toEqual(["other_value@2:firmware_channel", "sibling_target@2", "drop_step@2"]);
    expect(all.map((m) => [m.operator, m.step])).toEqual([
      ["other_value", 2],
      ["sibling_target", 2],
      ["drop_step", 2],
    ]);
    expect(byName(all, "other_value@2:firmware_channel").steps("s")).toEqual([
      mint,
      patch("V-412", { firmware_channel: "maritime-lts" }),
      answer,
    ]);
    expect(byName(all, "sibling_target@2").steps("s")).toEqual([
      mint,
      { ...patch("V-412"), request: { ...patch("V-412").request, url: "/v3/vessels/V-204" } },
      answer,
    ]);
    expect(byName(all, "drop_step@2").steps("s")).toEqual([mint, answer]);
  });

  it("the token mint, the answer and the spec read get no mutant", () => {
    expect(stepMutants(W, task([{ op: "read_spec" }, mint, answer]))).toEqual([]);
  });

  it("a value the ticket does not name, a placeholder, an object or null: no other value", () => {
    const body = { firmware_channel: "maritime-edge", a: null, b: { c: 1 }, d: "{{berth}}", e: 7 };
    const t = task(
      [mint, patch("V-412", body), answer],
      "Move V-412 to `maritime-edge` with {{berth}} and 7.",
    );
    const ms = stepMutants(W, t);
    expect(names(ms).filter((n) => n.startsWith("other_value"))).toEqual([
      "other_value@2:firmware_channel",
      "other_value@2:e",
    ]);
    expect((byName(ms, "other_value@2:e").steps("s")[1] as Execute).request.body).toEqual({ ...body, e: 8 });
    const unnamed = stepMutants(W, task([mint, patch("V-412"), answer], "Move V-412 to the edge channel."));
    expect(names(unnamed)).toEqual(["sibling_target@2", "drop_step@2"]);
  });

  it("null, an object or a whole placeholder is never replaced, even when the ticket holds its text", () => {
    const ticket = "Move V-412: firmware_build null or [object Object], channel {{channel}}.";
    for (const body of [
      { firmware_build: null },
      { firmware_build: { a: 1 } },
      { firmware_channel: "{{channel}}" },
    ]) {
      expect(names(stepMutants(W, task([mint, patch("V-412", body), answer], ticket)))).toEqual([
        "sibling_target@2",
        "drop_step@2",
      ]);
    }
    // A placeholder inside a longer text is a literal value like any other.
    const within = stepMutants(
      W,
      task([mint, patch("V-412", { firmware_channel: "x{{c}}" }), answer], "x{{c}}"),
    );
    expect(names(within)).toContain("other_value@2:firmware_channel");
  });

  it("a body that is no object (an array, a string, null, none) gets no other value", () => {
    for (const body of [["maritime-edge"], "maritime-edge", null, undefined]) {
      const step = { ...patch("V-412"), request: { ...patch("V-412").request, body: body as never } };
      if (body === undefined) delete (step.request as { body?: unknown }).body;
      expect(names(stepMutants(W, task([mint, step, answer])))).toEqual(["sibling_target@2", "drop_step@2"]);
    }
  });

  it("the sibling's later steps on the record follow it; earlier ones and other records stay", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-412"),
      patch("V-412"),
      get("/v3/vessels/V-412", { again: "berth" }),
      get("/v3/vessels/V-311", { other: "berth" }),
      { op: "store", name: "x", scope: "local", from: "again" } as GoldenStep,
      answer,
    ];
    const m = byName(stepMutants(W, task(golden)), "sibling_target@3");
    const steps = m.steps("s") as Execute[];
    expect(steps.map((s) => s.request?.url)).toEqual([
      "/v3/oauth/token",
      "/v3/vessels/V-412",
      "/v3/vessels/V-204",
      "/v3/vessels/V-204",
      "/v3/vessels/V-311",
      undefined,
      undefined,
    ]);
  });

  it("a write to a record whose collection has no other seeded record: no sibling", () => {
    const lone: World = {
      ...W,
      resources: {
        ...W.resources,
        vessels: { ...(W.resources.vessels as World["resources"][string]), records: [] },
      },
    };
    expect(
      names(stepMutants(lone, task([mint, patch("V-412"), answer]))).filter((n) => n.startsWith("sib")),
    ).toEqual([]);
  });
});

describe("stepMutants: a create, and an async job", () => {
  it("a job's create repeated with its poll and confirm; the poll dropped, its wait dropped, swapped with the confirm", () => {
    const ms = stepMutants(W, job);
    expect(names(ms)).toEqual([
      "other_value@2:vessel_id",
      "repeat@2",
      "drop_step@3",
      "drop_wait@3",
      "swap@3",
      "drop_step@4",
    ]);
    expect(ms.map((m) => m.operator)).toEqual([
      "other_value",
      "repeat",
      "drop_step",
      "drop_wait",
      "swap",
      "drop_step",
    ]);
    expect(ms.map((m) => m.step)).toEqual([2, 2, 3, 3, 3, 4]);
    const [m1, create, poll, confirm, ans] = job.golden as [Execute, Execute, Execute, Execute, Execute];
    expect((byName(ms, "other_value@2:vessel_id").steps("s")[1] as Execute).request.body).toEqual({
      vessel_id: "V-311",
      priority: "high",
    });
    const repeat = byName(ms, "repeat@2").steps("s") as Execute[];
    expect(repeat).toHaveLength(8);
    expect(repeat.slice(0, 4)).toEqual([m1, create, poll, confirm]);
    expect(repeat[4]?.capture).toEqual({ job__again: "job_id" });
    expect(repeat[5]?.request.url).toBe("/v3/jobs/{{job__again}}");
    expect(repeat[6]?.request.url).toBe("/v3/jobs/{{job__again}}/confirm");
    expect(repeat[7]).toEqual(ans);
    expect(byName(ms, "drop_step@3").steps("s")).toEqual([m1, create, confirm, ans]);
    expect(byName(ms, "drop_step@4").steps("s")).toEqual([m1, create, poll, ans]);
    const unwaited = byName(ms, "drop_wait@3").steps("s") as Execute[];
    expect(unwaited[2]?.request.headers).toEqual(bearer);
    expect(unwaited.filter((_, i) => i !== 2)).toEqual([m1, create, confirm, ans]);
    expect(byName(ms, "swap@3").steps("s")).toEqual([m1, create, confirm, poll, ans]);
  });

  it("a job step the create's captures do not reach, or no job step, stays out of the repeat", () => {
    const [m1, create, poll, confirm, ans] = job.golden as [Execute, Execute, Execute, Execute, Execute];
    const other = get("/v3/jobs/J-1", {}, { "x-apiflow-wait": "2" });
    const vessel = get("/v3/vessels/{{job}}");
    const ms = stepMutants(W, task([m1, create, other, vessel, poll, confirm, ans], job.ticket) as Task);
    const repeat = byName(ms, "repeat@2").steps("s") as Execute[];
    // The copy: the create, the poll and the confirm of its job (not the other job's poll, not the vessel read).
    expect(repeat.slice(6, 9).map((s) => s.request?.url)).toEqual([
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__again}}",
      "/v3/jobs/{{job__again}}/confirm",
    ]);
    expect(repeat.slice(0, 6)).toEqual([m1, create, other, vessel, poll, confirm]);
    expect(repeat.slice(9)).toEqual([ans]);
  });

  it("a plain create is repeated alone, right after itself; a partial-write create is not repeated", () => {
    const t = taskOf(bankFromContent(skeletonContent()), SUB03);
    const ms = stepMutants(W, t);
    expect(names(ms)).toEqual(["other_value@3:vessel_id", "repeat@3", "drop_step@4", "drop_step@5"]);
    const steps = byName(ms, "repeat@3").steps("s") as Execute[];
    expect(steps).toHaveLength(t.golden.length + 1);
    expect(steps.slice(0, 3)).toEqual(t.golden.slice(0, 3));
    expect(steps[3]?.capture).toEqual({ order__again: "order_id" });
    expect(steps.slice(4)).toEqual(t.golden.slice(3));
    expect(byName(ms, "drop_step@4").steps("s")).toEqual(t.golden.filter((_, i) => i !== 3));
    const partial: World = {
      ...W,
      routes: W.routes.map((r) =>
        r.id === "createMaintenanceOrder"
          ? { ...r, async_job: undefined, partial_write: { rate: 1, seed_salt: "x" } as never }
          : r,
      ),
    };
    expect(names(stepMutants(partial, t))).not.toContain("repeat@3");
  });
});

describe("stepMutants: drops", () => {
  it("a read whose capture a later request uses is not dropped; one whose capture only the answer reads is", () => {
    const golden = [mint, get("/v3/vessels/V-412", { b: "berth" }), get("/v3/vessels/{{b}}"), answer];
    expect(names(stepMutants(W, task(golden)))).toEqual(["drop_step@3"]);
  });

  it("of two identical reads with no write between, neither is dropped; a write between, both are", () => {
    const read = get("/v3/vessels/V-204");
    expect(names(stepMutants(W, task([mint, read, read, answer])))).toEqual([]);
    const other = { ...read, request: { ...read.request, method: "HEAD" } };
    expect(names(stepMutants(W, task([mint, read, other, answer])))).toEqual(["drop_step@2", "drop_step@3"]);
    const between = stepMutants(W, task([mint, read, patch("V-311"), read, answer], "x"));
    expect(names(between).filter((n) => n.startsWith("drop_step"))).toEqual([
      "drop_step@2",
      "drop_step@3",
      "drop_step@4",
    ]);
    // An unrelated read between two identical reads does not separate them.
    const far = [mint, read, get("/v3/vessels/V-311"), read, answer];
    expect(names(stepMutants(W, task(far))).filter((n) => n.startsWith("drop_step"))).toEqual([
      "drop_step@3",
    ]);
  });

  it("a store is always droppable; a step that failed in the golden run is not mutated", () => {
    const store: GoldenStep = { op: "store", name: "kept", scope: "local", from: "berth" };
    const golden = [mint, get("/v3/vessels/V-412", { berth: "berth" }), store, answer];
    expect(names(stepMutants(W, task(golden)))).toEqual(["drop_step@3"]);
    expect(byName(stepMutants(W, task(golden)), "drop_step@3").steps("s")).toEqual([
      golden[0],
      golden[1],
      answer,
    ]);
    expect(names(stepMutants(W, task([mint, get("/v3/vessels/V-412"), answer]), [200, 404]))).toEqual([]);
    expect(names(stepMutants(W, task([mint, get("/v3/vessels/V-412"), answer]), [200, 399]))).toEqual([
      "drop_step@2",
    ]);
    expect(names(stepMutants(W, task([mint, get("/v3/vessels/V-412"), answer]), [200, 400]))).toEqual([]);
  });
});

describe("stepMutants: swaps", () => {
  it("a write and the next call on the same record or one under it, independent of each other, are swapped", () => {
    const read = get("/v3/vessels/V-412", { b2: "berth" });
    const golden = [mint, patch("V-412", {}), read, answer];
    const ms = stepMutants(W, task(golden, "x"));
    expect(names(ms)).toContain("swap@2");
    expect(byName(ms, "swap@2").steps("s")).toEqual([mint, read, golden[1], answer]);
    expect(byName(ms, "swap@2")).toMatchObject({ operator: "swap", step: 2 });
    // The read first, then the write: swapped too (either one writing makes the order matter).
    expect(names(stepMutants(W, task([mint, read, patch("V-412", {}), answer], "x")))).toContain("swap@2");
    // Under the record: a sub-path of the written one, either way round.
    const sub = get("/v3/vessels/V-412/berth");
    expect(names(stepMutants(W, task([mint, patch("V-412", {}), sub, answer], "x")))).toContain("swap@2");
    expect(names(stepMutants(W, task([mint, sub, patch("V-412", {}), answer], "x")))).toContain("swap@2");
  });

  it("not swapped: two reads, another record, a prefix that is no sub-path, a dependency, a token mint", () => {
    const swaps = (golden: GoldenStep[]) =>
      names(stepMutants(W, task([...golden, answer], "x"))).filter((n) => n.startsWith("swap"));
    expect(swaps([mint, get("/v3/vessels/V-412"), get("/v3/vessels/V-412/x")])).toEqual([]);
    expect(swaps([mint, patch("V-412", {}), get("/v3/vessels/V-311")])).toEqual([]);
    expect(swaps([mint, patch("V-41", {}), get("/v3/vessels/V-412")])).toEqual([]);
    expect(swaps([mint, get("/v3/vessels/V-412"), patch("V-41", {})])).toEqual([]);
    expect(swaps([mint, patch("V-412", {}), get("/v3/vessels/V-412?x={{berth}}")])).toEqual([]);
    // The token mint is never swapped, even with a write under its path or one its path is under.
    const revoke: Execute = {
      op: "execute",
      request: { method: "POST", url: "/v3/oauth/token/revoke" },
      capture: {},
    };
    const oauth: Execute = { op: "execute", request: { method: "POST", url: "/v3/oauth" }, capture: {} };
    expect(swaps([mint, revoke])).toEqual([]);
    expect(swaps([oauth, mint])).toEqual([]);
  });

  it("not swapped when either is sent again unchanged; the next call skips the store and the spec read", () => {
    const p = patch("V-412", {});
    const read = get("/v3/vessels/V-412");
    const swaps = (golden: GoldenStep[]) =>
      names(stepMutants(W, task([...golden, answer], "x"))).filter((n) => n.startsWith("swap"));
    expect(swaps([mint, p, read, read])).toEqual([]);
    expect(swaps([mint, p, p, read])).toEqual([]);
    const store: GoldenStep = { op: "store", name: "k", scope: "local", from: "berth" };
    expect(swaps([mint, p, store, { op: "read_spec" }, read])).toEqual(["swap@2"]);
    const swapped = byName(stepMutants(W, task([mint, p, store, read, answer], "x")), "swap@2").steps("s");
    expect(swapped).toEqual([mint, read, store, p, answer]);
  });

  it("a GraphQL or MCP step between: the next call is that step, no REST step, so no swap", () => {
    const native = {
      op: "execute_native",
      request: { protocol: "graphql", query: "{ x }" },
      capture: {},
    } as unknown as GoldenStep;
    const swaps = names(
      stepMutants(W, task([mint, patch("V-412", {}), native, get("/v3/vessels/V-412"), answer], "x")),
    );
    expect(swaps.filter((n) => n.startsWith("swap"))).toEqual([]);
  });
});

describe("stepMutants: a chain", () => {
  it("only its last segment's steps are mutated", () => {
    const chain = taskOf(bankFromContent(skeletonContent()), CHAIN);
    const ms = stepMutants(W, chain);
    expect(names(ms)).toEqual(["other_value@8:vessel_id", "repeat@8", "drop_step@9", "drop_step@10"]);
    expect(ms.map((m) => m.step)).toEqual([8, 8, 9, 10]);
    // The same golden as a solo task: every step's mutants.
    const solo = names(stepMutants(W, { ...chain, kind: "solo", positions: [1] }));
    expect(solo).toContain("drop_step@5");
    expect(solo.length).toBeGreaterThan(ms.length);
  });
});

describe("otherValue: another value the API accepts", () => {
  const facts = stepFacts(
    W,
    task([mint, patch("V-412"), send("POST", "/v3/maintenance-orders", {}), answer]),
  );
  const update = facts[1] as (typeof facts)[number];
  const create = facts[2] as (typeof facts)[number];
  const none = facts[3] as (typeof facts)[number];

  it("a seeded record's id: the first other id of its collection", () => {
    expect(otherValue(W, update, "x", "V-204")).toBe("V-311");
    expect(otherValue(W, update, "x", "V-311")).toBe("V-204");
  });

  it("an enum: its first other value; an enum of that value alone: none", () => {
    expect(otherValue(W, update, "firmware_channel", "maritime-lts")).toBe("maritime-edge");
    expect(otherValue(W, update, "firmware_channel", "maritime-edge")).toBe("maritime-lts");
    const one: World = {
      ...W,
      routes: W.routes.map((r) =>
        r.id === "updateVessel"
          ? { ...r, validator: { fields: { firmware_channel: { type: "string", enum: ["maritime-edge"] } } } }
          : r,
      ),
    };
    const f = stepFacts(one, task([mint, patch("V-412")]))[1] as typeof update;
    expect(otherValue(one, f, "firmware_channel", "maritime-edge")).toBeUndefined();
    expect(otherValue(one, f, "firmware_channel", 3)).toBe("maritime-edge");
  });

  it("another value the collection's records hold, of the same type, not null", () => {
    expect(otherValue(W, update, "name", "Nordic Tern")).toBe("Cape Halcyon");
    expect(otherValue(W, update, "last_port_call", "Gdansk")).toBe("Aarhus");
    const odd: World = {
      ...W,
      resources: {
        ...W.resources,
        vessels: {
          ...(W.resources.vessels as World["resources"][string]),
          records: [
            { vessel_id: "V-1", n: null, m: 5 },
            { vessel_id: "V-2", m: "six" },
            { vessel_id: "V-3", n: "kept", m: 7 },
          ],
        },
      },
    };
    const f = stepFacts(odd, task([mint, patch("V-1")]))[1] as typeof update;
    expect(otherValue(odd, f, "n", "other")).toBe("kept");
    expect(otherValue(odd, f, "m", 5)).toBe(7);
  });

  it("a value the world states: a create route's default, else the field's `one of a, b`", () => {
    expect(otherValue(W, create, "status", "done")).toBe("queued");
    expect(otherValue(W, create, "status", "queued")).toBeUndefined();
    const listed: World = {
      ...W,
      routes: W.routes.map((r) =>
        r.id === "createMaintenanceOrder"
          ? { ...r, defaults: { status: "queued", n: null, o: { a: 1 }, q: 3 } }
          : r,
      ),
      resources: {
        ...W.resources,
        "maintenance-orders": {
          ...(W.resources["maintenance-orders"] as World["resources"][string]),
          fields: {
            ...(W.resources["maintenance-orders"] as World["resources"][string]).fields,
            priority: { type: "string", description: "Priority: One of low, normal-2, high." },
            single: { type: "string", description: "One of solo." },
            bare: { type: "string", description: "Free text" },
          },
        },
      },
    };
    const f = stepFacts(listed, task([mint, send("POST", "/v3/maintenance-orders", {})]))[1] as typeof update;
    expect(otherValue(listed, f, "priority", "low")).toBe("normal-2");
    expect(otherValue(listed, f, "priority", "normal-2")).toBe("low");
    expect(otherValue(listed, f, "priority", 4)).toBe(5);
    expect(otherValue(listed, f, "single", "x")).toBe("solo");
    expect(otherValue(listed, f, "q", 3)).toBe(4);
    expect(otherValue(listed, f, "q", "3")).toBeUndefined();
    expect(otherValue(listed, f, "n", "x")).toBeUndefined();
    expect(otherValue(listed, f, "o", "x")).toBeUndefined();
    expect(otherValue(listed, f, "bare", "x")).toBeUndefined();
    // Another resource's route defaults do not count.
    const g = stepFacts(listed, task([mint, patch("V-412")]))[1] as typeof update;
    expect(otherValue(listed, g, "status", "done")).toBeUndefined();
  });

  it("else a number moved (an integer by one, a fraction doubled), a boolean negated, a string none", () => {
    expect(otherValue(W, none, "k", 4)).toBe(5);
    expect(otherValue(W, none, "k", 0.5)).toBe(1);
    expect(otherValue(W, none, "k", true)).toBe(false);
    expect(otherValue(W, none, "k", false)).toBe(true);
    expect(otherValue(W, none, "k", "x")).toBeUndefined();
    expect(otherValue(W, none, "k", null)).toBeUndefined();
  });
});

/** The vessels world with a delete route, a world holding only V-412, and "delete at most one". */
const deleteRoute = {
  ...(W.routes.find((r) => r.id === "updateVessel") as World["routes"][number]),
  id: "deleteVessel",
  method: "DELETE" as const,
  action: "delete" as const,
  validator: undefined,
};
const withDelete: World = { ...W, routes: [...W.routes, deleteRoute] };
const vessels = W.resources.vessels as World["resources"][string];
const only412 = (world: World): World => ({
  ...world,
  resources: { ...world.resources, vessels: { ...vessels, records: [vessels.records[2] as never] } },
});
const most: Requirement = {
  id: "n",
  kind: "call_count",
  predicates: ["p"],
  call: { method: "DELETE", url_pattern: "^/v3/vessels/" },
  max: 1,
};

describe("sibling_also: a delete under a most sent to another record too", () => {
  const del = (id: string) => send("DELETE", `/v3/vessels/${id}`, undefined, { gone: "vessel_id" });
  const run = (world: World, golden: GoldenStep[]) =>
    requirementMutants(world, { ...task(golden), requirements: [most] }, [most]);

  it("a seeded sibling other than the record deleted, its captures dropped, right after the delete", () => {
    const [m] = run(withDelete, [mint, del("V-204"), answer]);
    expect(m).toMatchObject({ name: "n:sibling_also@2", operator: "sibling_target", step: 2 });
    expect(m?.steps("s")).toEqual([
      mint,
      del("V-204"),
      { ...del("V-204"), request: { ...del("V-204").request, url: "/v3/vessels/V-311" }, capture: {} },
      answer,
    ]);
  });

  it("no seeded sibling: the first record the collection's canonical listing shows", () => {
    const [m] = run(only412(withDelete), [mint, del("V-412"), answer]);
    expect(m).toMatchObject({ name: "n:sibling_also@2", step: 2 });
    expect(m?.steps("s")).toEqual([
      mint,
      del("V-412"),
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels", headers: bearer },
        capture: { sibling__also: "vessels.vessel_id" },
      },
      {
        ...del("V-412"),
        request: { ...del("V-412").request, url: "/v3/vessels/{{sibling__also}}" },
        capture: {},
      },
      answer,
    ]);
  });

  it("no listing to take one from (another resource's, not a list, not GET, not canonical, with a parameter): the delete repeated", () => {
    const list = W.routes.find((r) => r.id === "listVessels") as World["routes"][number];
    const edits: Array<Partial<World["routes"][number]>> = [
      { resource: "maintenance-orders" },
      { action: "get" },
      { method: "POST" },
      { status: "deprecated" },
      { path: "/v3/{fleet}/vessels" },
    ];
    for (const edit of edits) {
      const world = only412({
        ...withDelete,
        routes: withDelete.routes.map((r) => (r.id === list.id ? { ...r, ...edit } : r)),
      });
      expect(names(run(world, [mint, del("V-412"), answer]))).toEqual(["n:repeat@2"]);
    }
  });
});

describe("sibling_also in a GraphQL or MCP variant: the delete goes to a sibling too, in its protocol", () => {
  // What the mutant adds, as the REST mutant adds it, converted to the variant (the check's oracle).
  const variantOf = (world: World, protocol: "graphql" | "mcp", golden: GoldenStep[]) => {
    const v = protocolVariant(world, [task(golden)], protocol);
    if (!v.success) throw new Error(v.error.message);
    return { world: v.data.world, steps: v.data.tasks[0]?.golden as GoldenStep[] };
  };

  it.each(["graphql", "mcp"] as const)("%s: a seeded sibling (it was the delete repeated, a no-op)", (p) => {
    const del = (id: string) => send("DELETE", `/v3/vessels/${id}`);
    const v = variantOf(withDelete, p, [mint, del("V-204"), answer]);
    const expected = variantOf(withDelete, p, [mint, del("V-204"), del("V-311"), answer]).steps;
    const logged = { ...exchangeOf("DELETE", "/v3/vessels/V-204") };
    const t = { ...task(v.steps), world: v.world.id, golden: v.steps };
    const [m, ...others] = requirementMutants(v.world, t, [most], [], [undefined, logged]);
    expect(others).toEqual([]);
    expect(m?.name).toBe("n:sibling_also@2");
    expect(m?.steps("s")).toEqual(expected);
  });

  it.each(["graphql", "mcp"] as const)(
    "%s: else the first record the listing shows, read in the protocol",
    (p) => {
      const del = (id: string) => send("DELETE", `/v3/vessels/${id}`);
      const v = variantOf(only412(withDelete), p, [mint, del("V-412"), answer]);
      const list: GoldenStep = {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels", headers: bearer },
        capture: { sibling__also: "vessels.vessel_id" },
      };
      const expected = variantOf(only412(withDelete), p, [
        mint,
        del("V-412"),
        list,
        del("{{sibling__also}}"),
        answer,
      ]).steps;
      const logged = { ...exchangeOf("DELETE", "/v3/vessels/V-412") };
      const t = { ...task(v.steps), world: v.world.id, golden: v.steps };
      const [m] = requirementMutants(v.world, t, [most], [], [undefined, logged]);
      expect(m?.name).toBe("n:sibling_also@2");
      expect(m?.steps("s")).toEqual(expected);
    },
  );
});

describe("a record the requirement means is no sibling", () => {
  const world = withDelete;
  const absent = (where: Record<string, unknown>): Requirement =>
    ({
      id: "e",
      kind: "end_state",
      predicates: ["p"],
      record: { resource: "vessels", where },
      expect: { is: "absent" },
    }) as Requirement;
  const target = (where: Record<string, unknown>) => {
    const t = { ...task([mint, send("DELETE", "/v3/vessels/V-204"), answer]), requirements: [absent(where)] };
    const [m] = requirementMutants(world, t, t.requirements);
    return (m?.steps("s")[1] as Execute | undefined)?.request.url;
  };

  it("the records a where of plain values picks are skipped; object values are not compared; no where skips none", () => {
    expect(target({})).toBe("/v3/vessels/V-311");
    expect(target({ name: "Cape Halcyon" })).toBe("/v3/vessels/V-412");
    expect(target({ name: "Cape Halcyon", berth: { $canary: "v311_berth", format: "BX-{code}" } })).toBe(
      "/v3/vessels/V-412",
    );
    // null is compared as it is: no record holds null there, so none is skipped.
    expect(target({ name: "Cape Halcyon", last_port_call: null })).toBe("/v3/vessels/V-311");
    // A record whose id is no string is no sibling.
    const vessels = world.resources.vessels as World["resources"][string];
    const numbered: World = {
      ...world,
      resources: {
        ...world.resources,
        vessels: { ...vessels, records: [{ vessel_id: 7 }, ...vessels.records] },
      },
    };
    const t = { ...task([mint, send("DELETE", "/v3/vessels/V-204"), answer]), requirements: [absent({})] };
    const [m] = requirementMutants(numbered, t, t.requirements);
    expect((m?.steps("s")[1] as Execute | undefined)?.request.url).toBe("/v3/vessels/V-311");
    // Every plain value must match for a record to be skipped.
    expect(target({ name: "Cape Halcyon", last_port_call: "Aarhus" })).toBe("/v3/vessels/V-311");
  });
});

describe("a job's group: the steps a repeat sends again with the create", () => {
  const [m1, create, poll, confirm, ans] = job.golden as [Execute, Execute, Execute, Execute, Execute];
  const repeatOf = (world: World, golden: GoldenStep[], n: number) =>
    (byName(stepMutants(world, task(golden, job.ticket)), `repeat@${n}`).steps("s") as Execute[]).map(
      (s) => s.request?.url,
    );

  it("a create that starts no job is repeated alone, even when a job step uses what it captured", () => {
    const world: World = {
      ...W,
      routes: W.routes.map((r) => (r.id === "createMaintenanceOrder" ? { ...r, async_job: undefined } : r)),
    };
    expect(repeatOf(world, [m1, create, poll, ans], 2)).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job}}",
      undefined,
    ]);
  });

  it("a second job under the same binding: only the steps after its create join it; a step of no route is no job step", () => {
    const loose = get("/v9/unknown/{{job}}");
    const golden = [m1, create, poll, confirm, create, loose, poll, confirm, ans];
    expect(repeatOf(W, golden, 5)).toEqual([
      ...golden.slice(0, 8).map((s) => (s as Execute).request?.url),
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__again}}",
      "/v3/jobs/{{job__again}}/confirm",
      undefined,
    ]);
  });
});

describe("otherValue: an object value is matched by objects only", () => {
  it("a record's null is no other value for an object; a route's default object is never one", () => {
    const vessels = W.resources.vessels as World["resources"][string];
    const world: World = {
      ...W,
      resources: {
        ...W.resources,
        vessels: {
          ...vessels,
          records: [
            { vessel_id: "V-1", n: null },
            { vessel_id: "V-2", n: { b: 2 } },
          ],
        },
      },
      routes: W.routes.map((r) =>
        r.id === "updateVessel" ? { ...r, defaults: { o: { a: 1 }, p: null } } : r,
      ),
    };
    const f = stepFacts(world, task([mint, patch("V-1")]))[1] as ReturnType<typeof stepFacts>[number];
    expect(otherValue(world, f, "n", { a: 1 })).toEqual({ b: 2 });
    expect(otherValue(world, f, "o", { z: 1 })).toBeUndefined();
    expect(otherValue(world, f, "p", { z: 1 })).toBeUndefined();
  });
});

describe("otherValue: a route of a resource the world does not hold", () => {
  it("states no value: no record, no default, no documented field", () => {
    const patchVessel = W.routes.find((r) => r.id === "updateVessel") as World["routes"][number];
    const world: World = {
      ...W,
      routes: [
        ...W.routes,
        { ...patchVessel, id: "updateGhost", path: "/v3/ghosts/{ghost_id}", resource: "ghosts" },
      ],
    };
    const f = stepFacts(world, task([mint, send("PATCH", "/v3/ghosts/G-1", { mood: "calm" })]))[1];
    expect(f?.route?.resource).toBe("ghosts");
    expect(otherValue(world, f as NonNullable<typeof f>, "mood", "calm")).toBeUndefined();
    expect(otherValue(world, f as NonNullable<typeof f>, "mood", 2)).toBe(3);
  });
});
