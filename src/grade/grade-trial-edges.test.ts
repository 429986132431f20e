import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { declaredFields, gradeTrial } from "./grade-trial.js";

/**
 * gradeTrial's bookkeeping at its edges (issue 21: mutation testing): per-segment tallies of a
 * chain, the first failing stage, constraints that belong to a segment, the failure reason word
 * for word, and the fields that choose the card.
 */
const SEED = "seed-grade-trial-edges";

function events(calls: Array<[string, JsonValue]>) {
  const l = new EventLog();
  for (const [url, body] of calls)
    l.append({
      type: "exchange",
      protocol: "rest",
      method: "GET",
      url,
      request_headers: {},
      request_body: null,
      status: 200,
      response_headers: { "content-type": "application/json" },
      response_body: body,
    });
  return l.events;
}

const flow = (id: string, url: string, key: string, segment?: number) =>
  ({
    kind: "data_flow",
    id,
    explain: "",
    from_response_url_pattern: url,
    from_status: 200,
    from_body_key: key,
    must_be_stored: false,
    used_in_request_url_pattern: null,
    answer_field: key,
    ...(segment !== undefined ? { segment } : {}),
  }) as const;

const card = (fields: Record<string, JsonValue>) => `done\n\`\`\`json\n${JSON.stringify(fields)}\n\`\`\``;

/** A chain of two stages numbered 2 and 10 (listed 10 first), a decoy forbidden in stage 10. */
const chain: GraderSpec = {
  answer: [
    { field: "b", comparator: "string", expected: "B", explain: "", segment: 10 },
    { field: "a", comparator: "string", expected: "A", explain: "", segment: 2 },
  ],
  g1: [flow("seg10", "^/ten$", "b", 10), flow("seg2", "^/two$", "a", 2)],
  constraints: [
    { kind: "forbid", id: "no_decoy", explain: "", url_pattern: "^/decoy$", segment: 10 },
    { kind: "forbid", id: "no_other", explain: "", url_pattern: "^/other$", segment: 7 },
  ],
  checkpoints: [],
};
const both = () =>
  events([
    ["/ten", { b: "B" }],
    ["/two", { a: "A" }],
  ]);

describe("gradeTrial: chain segments", () => {
  it("tallies each stage's G1 and G2 apart; the first failing stage is the lowest, numerically", () => {
    // Stage 2's answer is wrong (its data flow to the card fails too); stage 10's value never came
    // from /ten (G1 fails) though its answer field is right.
    const g = gradeTrial({
      grader: chain,
      trialSeed: SEED,
      events: events([["/two", { a: "A" }]]),
      finalMessage: card({ a: "wrong", b: "B" }),
    });
    expect(g.segments).toEqual({
      per_segment: {
        "2": { passed: 0, total: 2, g1_passed: false, g2_passed: false },
        "10": { passed: 1, total: 2, g1_passed: false, g2_passed: true },
      },
      failure_stage: 2,
    });
  });

  it("a wrong answer fails its own stage (data flow and field), not the other", () => {
    const g = gradeTrial({
      grader: chain,
      trialSeed: SEED,
      events: both(),
      finalMessage: card({ a: "A", b: "x" }),
    });
    expect(g.segments).toEqual({
      per_segment: {
        "2": { passed: 2, total: 2, g1_passed: true, g2_passed: true },
        "10": { passed: 0, total: 2, g1_passed: false, g2_passed: false },
      },
      failure_stage: 10,
    });
  });

  it("a violated constraint of a stage fails that stage's G1; one of a stage with no tally changes nothing", () => {
    const withDecoy = gradeTrial({
      grader: chain,
      trialSeed: SEED,
      events: events([
        ["/ten", { b: "B" }],
        ["/two", { a: "A" }],
        ["/decoy", {}],
        ["/other", {}],
      ]),
      finalMessage: card({ a: "A", b: "B" }),
    });
    expect(withDecoy.segments).toEqual({
      per_segment: {
        "2": { passed: 2, total: 2, g1_passed: true, g2_passed: true },
        "10": { passed: 2, total: 2, g1_passed: false, g2_passed: true },
      },
      failure_stage: 10,
    });
    expect(withDecoy.failure_reason).toBe(
      "4/4 predicates matched; failed: G1 labour; first failure: constraint no_decoy violated by GET /decoy",
    );
  });

  it("predicates not evaluated (no readable card) are left out of the stage tallies", () => {
    const g = gradeTrial({ grader: chain, trialSeed: SEED, events: both(), finalMessage: null });
    expect(g.g1.map((r) => r.not_evaluated)).toEqual([true, true]);
    expect(g.segments).toEqual({
      per_segment: {
        "2": { passed: 0, total: 1, g1_passed: true, g2_passed: false },
        "10": { passed: 0, total: 1, g1_passed: true, g2_passed: false },
      },
      failure_stage: 2,
    });
    expect(g.partial_score).toBe(0);
    expect(g.failure_reason).toBe(
      "0/2 predicates matched; failed: G2 answer; first failure: no readable answer card (the final message has no ```json fenced block)",
    );
  });

  it("selective grading keeps a field that belongs to no stage", () => {
    const grader: GraderSpec = {
      ...chain,
      answer: [...chain.answer, { field: "c", comparator: "string", expected: "C", explain: "" }],
    };
    const g = gradeTrial({
      grader,
      gradedSegments: [10],
      trialSeed: SEED,
      events: both(),
      finalMessage: card({ a: "A", b: "B", c: "nope" }),
    });
    expect(g.g2.map((f) => f.field)).toEqual(["b", "c"]);
    expect(g.passed).toBe(false);
  });

  it("copies the chain mode; a grade of no stages has no segments and no chain mode", () => {
    const g = gradeTrial({
      grader: { ...chain, chain_mode: "selective" },
      trialSeed: SEED,
      events: both(),
      finalMessage: card({ a: "A", b: "B" }),
    });
    expect(g.chain_mode).toBe("selective");
    expect(g.passed).toBe(true);
    const solo: GraderSpec = {
      answer: [{ field: "a", comparator: "string", expected: "A", explain: "" }],
      g1: [flow("solo", "^/two$", "a")],
      constraints: [],
      checkpoints: [],
    };
    const s = gradeTrial({ grader: solo, trialSeed: SEED, events: both(), finalMessage: card({ a: "A" }) });
    expect(s.passed).toBe(true);
    expect("segments" in s).toBe(false);
    expect("chain_mode" in s).toBe(false);
  });
});

describe("gradeTrial: verdict edges", () => {
  it("a grader with nothing to grade passes with a partial score of 0 (not NaN)", () => {
    const g = gradeTrial({
      grader: { answer: [], g1: [], constraints: [], checkpoints: [] },
      trialSeed: SEED,
      events: [],
      finalMessage: null,
    });
    expect(g).toMatchObject({ passed: true, predicates_total: 0, partial_score: 0, failure_reason: "" });
  });

  it("a G1 failure alone names only the G1 group", () => {
    const solo: GraderSpec = {
      answer: [{ field: "a", comparator: "string", expected: "A", explain: "" }],
      g1: [flow("solo", "^/two$", "a")],
      constraints: [],
      checkpoints: [],
    };
    const g = gradeTrial({ grader: solo, trialSeed: SEED, events: [], finalMessage: card({ a: "A" }) });
    expect(g.failure_reason).toMatch(
      /^1\/2 predicates matched; failed: G1 labour; first failure: data_flow solo: /,
    );
  });
});

describe("declaredFields", () => {
  it("every field the answer declares, once, in order", () => {
    const grader: GraderSpec = {
      ...chain,
      answer: [...chain.answer, { field: "b", comparator: "string", expected: "B", explain: "", segment: 2 }],
    };
    expect(declaredFields(grader)).toEqual(["b", "a"]);
    // Asked again: the same list.
    expect(declaredFields(grader)).toEqual(["b", "a"]);
  });

  it("choose the card among several blocks: a quoted body after the card does not displace it", () => {
    const solo: GraderSpec = {
      answer: [{ field: "a", comparator: "string", expected: "A", explain: "" }],
      g1: [],
      constraints: [],
      checkpoints: [],
    };
    const message = `${card({ a: "A" })}\nThe body I sent:\n${card({ note: "x" })}`;
    expect(gradeTrial({ grader: solo, trialSeed: SEED, events: [], finalMessage: message }).passed).toBe(
      true,
    );
  });
});
