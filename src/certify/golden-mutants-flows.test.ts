import { describe, expect, it } from "vitest";
import { blindExchange } from "../../test/support/blind-segments.js";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import { CHAIN, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { G1Predicate, GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { requirementMutants } from "./golden-mutants.js";

/**
 * Issue 21 (area certify-golden-mutants-flows): the value-flow operator's choices the requirement
 * tests leave open. Which store a kept variable's mutant drops, which capture is the flow's source
 * (at the predicate's URL, as sent or as written; a bad pattern), and from where a chain's or a
 * solo task's uses of the binding count. Each mutant's steps are pinned without a trial.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const bearer = { Authorization: "Bearer {{token}}" };
const job = positionalJobTask();
const mint = job.golden[0] as Execute;
const answer: GoldenStep = { op: "answer", fields: { order_id: "order" } };
const get = (url: string, capture: Record<string, string> = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: bearer },
  capture,
});
const store = (name: string, from: string): GoldenStep => ({ op: "store", name, scope: "local", from });
const flow: Requirement = { id: "v", kind: "value_flow", predicates: ["f"] };
const dataFlow = (from_response_url_pattern: string, from_body_key = "vessel_id"): G1Predicate =>
  ({
    kind: "data_flow",
    id: "f",
    explain: "",
    from_response_url_pattern,
    from_status: 200,
    from_body_key,
    answer_field: undefined,
    must_be_stored: false,
    used_in_request_url_pattern: "^/v3/",
  }) as G1Predicate;

function task(golden: GoldenStep[], g1: G1Predicate[], requirements: Requirement[] = [flow]): Task {
  return { ...job, golden, requirements, grader: { ...job.grader, g1: [...job.grader.g1, ...g1] } };
}
/** A GET of `url` a golden run logged (200, an empty object answered). */
const exchange = (url: string): ExchangeEvent => blindExchange("GET", url, {});
const mutants = (t: Task, exchanges: ExchangeEvent[] = []) =>
  requirementMutants(W, t, t.requirements ?? [], [], exchanges);
const urlAt = (steps: GoldenStep[] | undefined, i: number) =>
  (steps?.[i] as Execute | undefined)?.request.url;

describe("a kept variable: the store of that name is left out", () => {
  it("only the store of the predicate's name; a predicate whose variable is never stored is passed over", () => {
    const kept = (id: string, name: string): G1Predicate =>
      ({ kind: "workspace_value", id, explain: "", name, scope: "any", value: "V-204" }) as G1Predicate;
    const golden = [
      mint,
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      store("other", "v"),
      store("kept", "v"),
      answer,
    ];
    const r: Requirement = { id: "k", kind: "value_flow", predicates: ["never", "kept"] };
    const [m, ...rest] = mutants(task(golden, [kept("never", "absent"), kept("kept", "kept")], [r]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "k:drop_store@4", operator: "drop_step", step: 4 });
    expect(m?.steps("s")).toEqual(golden.filter((_, i) => i !== 3));
  });
});

describe("a data flow's source: the capture at the predicate's URL", () => {
  it("as written: of two captures of the key, the one from the URL the predicate names", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      get("/v3/vessels/V-311", { w: "vessel_id" }),
      get("/v3/vessels/{{v}}?other={{w}}"),
      answer,
    ];
    const [m] = mutants(task(golden, [dataFlow("^/v3/vessels/V-311$")]));
    expect(m?.name).toBe("v:fabricated@4:w");
    expect(urlAt(m?.steps("s"), 3)).toBe("/v3/vessels/{{v}}?other=FABRICATED-0000");
  });

  it("as the golden run sent it: a URL written with a placeholder is known by its logged form", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      get("/v3/vessels/{{v}}", { w: "vessel_id" }),
      get("/v3/vessels/V-412?other={{w}}"),
      answer,
    ];
    const exchanges = [
      undefined,
      exchange("/v3/vessels/V-204"),
      exchange("/v3/vessels/V-311"),
    ] as ExchangeEvent[];
    const t = task(golden, [dataFlow("^/v3/vessels/V-311$")]);
    const [m] = mutants(t, exchanges);
    expect(m?.name).toBe("v:fabricated@4:w");
    expect(urlAt(m?.steps("s"), 2)).toBe("/v3/vessels/{{v}}");
    // Without the log no capture is at the URL: every capture of the key is a source, the first leads.
    expect(mutants(t)[0]?.name).toBe("v:fabricated@3:v");
  });

  it("a bad URL pattern: no capture is at it, every capture of the key is a source", () => {
    const golden = [mint, get("/v3/vessels/V-204", { v: "vessel_id" }), get("/v3/vessels/{{v}}"), answer];
    const exchanges = [undefined, exchange("/v3/vessels/V-204")] as ExchangeEvent[];
    expect(mutants(task(golden, [dataFlow("(")]), exchanges)[0]?.name).toBe("v:fabricated@3:v");
  });

  it("a solo task counts the uses from its source, not from an earlier capture of the same name elsewhere", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      get("/v3/vessels/{{v}}"),
      get("/v3/vessels/V-311", { v: "vessel_id" }),
      get("/v3/vessels/{{v}}/again"),
      answer,
    ];
    const [m] = mutants(task(golden, [dataFlow("^/v3/vessels/V-311$")]));
    expect(m?.name).toBe("v:fabricated@5:v");
    expect(urlAt(m?.steps("s"), 2)).toBe("/v3/vessels/{{v}}");
    expect(urlAt(m?.steps("s"), 4)).toBe("/v3/vessels/FABRICATED-0000/again");
  });
});

describe("a chain's flow: the source in the requirement's segment, the uses from the binding's first capture", () => {
  const skeleton = bankFromContent(skeletonContent());
  const chain = taskOf(skeleton, CHAIN);
  const world = skeleton.worlds[0] as World;
  const run = (t: Task, p: G1Predicate) =>
    requirementMutants(world, { ...t, grader: { ...t.grader, g1: [...t.grader.g1, p] } }, [
      { id: "v", kind: "value_flow", predicates: ["f"], segment: 3 },
    ]);

  it("a token minted in every segment: its uses from the first segment's mint on are fabricated", () => {
    const [m] = run(chain, dataFlow("^/v3/oauth/token$", "access_token"));
    expect(m?.name).toBe("v:fabricated@2:token");
    const steps = m?.steps("s") ?? [];
    const fabricatedAt = steps.flatMap((s, i) => (JSON.stringify(s).includes("FABRICATED-0000") ? [i] : []));
    expect(fabricatedAt).toEqual([1, 4, 6, 7, 9]);
  });

  it("a value captured only in an earlier segment is still the source of the last segment's use", () => {
    // The berth (read in segment 2, step 5) sent again by the order read of segment 3 (step 10).
    const golden = chain.golden.map((s, i) =>
      i === 9 && s.op === "execute"
        ? { ...s, request: { ...s.request, headers: { ...s.request.headers, "X-Berth": "{{berth}}" } } }
        : s,
    );
    const [m] = run({ ...chain, golden }, dataFlow("^/v3/vessels/V-311$", "berth"));
    expect(m?.name).toBe("v:fabricated@10:berth");
    expect((m?.steps("s")[9] as Execute | undefined)?.request.headers).toMatchObject({
      "X-Berth": "FABRICATED-0000",
    });
  });
});

describe("a data flow's bindings: the source's, and the variables stored from it after it", () => {
  const fromV204 = dataFlow("^/v3/vessels/V-204$");

  it("a store of another binding, or of the same name before the source, is no copy of the value", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-412", { v: "name" }),
      store("early", "v"),
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      get("/v3/vessels/V-311", { w: "berth" }),
      store("wcopy", "w"),
      get("/v3/vessels/{{v}}?x={{wcopy}}&y={{early}}"),
      answer,
    ];
    const [m] = mutants(task(golden, [fromV204]));
    expect(m?.name).toBe("v:fabricated@7:v");
    expect(urlAt(m?.steps("s"), 6)).toBe("/v3/vessels/FABRICATED-0000?x={{wcopy}}&y={{early}}");
  });

  it("the source's own use of its name (a rotated value) is not a use of what it captured", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-204?prev={{v}}", { v: "vessel_id" }),
      get("/v3/vessels/{{v}}"),
      answer,
    ];
    const [m] = mutants(task(golden, [fromV204]));
    expect(m?.name).toBe("v:fabricated@3:v");
    expect(urlAt(m?.steps("s"), 1)).toBe("/v3/vessels/V-204?prev={{v}}");
  });

  it("must be stored and used nowhere: the stores of the value after its source are left out, only they", () => {
    const stored = { ...fromV204, used_in_request_url_pattern: null, must_be_stored: true } as G1Predicate;
    const golden = [
      mint,
      get("/v3/vessels/V-412", { v: "name" }),
      store("early", "v"),
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      get("/v3/vessels/V-311", { w: "berth" }),
      store("wcopy", "w"),
      store("vcopy", "v"),
      answer,
    ];
    const [m] = mutants(task(golden, [stored]));
    expect(m).toMatchObject({ name: "v:drop_store@7", operator: "drop_step", step: 7 });
    expect(m?.steps("s")).toEqual(golden.filter((_, i) => i !== 6));
  });

  it("into the card only: the card field wrong, the steps kept; no card field and no use: no mutant", () => {
    const card = { ...fromV204, used_in_request_url_pattern: null, answer_field: "order_id" } as G1Predicate;
    const golden = [mint, get("/v3/vessels/V-204", { v: "vessel_id" }), store("vcopy", "v"), answer];
    const [m, ...rest] = mutants(task(golden, [card]));
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "v:wrong_card:order_id", operator: "wrong_card", step: 4 });
    expect(m?.steps("s")).toEqual(golden);
    const nowhere = { ...fromV204, used_in_request_url_pattern: null } as G1Predicate;
    expect(mutants(task(golden, [nowhere]))).toEqual([]);
  });
});

describe("a chain's flow: a use in the requirement's segment before the source counts, one elsewhere not", () => {
  const skeleton = bankFromContent(skeletonContent());
  const chain = taskOf(skeleton, CHAIN);
  const world = skeleton.worlds[0] as World;

  it("the channel sent by segment 2 and by segment 3's create, captured again by segment 3's last read", () => {
    // Uses count from the first capture of the binding (step 10); segment 3's create before it counts.
    const withHeader = (s: GoldenStep): GoldenStep =>
      s.op === "execute"
        ? { ...s, request: { ...s.request, headers: { ...s.request.headers, "X-Channel": "{{channel}}" } } }
        : s;
    const golden = chain.golden.map((s, i) => {
      if (i === 4 || i === 7) return withHeader(s);
      if (i === 9 && s.op === "execute") return { ...s, capture: { channel: "status" } };
      // The key captured under another name in segment 1: no capture of the flow's binding.
      if (i === 1 && s.op === "execute") return { ...s, capture: { ...s.capture, other: "status" } };
      return s;
    });
    const p = dataFlow("^/v3/maintenance-orders/", "status");
    const [m] = requirementMutants(
      world,
      { ...chain, golden, grader: { ...chain.grader, g1: [...chain.grader.g1, p] } },
      [{ id: "v", kind: "value_flow", predicates: ["f"], segment: 3 }],
    );
    expect(m?.name).toBe("v:fabricated@8:channel");
    const steps = m?.steps("s") ?? [];
    expect((steps[7] as Execute | undefined)?.request.headers).toMatchObject({
      "X-Channel": "FABRICATED-0000",
    });
    expect(steps[4]).toEqual(golden[4]);
  });
});

describe("covered: the walk's own reads of its pages, and a page failed in the golden run", () => {
  const covered = {
    kind: "covered",
    id: "walked",
    explain: "",
    url_patterns: ["^/v3/vessels\\?page="],
    body_key: "vessels.vessel_id",
    ids: ["V-204", "V-311", "V-412"],
  } as G1Predicate;
  const whole: Requirement = { id: "whole", kind: "value_flow", predicates: ["walked"] };
  const read = get("/v3/vessels/{{second}}", { berth: "berth" });
  const end: GoldenStep = { op: "answer", fields: { berth: "berth" } };

  it("a cursor one page passes to the next is no value used: the walk stops after the page read", () => {
    const golden = [
      mint,
      get("/v3/vessels?page=1", { second: "vessels.0.vessel_id" }),
      get("/v3/vessels?page=2", { c2: "next" }),
      get("/v3/vessels?page=3&cursor={{c2}}"),
      read,
      end,
    ];
    const [m] = mutants(task(golden, [covered], [whole]));
    expect(m?.name).toBe("whole:stopped_walk@3");
    expect(m?.steps("s")).toEqual([mint, golden[1], read, end]);
  });

  it("a failed page after the page read is dropped, and the mutant names the segment's next page", () => {
    const golden = [
      mint,
      get("/v3/vessels?page=1", { second: "vessels.0.vessel_id" }),
      get("/v3/vessels?page=2"),
      get("/v3/vessels?page=3"),
      read,
      end,
    ];
    const t = task(golden, [covered], [whole]);
    const [m] = requirementMutants(W, t, [whole], [200, 200, 500]);
    expect(m?.name).toBe("whole:stopped_walk@4");
    expect(m?.steps("s")).toEqual([mint, golden[1], read, end]);
  });
});

describe("a send with no logged URL and no REST request is at no URL", () => {
  const native = (capture: Record<string, string>): GoldenStep => ({
    op: "execute_native",
    request: { protocol: "graphql", query: "query { vessel { vessel_id } }", variables: {} },
    capture,
  });

  it("a data flow's source: a GraphQL capture is not at a pattern only some text would match", () => {
    const golden = [
      mint,
      get("/v3/vessels/V-204", { v: "vessel_id" }),
      native({ w: "vessel_id" }),
      get("/v3/vessels/{{v}}?w={{w}}"),
      answer,
    ];
    // The REST read's URL is logged; the GraphQL call has none (and no REST request).
    const exchanges = [undefined, exchange("/v3/vessels/V-204")] as ExchangeEvent[];
    const [m] = mutants(task(golden, [dataFlow("here")]), exchanges);
    expect(m?.name).toBe("v:fabricated@4:v");
  });

  it("covered: a GraphQL read is no page of a walk", () => {
    const covered = {
      kind: "covered",
      id: "walked",
      explain: "",
      url_patterns: ["^/v3/vessels\\?page=|here"],
      body_key: "vessels.vessel_id",
      ids: ["V-204"],
    } as G1Predicate;
    const whole: Requirement = { id: "whole", kind: "value_flow", predicates: ["walked"] };
    const end: GoldenStep = { op: "answer", fields: { berth: "berth" } };
    const golden = [
      mint,
      get("/v3/vessels?page=1", { second: "vessels.0.vessel_id" }),
      get("/v3/vessels?page=2"),
      native({ x: "data.vessels.nodes" }),
      get("/v3/vessels/{{second}}", { berth: "berth" }),
      end,
    ];
    const [m] = mutants(task(golden, [covered], [whole]));
    expect(m?.name).toBe("whole:stopped_walk@3");
    expect(m?.steps("s")).toEqual(golden.filter((_, i) => i !== 2));
  });
});
