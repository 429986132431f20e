import { describe, expect, it } from "vitest";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import {
  CHAIN,
  idIn,
  SUB02,
  SUB03,
  skeletonContent,
  skeletonIn,
  taskOf,
} from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { type GoldenMutant, requirementMutants } from "./golden-mutants.js";

/** The requirement world with a DELETE route on vessels (beside its PATCH). */
const WITH_DELETE = {
  ...W,
  routes: [
    ...W.routes,
    {
      ...(W.routes.find((r) => r.id === "updateVessel") as (typeof W.routes)[number]),
      id: "deleteVessel",
      method: "DELETE" as const,
      action: "delete" as const,
      validator: undefined,
    },
  ],
};

/**
 * Issue 21: the requirement mutants, step by step, on the requirement world (the harbour world
 * with a vessel update and maintenance orders opened as async jobs) and the skeleton's harbour
 * chain. Each requirement kind is broken by the mutant its doc promises, at the step the
 * requirement names; requirement-gates.test.ts plays some of them against a grader, these pin
 * what is played, without a trial, so `npm run mutate` can run them for every mutant.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const bearer = { Authorization: "Bearer {{token}}" };
const mint = positionalJobTask().golden[0] as Execute;
const get = (url: string, capture: Record<string, string> = {}, headers = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: { ...bearer, ...headers } },
  capture,
});
const send = (
  method: string,
  url: string,
  body: Record<string, unknown> | undefined,
  capture: Record<string, string> = {},
  headers: Record<string, string> = {},
): Execute => ({
  op: "execute",
  request: { method, url, headers: { ...bearer, ...headers }, ...(body ? { body: body as never } : {}) },
  capture,
});
const patch = (vessel: string, body: Record<string, unknown> = { firmware_channel: "maritime-edge" }) =>
  send("PATCH", `/v3/vessels/${vessel}`, body, { berth: "berth" });
const answer: GoldenStep = { op: "answer", fields: { berth: "berth" } };

/** A solo task of the requirement world with this golden and these requirements. */
function task(golden: GoldenStep[], requirements: Requirement[], grader: Partial<Task["grader"]> = {}): Task {
  const t = positionalJobTask();
  return { ...t, golden, requirements, grader: { ...t.grader, ...grader } };
}

const mutants = (t: Task, statuses: Array<number | undefined> = [], exchanges: ExchangeEvent[] = []) =>
  requirementMutants(W, t, t.requirements ?? [], statuses, exchanges);
const only = (t: Task, statuses: Array<number | undefined> = [], exchanges: ExchangeEvent[] = []) => {
  const all = mutants(t, statuses, exchanges);
  expect(all.map((m) => m.name)).toHaveLength(1);
  return all[0] as GoldenMutant;
};

const patchCall = { method: "PATCH", url_pattern: "^/v3/vessels/[^/]+$" };
const channelSet = (extra: Partial<Extract<Requirement, { kind: "value_written" }>> = {}): Requirement => ({
  id: "channel_set",
  kind: "value_written",
  predicates: ["channel_written"],
  call: patchCall,
  key: "firmware_channel",
  value: "maritime-edge",
  alternatives: [],
  ...extra,
});

function exchange(method: string, url: string, status = 200): ExchangeEvent {
  return {
    type: "exchange",
    seq: 0,
    protocol: "rest",
    method,
    url,
    request_headers: {},
    request_body: null,
    status,
    response_headers: {},
    response_body: {},
  };
}

describe("every mutant names its requirement", () => {
  it("the name is prefixed with the requirement's id, names its predicates, and its segment only when set", () => {
    const t = task([mint, patch("V-412"), answer], [channelSet({ alternatives: ["maritime-beta"] })]);
    const m = only(t);
    expect(m).toMatchObject({
      name: "channel_set:other_value@2:firmware_channel",
      operator: "other_value",
      step: 2,
      requirement: "channel_set",
      names: ["channel_written"],
    });
    expect("segment" in m).toBe(false);
    const seg = only(task(t.golden, [channelSet({ alternatives: ["maritime-beta"], segment: 1 })]));
    expect(seg.segment).toBe(1);
  });
});

describe("which step a requirement's call is", () => {
  it("the method is compared in any case; a step of another method, the answer or a store is not the call", () => {
    const golden = [mint, get("/v3/vessels/V-412"), patch("V-412"), answer];
    const m = only(task(golden, [channelSet({ call: { method: "patch", url_pattern: ".*" } })]));
    expect(m.step).toBe(3);
    // Without a method, the first send matching the pattern is the call.
    const any = { url_pattern: "^/v3/vessels/V-412$" };
    const drop = only(task(golden, [{ id: "n", kind: "call_count", predicates: ["p"], call: any, min: 1 }]));
    expect(drop.name).toBe("n:drop_step@2");
    // A pattern matching everything still skips the steps that send nothing.
    const stored: GoldenStep = { op: "store", name: "b", scope: "local", from: "berth" };
    const all = { url_pattern: ".*" };
    const m2 = only(
      task(
        [stored, { op: "read_spec" }, mint, answer],
        [{ id: "n", kind: "call_count", predicates: ["p"], call: all, min: 1 }],
      ),
    );
    expect(m2.name).toBe("n:drop_step@3");
  });

  it("the URL is matched as the golden run sent it, or as the golden writes it; a bad pattern matches nothing", () => {
    const job = positionalJobTask();
    const poll = { method: "GET", url_pattern: "^/v3/jobs/J-77$" };
    const count = (call: { method?: string; url_pattern: string }): Requirement => ({
      id: "n",
      kind: "call_count",
      predicates: ["p"],
      call,
      min: 1,
    });
    const t = task(job.golden, [count(poll)]);
    // Written with a placeholder: only the run's URL matches.
    expect(mutants(t)).toEqual([]);
    const sent = [
      exchange("POST", "/v3/oauth/token"),
      exchange("POST", "/v3/maintenance-orders", 202),
      exchange("GET", "/v3/jobs/J-77"),
      exchange("POST", "/v3/jobs/J-77/confirm"),
    ];
    const exchanges = [...sent.slice(0, 4)];
    expect(only(t, [], exchanges).name).toBe("n:drop_step@3");
    // As written, placeholder and all, when the run's URL is another.
    expect(
      only(task(job.golden, [count({ url_pattern: "^/v3/jobs/\\{\\{job\\}\\}$" })]), [], exchanges).step,
    ).toBe(3);
    expect(mutants(task(job.golden, [count({ url_pattern: "([" })]), [], exchanges)).toEqual([]);
  });

  it("a call that failed in the golden run (400 and up) is not the requirement's: the next one is", () => {
    const golden = [mint, patch("V-412"), patch("V-412"), answer];
    const t = task(golden, [channelSet({ alternatives: ["maritime-beta"] })]);
    expect(only(t, [200, 422, 200]).step).toBe(3);
    expect(only(t, [200, 399, 200]).step).toBe(2);
  });
});

describe("value_written: another value written", () => {
  it("the first playable alternative (a record reference is known only at the end), resolved per trial seed", () => {
    const golden = [mint, patch("V-412"), answer];
    const record = {
      $record: { resource: "vessels", where: { vessel_id: "V-311" } },
      field: "firmware_channel",
    };
    const m = only(task(golden, [channelSet({ alternatives: [record as never, "maritime-beta"] })]));
    const body = (m.steps("s")[1] as Execute).request.body;
    expect(body).toEqual({ firmware_channel: "maritime-beta" });
    const canary = { $canary: "channel", format: "CH-{code}" };
    const c = only(task(golden, [channelSet({ alternatives: [canary] })]));
    expect((c.steps("seed-a")[1] as Execute).request.body).toEqual({
      firmware_channel: mintCanary("seed-a", canary),
    });
    expect((c.steps("seed-b")[1] as Execute).request.body).toEqual({
      firmware_channel: mintCanary("seed-b", canary),
    });
    // Only the write is replaced; the rest of the golden is kept.
    expect(c.steps("seed-a").filter((_, i) => i !== 1)).toEqual([mint, answer]);
  });

  it("without alternatives, another value the API accepts; none, no mutant", () => {
    const golden = [mint, patch("V-412"), answer];
    const m = only(task(golden, [channelSet()]));
    expect((m.steps("s")[1] as Execute).request.body).toEqual({ firmware_channel: "maritime-lts" });
    // A key the write does not send, or a value nothing stands in for.
    expect(mutants(task(golden, [channelSet({ key: "berth" })]))).toEqual([]);
    const noted = [mint, patch("V-412", { note: "hello" }), answer];
    expect(mutants(task(noted, [channelSet({ key: "note" })]))).toEqual([]);
  });

  it("in a header: the call sent with the alternative there, under the requirement's spelling", () => {
    const create = send(
      "POST",
      "/v3/maintenance-orders",
      { vessel_id: "V-204", priority: "high" },
      { job: "job_id" },
      { "IDEMPOTENCY-KEY": "K-1" },
    );
    const header = (alternatives: unknown[]): Requirement => ({
      id: "keyed",
      kind: "value_written",
      predicates: ["p"],
      call: { method: "POST", url_pattern: "^/v3/maintenance-orders$" },
      key: "Idempotency-Key",
      in: "header",
      value: "K-1",
      alternatives: alternatives as never,
    });
    const m = only(task([mint, create, answer], [header(["K-2"])]));
    expect(m.name).toBe("keyed:other_value@2:Idempotency-Key");
    expect((m.steps("s")[1] as Execute).request.headers).toEqual({ ...bearer, "Idempotency-Key": "K-2" });
    // No playable alternative, or no call with the header: no mutant.
    expect(mutants(task([mint, create, answer], [header([])]))).toEqual([]);
    const plain = send("POST", "/v3/maintenance-orders", { vessel_id: "V-204" });
    expect(mutants(task([mint, plain, answer], [header(["K-2"])]))).toEqual([]);
  });
});

describe("exact_target: another record targeted", () => {
  const onV412 = (siblings: unknown[], call = patchCall): Requirement => ({
    id: "on_v412",
    kind: "exact_target",
    predicates: ["channel_written"],
    call,
    target: "V-412",
    siblings: siblings as never,
  });

  it("the call and every later step on the record go to the first playable sibling; earlier ones stay", () => {
    const golden = [mint, get("/v3/vessels/V-412"), patch("V-412"), get("/v3/vessels/V-412?x=1"), answer];
    const record = { $record: { resource: "vessels", where: { vessel_id: "V-204" } }, field: "vessel_id" };
    const m = only(task(golden, [onV412([record, "V-311"])]));
    expect(m.name).toBe("on_v412:sibling_target@3");
    const urls = m.steps("s").map((s) => (s.op === "execute" ? s.request.url : s.op));
    expect(urls).toEqual([
      "/v3/oauth/token",
      "/v3/vessels/V-412",
      "/v3/vessels/V-311",
      "/v3/vessels/V-311?x=1",
      "answer",
    ]);
    const canary = { $canary: "sibling", format: "V-{code}" };
    const c = only(task(golden, [onV412([canary])]));
    expect((c.steps("k")[2] as Execute).request.url).toBe(`/v3/vessels/${mintCanary("k", canary)}`);
  });

  it("without a playable sibling, a seeded record of the collection; a call without a record, no mutant", () => {
    const m = only(task([mint, patch("V-412"), answer], [onV412([])]));
    expect(m.name).toBe("on_v412:sibling_target@2");
    expect((m.steps("s")[1] as Execute).request.url).toBe("/v3/vessels/V-204");
    const create = send("POST", "/v3/maintenance-orders", { vessel_id: "V-204" });
    const call = { method: "POST", url_pattern: "^/v3/maintenance-orders$" };
    expect(mutants(task([mint, create, answer], [onV412(["V-311"], call)]))).toEqual([]);
    expect(mutants(task([mint, patch("V-412"), answer], [onV412(["V-311"], call)]))).toEqual([]);
  });
});

describe("call_count: the call repeated (a most) or dropped (a least)", () => {
  const job = positionalJobTask();
  const confirm = { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$" };
  const count = (bounds: { min?: number; max?: number }, call = confirm): Requirement => ({
    id: "n",
    kind: "call_count",
    predicates: ["p"],
    call,
    ...bounds,
  });

  it("a job's confirm under a most: the whole job submitted, polled and confirmed again, right after", () => {
    const m = only(task(job.golden, [count({ max: 1 })]));
    expect(m).toMatchObject({ name: "n:repeat@2", operator: "repeat", step: 2 });
    const steps = m.steps("s");
    expect(steps).toHaveLength(job.golden.length + 3);
    expect(steps.slice(0, 4)).toEqual(job.golden.slice(0, 4));
    expect(steps.slice(4, 7).map((s) => (s as Execute).request.url)).toEqual([
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__again}}",
      "/v3/jobs/{{job__again}}/confirm",
    ]);
    expect(steps[7]).toEqual(job.golden[4]);
  });

  it("a call with no create behind it under a most is itself repeated; under a least only, it is dropped", () => {
    const read = { method: "GET", url_pattern: "^/v3/vessels/" };
    const golden = [mint, get("/v3/vessels/V-412", { berth: "berth" }), answer];
    const m = only(task(golden, [count({ max: 1 }, read)]));
    expect(m.name).toBe("n:repeat@2");
    expect(m.steps("s").map((s) => (s.op === "execute" ? s.request.url : s.op))).toEqual([
      "/v3/oauth/token",
      "/v3/vessels/V-412",
      "/v3/vessels/V-412",
      "answer",
    ]);
    const d = only(task(golden, [count({ min: 1 }, read)]));
    expect(d).toMatchObject({ name: "n:drop_step@2", operator: "drop_step", step: 2 });
    expect(d.steps("s")).toEqual([mint, answer]);
    expect(mutants(task([mint, answer], [count({ min: 1 }, read)]))).toEqual([]);
  });

  it("a delete under a most: the same delete sent to a seeded sibling too, right after", () => {
    const world = WITH_DELETE;
    const del = send("DELETE", "/v3/vessels/V-412", undefined, { gone: "vessel_id" });
    const t = task(
      [mint, del, answer],
      [count({ max: 1 }, { method: "DELETE", url_pattern: "^/v3/vessels/" })],
    );
    const [m] = requirementMutants(world, t, t.requirements ?? []);
    expect(m?.name).toBe("n:sibling_also@2");
    expect(m?.operator).toBe("sibling_target");
    const steps = m?.steps("s") ?? [];
    expect(steps).toHaveLength(4);
    expect(steps[2]).toEqual({ ...del, request: { ...del.request, url: "/v3/vessels/V-204" }, capture: {} });
    // Under a least only, the delete is dropped.
    const least = {
      ...t,
      requirements: [count({ min: 1 }, { method: "DELETE", url_pattern: "^/v3/vessels/" })],
    };
    expect(requirementMutants(world, least, least.requirements).map((x) => x.name)).toEqual([
      "n:drop_step@2",
    ]);
  });
});

describe("ordering: the two swapped, the wait or the earlier step dropped", () => {
  const job = positionalJobTask();
  const submit = { method: "POST", url_pattern: "^/v3/maintenance-orders$" };
  const poll = { method: "GET", url_pattern: "^/v3/jobs/[^/]+$" };
  const confirm = { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$" };
  const order = (before: typeof submit, after: typeof submit, extra = {}): Requirement => ({
    id: "o",
    kind: "ordering",
    predicates: ["p"],
    before,
    after,
    ...extra,
  });

  it("a wait asked between them: the waiting step's wait dropped", () => {
    const m = only(task(job.golden, [order(submit, confirm, { min_wait_seconds: 2 })]));
    expect(m).toMatchObject({ name: "o:drop_wait@3", operator: "drop_wait", step: 3 });
    const polled = m.steps("s")[2] as Execute;
    expect(polled.request.headers).toEqual(bearer);
    expect(m.steps("s").filter((_, i) => i !== 2)).toEqual(job.golden.filter((_, i) => i !== 2));
  });

  it("no step waits between them: the earlier step dropped when the later needs it", () => {
    const noWait = job.golden.map((s) =>
      s.op === "execute" && s.request.method === "GET"
        ? { ...s, request: { ...s.request, headers: bearer } }
        : s,
    );
    const m = only(task(noWait, [order(submit, confirm, { min_wait_seconds: 2 })]));
    expect(m).toMatchObject({ name: "o:drop_step@2", operator: "drop_step", step: 2 });
    // A wait after the later step does not count.
    const late = [
      ...noWait.slice(0, 4),
      get("/v3/vessels/V-204", {}, { "x-apiflow-wait": "3" }),
      noWait[4] as GoldenStep,
    ];
    expect(only(task(late, [order(submit, poll, { min_wait_seconds: 2 })])).name).toBe("o:drop_step@2");
  });

  it("independent steps are swapped in place", () => {
    const golden = [mint, get("/v3/vessels/V-204"), patch("V-412"), answer];
    const m = only(task(golden, [order({ method: "GET", url_pattern: "^/v3/vessels/" }, patchCall)]));
    expect(m).toMatchObject({ name: "o:swap@2", operator: "swap", step: 2 });
    expect(m.steps("s")).toEqual([mint, golden[2], golden[1], answer]);
  });

  it("the earlier step is the first before the later one; either missing, no mutant", () => {
    const golden = [mint, patch("V-412"), get("/v3/vessels/V-204"), get("/v3/vessels/V-311"), answer];
    const read = { method: "GET", url_pattern: "^/v3/vessels/V-(204|311)$" };
    // The reads come after the write: no read before it.
    expect(mutants(task(golden, [order(read, patchCall)]))).toEqual([]);
    expect(mutants(task(golden, [order(read, confirm)]))).toEqual([]);
    const m = only(task(golden, [order(patchCall, read)]));
    expect(m.name).toBe("o:swap@2");
    expect(m.steps("s").map((s) => (s.op === "execute" ? s.request.url : s.op))).toEqual([
      "/v3/oauth/token",
      "/v3/vessels/V-204",
      "/v3/vessels/V-412",
      "/v3/vessels/V-311",
      "answer",
    ]);
  });

  it("same record: the record minted again right after, and the earlier call aimed at that copy", () => {
    const m = only(task(job.golden, [order(poll, confirm, { same_record: true, min_wait_seconds: 2 })]));
    expect(m).toMatchObject({ name: "o:sibling_before@3", operator: "sibling_target", step: 3 });
    const urls = m.steps("s").map((s) => (s.op === "execute" ? s.request.url : s.op));
    expect(urls).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/maintenance-orders",
      "/v3/jobs/{{job__sibling}}",
      "/v3/jobs/{{job}}/confirm",
      "answer",
    ]);
    // Nothing minted the record the later call addresses: the other mutants apply.
    const golden = [mint, get("/v3/vessels/V-204"), patch("V-412"), answer];
    const read = { method: "GET", url_pattern: "^/v3/vessels/" };
    expect(only(task(golden, [order(read, patchCall, { same_record: true })])).name).toBe("o:swap@2");
  });
});

describe("report: each field answered wrong", () => {
  it("a number moved by 1000, a boolean negated, anything else suffixed; one mutant per field", () => {
    const golden = [mint, answer];
    const all = mutants(
      task(golden, [{ id: "r", kind: "report", predicates: ["answer:a"], fields: ["a", "b", "c", "d"] }]),
    );
    expect(all.map((m) => m.name)).toEqual([
      "r:wrong_card:a",
      "r:wrong_card:b",
      "r:wrong_card:c",
      "r:wrong_card:d",
    ]);
    const card = { a: 7, b: true, c: "BX-1", d: null };
    expect(all.map((m) => m.card?.(card))).toEqual([
      { ...card, a: 1007 },
      { ...card, b: false },
      { ...card, c: "BX-1-wrong" },
      { ...card, d: "-wrong" },
    ]);
    expect(all.map((m) => [m.operator, m.step])).toEqual(Array(4).fill(["wrong_card", 2]));
    expect(all[0]?.steps("s")).toEqual(golden);
    expect(all[0]?.card?.({})).toEqual({ a: "-wrong" });
  });
});

describe("a chain: only its last segment's requirements, on its last segment's steps", () => {
  const skeleton = bankFromContent(skeletonContent());
  const chain = taskOf(skeleton, CHAIN);
  const world = skeleton.worlds[0] as typeof W;
  const readV204 = { method: "GET", url_pattern: "^/v3/vessels/V-204$" };
  const create = { method: "POST", url_pattern: "^/v3/maintenance-orders$" };
  const run = (requirements: Requirement[]) => requirementMutants(world, chain, requirements);

  it("a requirement of an earlier segment is left to the chain that ends there", () => {
    const r: Requirement = {
      id: "n",
      kind: "call_count",
      predicates: ["p"],
      call: readV204,
      min: 1,
      segment: 1,
    };
    expect(run([r])).toEqual([]);
  });

  it("the last segment's call is found in that segment, a requirement without one anywhere", () => {
    const last: Requirement = {
      id: "n",
      kind: "call_count",
      predicates: ["p"],
      call: readV204,
      min: 1,
      segment: 3,
    };
    const [m] = run([last]);
    expect(m).toMatchObject({ name: "n:drop_step@7", step: 7, segment: 3 });
    const { segment: _s, ...anywhere } = last;
    expect(run([anywhere as Requirement])[0]?.name).toBe("n:drop_step@2");
  });

  it("a create repeated late in a chain: the session's token is minted again first", () => {
    const r: Requirement = {
      id: "once",
      kind: "call_count",
      predicates: ["p"],
      call: create,
      max: 1,
      segment: 3,
    };
    const [m] = run([r]);
    expect(m?.name).toBe("once:repeat@8");
    const steps = m?.steps("s") ?? [];
    expect(steps).toHaveLength(chain.golden.length + 2);
    expect(steps.slice(0, 8)).toEqual(chain.golden.slice(0, 8));
    expect(steps[8]).toEqual(chain.golden[5]);
    expect((steps[9] as Execute).request.url).toBe("/v3/maintenance-orders");
    expect((steps[9] as Execute).capture).toEqual({ order__again: "order_id" });
    expect(steps.slice(10)).toEqual(chain.golden.slice(8));
  });
});

describe("end_state: the record ends otherwise", () => {
  const v412 = { resource: "vessels", where: { vessel_id: "V-412" } };
  const endState = (expect: unknown, record: unknown = v412): Requirement =>
    ({ id: "e", kind: "end_state", predicates: ["p"], record, expect }) as Requirement;
  const withDelete = WITH_DELETE;
  const names = (t: Task, world = W) => requirementMutants(world, t, t.requirements ?? []).map((m) => m.name);

  it("a field: another value written where the write sends it, else that write dropped", () => {
    const golden = [mint, get("/v3/vessels/V-412"), patch("V-412"), answer];
    const field = { is: "field", field: "firmware_channel", value: "maritime-edge" };
    const m = only(task(golden, [endState(field)]));
    expect(m.name).toBe("e:other_value@3:firmware_channel");
    expect((m.steps("s")[2] as Execute).request.body).toEqual({ firmware_channel: "maritime-lts" });
    // A field the write does not send: its last write to the resource is dropped.
    const other = patch("V-412", { firmware_channel: "maritime-edge" });
    const two = [mint, patch("V-204", { note: "x" }), other, answer];
    expect(names(task(two, [endState({ is: "field", field: "berth", value: "B" })]))).toEqual([
      "e:drop_step@3",
    ]);
    // A value nothing stands in for: that write is dropped.
    const noted = [mint, patch("V-412", { note: "x" }), patch("V-204", {}), answer];
    expect(names(task(noted, [endState({ is: "field", field: "note", value: "x" })]))).toEqual([
      "e:drop_step@2",
    ]);
    // No write to the resource: no mutant.
    expect(names(task([mint, get("/v3/vessels/V-412"), answer], [endState(field)]))).toEqual([]);
  });

  it("absent: its delete aimed at a record the selector does not pick, else dropped", () => {
    const del = send("DELETE", "/v3/vessels/V-204", undefined);
    const t = task(
      [mint, patch("V-311"), del, answer],
      [
        endState(
          { is: "absent" },
          {
            resource: "vessels",
            where: { vessel_id: "V-204" },
          },
        ),
      ],
    );
    const [m] = requirementMutants(withDelete, t, t.requirements ?? []);
    expect(m?.name).toBe("e:sibling_target@3");
    // V-204 is the record meant: the first other one is V-311.
    expect(((m?.steps("s") ?? [])[2] as Execute).request.url).toBe("/v3/vessels/V-311");
    // Without a delete, the last write; a record no sibling stands in for: the write dropped.
    const last = task(
      [mint, patch("V-412"), answer],
      [endState({ is: "absent" }, { resource: "vessels", where: {} })],
    );
    const world = {
      ...withDelete,
      resources: {
        ...W.resources,
        vessels: { ...W.resources.vessels, records: [W.resources.vessels?.records[2]] },
      },
    };
    expect(names(last, world as typeof W)).toEqual(["e:drop_step@2"]);
    expect(names(task([mint, answer], [endState({ is: "absent" })]), withDelete)).toEqual([]);
  });

  it("a count: the create repeated under a most, else the last create (or write) dropped", () => {
    const orders = { resource: "maintenance-orders", where: { vessel_id: "V-204" } };
    const job = positionalJobTask();
    expect(names(task(job.golden, [endState({ is: "count", max: 1 }, orders)]))).toEqual(["e:repeat@2"]);
    expect(names(task(job.golden, [endState({ is: "count", min: 1 }, orders)]))).toEqual(["e:drop_step@2"]);
    // Writes that create nothing: the last one is dropped.
    const golden = [mint, patch("V-412"), patch("V-204"), answer];
    expect(names(task(golden, [endState({ is: "count", max: 1 })]))).toEqual(["e:drop_step@3"]);
    expect(names(task([mint, answer], [endState({ is: "count", max: 1 })]))).toEqual([]);
  });
});

describe("value_flow and stay_canonical on the statefulness subtask", () => {
  const skeleton = bankFromContent(skeletonContent());
  const sub03 = taskOf(skeleton, SUB03);
  const world = skeleton.worlds[0] as typeof W;
  const flow = (predicates: string[]): Requirement => ({ id: "f", kind: "value_flow", predicates });
  const run = (t: Task, requirements: Requirement[]) => requirementMutants(world, t, requirements);

  it("a flow into a later request: its every use gets a literal the agent was never shown", () => {
    const [m] = run(sub03, [flow(["firmware_carried_into_order"])]);
    expect(m).toMatchObject({ name: "f:fabricated@3:firmware", operator: "other_value", step: 3 });
    const steps = m?.steps("s") ?? [];
    expect((steps[2] as Execute).request.body).toEqual({
      vessel_id: "V-204",
      priority: "high",
      firmware_build: "FABRICATED-0000",
    });
    expect(steps.filter((_, i) => i !== 2)).toEqual(sub03.golden.filter((_, i) => i !== 2));
  });

  it("a flow through a variable: the stored copy's uses are fabricated too", () => {
    // The order id read back through the variable it was stored in.
    const golden = sub03.golden.map((s) =>
      s.op === "execute" && s.request.url.includes("{{order}}")
        ? { ...s, request: { ...s.request, url: "/v3/maintenance-orders/{{maintenance_order_id}}" } }
        : s,
    );
    const [m] = run({ ...sub03, golden }, [flow(["order_id_stored_and_reused"])]);
    expect(m?.name).toBe("f:fabricated@5:order");
    expect(((m?.steps("s") ?? [])[4] as Execute).request.url).toBe("/v3/maintenance-orders/FABRICATED-0000");
  });

  it("a value that must be stored and is used nowhere: the store left out; a kept variable likewise", () => {
    const noReadBack = {
      ...sub03,
      golden: sub03.golden.filter((s) => !(s.op === "execute" && s.request.url.includes("{{order}}"))),
    };
    const [m] = run(noReadBack, [flow(["order_id_stored_and_reused"])]);
    expect(m).toMatchObject({ name: "f:drop_store@4", operator: "drop_step", step: 4 });
    expect(m?.steps("s")).toEqual(noReadBack.golden.filter((s) => s.op !== "store"));
    const [kept] = run(sub03, [flow(["order_id_in_local"])]);
    expect(kept?.name).toBe("f:drop_store@4");
    expect(kept?.steps("s")).toEqual(sub03.golden.filter((s) => s.op !== "store"));
  });

  it("a flow into the card only: the card field wrong; a predicate that traces nothing, no mutant", () => {
    const cardOnly = {
      ...sub03,
      grader: {
        ...sub03.grader,
        g1: sub03.grader.g1.map((p) =>
          p.kind === "data_flow" && p.id === "order_id_stored_and_reused"
            ? { ...p, used_in_request_url_pattern: null, must_be_stored: false }
            : p,
        ),
      },
    };
    const [m] = run(cardOnly, [flow(["order_id_stored_and_reused"])]);
    expect(m?.name).toBe("f:wrong_card:order_id");
    expect(m?.card?.({ order_id: "MO-1" })).toEqual({ order_id: "MO-1-wrong" });
    expect(run(sub03, [flow(["order_for_v204_high", "nothing"])])).toEqual([]);
  });

  it("stay_canonical: one call more to the route the constraint forbids, before the answer, with the last call's headers", () => {
    const sub02 = taskOf(skeleton, SUB02);
    const stay: Requirement = {
      id: "s",
      kind: "stay_canonical",
      predicates: ["unknown", ...sub02.grader.constraints.map((c) => c.id)],
    };
    const [m, ...rest] = run(sub02, [stay]);
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ operator: "decoy_read", step: sub02.golden.length });
    const steps = m?.steps("s") ?? [];
    expect(steps).toHaveLength(sub02.golden.length + 1);
    const decoy = steps[sub02.golden.length - 1] as Execute;
    expect(decoy.request).toEqual({ method: "GET", url: "/v2/vessels/V-204", headers: bearer });
    expect(steps.at(-1)).toEqual(sub02.golden.at(-1));
    expect(run({ ...sub02, grader: { ...sub02.grader, constraints: [] } }, [stay])).toEqual([]);
  });
});

describe("a GraphQL golden: its calls known by the exchanges the golden run logged", () => {
  const bank = bankFromContent(skeletonIn("graphql"));
  const sub03 = taskOf(bank, idIn("graphql", SUB03));
  const world = bank.worlds[0] as typeof W;
  const logged = (method: string, url: string, body: ExchangeEvent["request_body"] = null) => ({
    ...exchange(method, url),
    request_body: body,
  });
  const exchanges = [
    logged("POST", "/v3/oauth/token"),
    logged("GET", "/v3/vessels/V-204"),
    logged("POST", "/v3/maintenance-orders", {
      vessel_id: "V-204",
      priority: "high",
      firmware_build: "FW-1",
    }),
    undefined,
    logged("GET", "/v3/maintenance-orders/MO-1"),
  ] as ExchangeEvent[];
  const priority: Requirement = {
    id: "high",
    kind: "value_written",
    predicates: ["p"],
    call: { method: "post", url_pattern: "^/v3/maintenance-orders$" },
    key: "priority",
    value: "high",
    alternatives: ["low"],
  };

  it("the write's value is the one it sent, replaced in the field's input at any depth", () => {
    const [m, ...rest] = requirementMutants(world, sub03, [priority], [], exchanges);
    expect(rest).toEqual([]);
    expect(m?.name).toBe("high:other_value@3:priority");
    const step = m?.steps("s")[2];
    expect(
      step?.op === "execute_native" && step.request.protocol === "graphql" && step.request.variables,
    ).toEqual({
      v0: { vessel_id: "V-204", priority: "low", firmware_build: "{{firmware}}" },
    });
  });

  it("without the run's log, no native step is known to be the call", () => {
    expect(requirementMutants(world, sub03, [priority])).toEqual([]);
  });
});

describe("the requirement mutants' edge cases (issue 21: survivors of npm run mutate)", () => {
  const job = positionalJobTask();
  const tokenCall = { method: "POST", url_pattern: "^/v3/oauth/token$" };
  const count = (call: { method?: string; url_pattern: string }, bounds: { min?: number; max?: number }) =>
    ({ id: "n", kind: "call_count", predicates: ["p"], call, ...bounds }) as Requirement;
  const order = (before: object, after: object, extra = {}): Requirement =>
    ({ id: "o", kind: "ordering", predicates: ["p"], before, after, ...extra }) as Requirement;
  const submit = { method: "POST", url_pattern: "^/v3/maintenance-orders$" };
  const poll = { method: "GET", url_pattern: "^/v3/jobs/[^/]+$" };
  const confirm = { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$" };
  const read = { method: "GET", url_pattern: "^/v3/vessels/" };

  it("the mint is a call too (no route): dropped under a least, repeated under a most", () => {
    const golden = [mint, get("/v3/vessels/V-412"), answer];
    expect(only(task(golden, [count(tokenCall, { min: 1 })])).name).toBe("n:drop_step@1");
    expect(only(task(golden, [count(tokenCall, { max: 1 })])).name).toBe("n:repeat@1");
  });

  it("a solo task has no segment to skip: a requirement naming another is still mutated", () => {
    const r = { id: "r", kind: "report", predicates: ["answer:a"], fields: ["a"], segment: 2 } as Requirement;
    expect(only(task([mint, answer], [r]))).toMatchObject({ name: "r:wrong_card:a", segment: 2 });
  });

  it("a written value: the first call that both matches and sends the key", () => {
    const call = { method: "PATCH", url_pattern: "^/v3/vessels/V-412$" };
    const golden = [mint, patch("V-204"), patch("V-412", { note: "x" }), patch("V-412"), answer];
    expect(only(task(golden, [channelSet({ call, alternatives: ["maritime-beta"] })])).step).toBe(4);
  });

  it("a sibling the requirement names: the operator and step are the call's", () => {
    const golden = [mint, patch("V-412"), answer];
    const r = {
      id: "t",
      kind: "exact_target",
      predicates: ["p"],
      call: patchCall,
      target: "V-412",
      siblings: ["V-311"],
    };
    expect(only(task(golden, [r as Requirement]))).toMatchObject({ operator: "sibling_target", step: 2 });
    // No sibling named and no record in the call's path: no mutant.
    const create = send("POST", "/v3/maintenance-orders", { vessel_id: "V-204" });
    expect(
      mutants(task([mint, create, answer], [{ ...r, call: submit, siblings: [] } as Requirement])),
    ).toEqual([]);
  });

  it("a call under a most after an unrelated job: itself repeated, not the job", () => {
    const golden = [mint, job.golden[1] as GoldenStep, get("/v3/vessels/V-412"), answer];
    expect(only(task(golden, [count(read, { max: 1 })])).name).toBe("n:repeat@3");
    // A job started by a route that creates nothing: only the call itself is repeated.
    const world = {
      ...W,
      routes: W.routes.map((r) =>
        r.id === "createMaintenanceOrder" ? { ...r, action: "update" as const } : r,
      ),
    };
    const t = task(job.golden, [count(confirm, { max: 1 })]);
    expect(requirementMutants(world, t, t.requirements ?? []).map((m) => m.name)).toEqual(["n:repeat@4"]);
  });

  it("ordering: the earlier call is another step than the later one", () => {
    expect(mutants(task([mint, patch("V-412"), answer], [order(patchCall, patchCall)]))).toEqual([]);
  });

  it("ordering: a sibling's earlier call only when the requirement says same record; a wait only when it asks one", () => {
    expect(only(task(job.golden, [order(poll, confirm)])).name).toBe("o:swap@3");
    expect(only(task(job.golden, [order(submit, confirm)])).name).toBe("o:drop_step@2");
  });

  it("ordering: the wait dropped is after the earlier call, up to and including the later one", () => {
    const waited = get("/v3/vessels/V-204", {}, { "x-apiflow-wait": "3" });
    const onBefore = [mint, waited, patch("V-412"), answer];
    expect(only(task(onBefore, [order(read, patchCall, { min_wait_seconds: 2 })])).name).toBe("o:swap@2");
    const waitingPatch = send(
      "PATCH",
      "/v3/vessels/V-412",
      { firmware_channel: "maritime-edge" },
      {},
      {
        "x-apiflow-wait": "3",
      },
    );
    const onAfter = [mint, get("/v3/vessels/V-204"), waitingPatch, answer];
    expect(only(task(onAfter, [order(read, patchCall, { min_wait_seconds: 2 })])).name).toBe("o:drop_wait@3");
  });

  it("a chain's value flow is traced from its own segment's capture, whatever earlier segments named theirs", () => {
    const bank = bankFromContent(skeletonContent());
    const chain = taskOf(bank, CHAIN);
    // Segment 1 reads the same firmware build under another name (and answers it from there).
    const golden = chain.golden.map((s, i) => {
      if (i === 1 && s.op === "execute")
        return { ...s, capture: { firmware1: "firmware_build", channel: "firmware_channel" } };
      return s.op === "answer" ? { ...s, fields: { ...s.fields, firmware_build: "firmware1" } } : s;
    });
    const flow = chain.grader.g1.find(
      (p) =>
        p.kind === "data_flow" &&
        p.from_body_key === "firmware_build" &&
        p.used_in_request_url_pattern !== null,
    );
    if (!flow) throw new Error("the chain carries no firmware build into its order");
    const r = { id: "f", kind: "value_flow", predicates: [flow.id], segment: 3 } as Requirement;
    const [m] = requirementMutants(bank.worlds[0] as typeof W, { ...chain, golden }, [r]);
    expect(m?.name).toBe("f:fabricated@8:firmware");
  });
});
