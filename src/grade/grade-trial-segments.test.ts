import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { AnswerField, G1Predicate, GraderSpec } from "../bank/task-schema.js";
import {
  failedRequirementOf,
  gradeTrial,
  type RequirementNote,
  ungradedFail,
  VERDICT_ONLY_FAIL,
} from "./grade-trial.js";

/**
 * What a grade says beyond its verdict (issue 21: mutation testing): a chain's per-segment results
 * (which requirements failed where, the failure stage and its requirement), the verdict-only grade
 * certification's must-fail trials get, and the placeholder grade of a trial not graded.
 */

/** A log of REST calls: method, URL, status and the body sent. */
function events(...calls: Array<[string, string, number, JsonValue?]>) {
  const log = trialLog();
  for (const [method, url, status, body] of calls) log.call(method, url, status, {}, body ?? null);
  return log.events();
}

/** A PATCH of note `n` to `status`, in `segment`, holding `requirement`. */
function patched(id: string, n: string, status: string, segment?: number, requirement?: string): G1Predicate {
  return {
    kind: "call",
    id,
    explain: "",
    ...(segment !== undefined ? { segment } : {}),
    ...(requirement !== undefined ? { requirement } : {}),
    method: "PATCH",
    url_pattern: `^/notes/${n}$`,
    status: 200,
    body_has_keys: [],
    sent: { status },
  };
}

function field(name: string, expected: JsonValue, segment?: number, requirement?: string): AnswerField {
  return {
    field: name,
    comparator: "string",
    expected,
    explain: "",
    ...(segment !== undefined ? { segment } : {}),
    ...(requirement !== undefined ? { requirement } : {}),
  };
}

const grader = (
  g1: G1Predicate[],
  answer: AnswerField[],
  constraints: GraderSpec["constraints"] = [],
): GraderSpec => ({
  answer,
  g1,
  constraints,
  checkpoints: [],
});

const forbid = (id: string, n: string, segment: number, requirement: string) => ({
  kind: "forbid" as const,
  id,
  explain: "",
  segment,
  requirement,
  method: "DELETE",
  url_pattern: `^/notes/${n}$`,
});

const card = (fields: Record<string, JsonValue>) => `\`\`\`json\n${JSON.stringify(fields)}\n\`\`\``;

describe("a chain's per-segment results", () => {
  it("are tallied when only the G1 predicates name segments (the card's fields name none)", () => {
    const g = grader(
      [patched("a", "CN-1", "settled", 1), patched("b", "CN-2", "void", 2)],
      [field("note", "CN-2")],
    );
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(["PATCH", "/notes/CN-1", 200, { status: "settled" }]),
      finalMessage: card({ note: "CN-2" }),
    });
    expect(grade.segments?.failure_stage).toBe(2);
    expect(grade.segments?.per_segment).toEqual({
      "1": { passed: 1, total: 1, g1_passed: true, g2_passed: true },
      "2": { passed: 0, total: 1, g1_passed: false, g2_passed: true },
    });
  });

  it("are tallied when only some answer fields name a segment and no G1 predicate does", () => {
    const g = grader([patched("a", "CN-1", "settled")], [field("note", "CN-2", 2), field("total", "3")]);
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(["PATCH", "/notes/CN-1", 200, { status: "settled" }]),
      finalMessage: card({ note: "CN-9", total: "3" }),
    });
    expect(grade.segments?.per_segment).toEqual({
      "2": { passed: 0, total: 1, g1_passed: true, g2_passed: false },
    });
    expect(grade.segments?.failure_stage).toBe(2);
  });

  it("are none for a solo task", () => {
    const solo = gradeTrial({
      grader: grader([patched("a", "CN-1", "settled")], [field("note", "CN-2")]),
      trialSeed: "s",
      events: events(),
      finalMessage: card({ note: "CN-2" }),
    });
    expect(solo.passed).toBe(false);
    expect(solo).not.toHaveProperty("segments");
  });

  it("name a requirement once per segment, however many of its checks failed there", () => {
    const g = grader(
      [patched("a", "CN-1", "settled", 1, "moved"), patched("b", "CN-2", "settled", 1, "moved")],
      [field("note", "CN-2", 1, "reported")],
    );
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(),
      finalMessage: card({ note: "x" }),
    });
    expect(grade.segments?.per_segment["1"]?.failed_requirements).toEqual(["moved", "reported"]);
    // Without the task's requirements the note is the id alone (no sentence key).
    expect(grade.segments?.failure_requirement).toStrictEqual({ id: "moved" });
  });

  it("put a violated constraint's requirement first (as the failure reason does), named once, the first violated first", () => {
    const g = grader(
      [patched("a", "CN-1", "settled", 1, "moved"), patched("b", "CN-2", "settled", 1, "kept")],
      [],
      [forbid("no_delete_3", "CN-3", 1, "kept"), forbid("no_delete_4", "CN-4", 1, "spared")],
    );
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(["DELETE", "/notes/CN-3", 204], ["DELETE", "/notes/CN-4", 204]),
      finalMessage: card({}),
    });
    expect(grade.failure_reason).toContain(
      "first failure: constraint no_delete_3 (requirement kept) violated",
    );
    expect(grade.segments?.per_segment["1"]?.failed_requirements).toEqual(["kept", "spared", "moved"]);
    expect(grade.segments?.failure_requirement).toEqual({ id: "kept" });
  });

  it("mark a segment's labour failed by a constraint violated there, and no other segment's", () => {
    const g = grader(
      [patched("a", "CN-1", "settled", 1), patched("b", "CN-2", "void", 2)],
      [],
      [forbid("no_delete_3", "CN-3", 2, "spared")],
    );
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(
        ["PATCH", "/notes/CN-1", 200, { status: "settled" }],
        ["PATCH", "/notes/CN-2", 200, { status: "void" }],
        ["DELETE", "/notes/CN-3", 204],
      ),
      finalMessage: card({}),
    });
    expect(grade.segments?.per_segment["1"]?.g1_passed).toBe(true);
    expect(grade.segments?.per_segment["2"]).toEqual({
      passed: 1,
      total: 1,
      g1_passed: false,
      g2_passed: true,
      failed_requirements: ["spared"],
    });
    expect(grade.segments?.failure_stage).toBe(2);
  });

  it("name no failure requirement when the failing segment's checks hold none", () => {
    const g = grader([patched("a", "CN-1", "settled", 1, "moved"), patched("b", "CN-2", "void", 2)], []);
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(["PATCH", "/notes/CN-1", 200, { status: "settled" }]),
      finalMessage: card({}),
    });
    expect(grade.segments?.failure_stage).toBe(2);
    expect(grade.segments).not.toHaveProperty("failure_requirement");
    expect(grade.segments?.per_segment["2"]).not.toHaveProperty("failed_requirements");
  });
});

describe("a chain's per-segment results (continued)", () => {
  it("are tallied when some G1 predicates name a segment and others none", () => {
    const g = grader(
      [patched("a", "CN-1", "settled", 1), patched("b", "CN-2", "void")],
      [field("note", "CN-2")],
    );
    const grade = gradeTrial({
      grader: g,
      trialSeed: "s",
      events: events(),
      finalMessage: card({ note: "CN-2" }),
    });
    expect(grade.segments?.per_segment).toEqual({
      "1": { passed: 0, total: 1, g1_passed: false, g2_passed: true },
    });
  });
});

describe("a failed check's requirement, named with its sentence", () => {
  const failing = (segment: number | undefined, requirements: RequirementNote[]) =>
    gradeTrial({
      grader: grader([patched("a", "CN-1", "settled", segment, "moved")], []),
      trialSeed: "s",
      events: events(),
      finalMessage: card({}),
      requirements,
    }).failure_reason;

  it("is the sentence of the requirement with the check's id, not another's", () => {
    const reason = failing(1, [
      { id: "other", segment: 1, sentence: "Leave CN-9." },
      { id: "moved", segment: 1, sentence: "Move CN-1." },
    ]);
    expect(failedRequirementOf(reason)).toEqual({ id: "moved", sentence: "Move CN-1." });
  });

  it("matches a requirement naming no segment, and a check naming none matches any segment's", () => {
    expect(failedRequirementOf(failing(2, [{ id: "moved", sentence: "Move CN-1." }]))).toEqual({
      id: "moved",
      sentence: "Move CN-1.",
    });
    expect(
      failedRequirementOf(failing(undefined, [{ id: "moved", segment: 3, sentence: "Move CN-1." }])),
    ).toEqual({
      id: "moved",
      sentence: "Move CN-1.",
    });
    // Another segment's requirement of the same id is not this one.
    expect(failedRequirementOf(failing(2, [{ id: "moved", segment: 1, sentence: "Move CN-1." }]))).toEqual({
      id: "moved",
      sentence: null,
    });
  });

  it("is the id alone when the given requirements hold none of that id", () => {
    const grade = gradeTrial({
      grader: grader([patched("a", "CN-1", "settled", 1, "moved")], []),
      trialSeed: "s",
      events: events(),
      finalMessage: card({}),
      requirements: [{ id: "other", segment: 1, sentence: "Leave CN-9." }],
    });
    expect(failedRequirementOf(grade.failure_reason)).toEqual({ id: "moved", sentence: null });
    expect(grade.segments?.failure_requirement).toStrictEqual({ id: "moved" });
  });
});

describe("failedRequirementOf", () => {
  it("reads the requirement of the first failure only, wherever the reason starts", () => {
    expect(failedRequirementOf("first failure: call x (requirement r1): no")).toEqual({
      id: "r1",
      sentence: null,
    });
    // A requirement named before the first failure is not its requirement.
    expect(failedRequirementOf("retried (requirement r0); first failure: call x: no")).toBeNull();
  });
});

describe("a verdict-only grade", () => {
  const g = grader(
    [patched("a", "CN-1", "settled", 1), patched("b", "CN-2", "void", 2)],
    [field("note", "CN-2", 2)],
  );
  const done = events(
    ["PATCH", "/notes/CN-1", 200, { status: "settled" }],
    ["PATCH", "/notes/CN-2", 200, { status: "void" }],
  );

  it("is cut short on a failing answer field, a failing predicate or a violated constraint", () => {
    const cut = ungradedFail(VERDICT_ONLY_FAIL);
    const wrongCard = { grader: g, trialSeed: "s", events: done, finalMessage: card({ note: "CN-9" }) };
    expect(gradeTrial(wrongCard, { verdictOnly: true })).toEqual(cut);
    const noWork = { grader: g, trialSeed: "s", events: events(), finalMessage: card({ note: "CN-2" }) };
    expect(gradeTrial(noWork, { verdictOnly: true })).toEqual(cut);
    const withForbid = grader(g.g1, g.answer, [forbid("no_delete", "CN-3", 1, "spared")]);
    const violated = {
      grader: withForbid,
      trialSeed: "s",
      events: [...done, ...events(["DELETE", "/notes/CN-3", 204])],
      finalMessage: card({ note: "CN-2" }),
    };
    expect(gradeTrial(violated, { verdictOnly: true })).toEqual(cut);
    // The full grade of each says why.
    expect(gradeTrial(wrongCard).failure_reason).toContain("answer field 'note'");
  });

  it("is the full grade when the trial passes", () => {
    const input = { grader: g, trialSeed: "s", events: done, finalMessage: card({ note: "CN-2" }) };
    const full = gradeTrial(input);
    expect(full.passed).toBe(true);
    expect(gradeTrial(input, { verdictOnly: true })).toEqual(full);
  });

  it("reads only the graded segments: a selective chain's ungraded field or predicate fails nothing", () => {
    const input = {
      grader: g,
      gradedSegments: [1],
      trialSeed: "s",
      events: events(["PATCH", "/notes/CN-1", 200, { status: "settled" }]),
      finalMessage: card({ note: "CN-9" }),
    };
    const full = gradeTrial(input);
    expect(full.passed).toBe(true);
    expect(gradeTrial(input, { verdictOnly: true })).toEqual(full);
  });
});

describe("ungradedFail", () => {
  // A grade of a solo task (no segments, no chain mode): the keys every grade has.
  const passingInput = {
    grader: grader([], [field("note", "CN-2")]),
    trialSeed: "s",
    events: events(),
    finalMessage: card({ note: "CN-2" }),
  };

  it("is a failing grade with nothing graded: no card, no predicate, no score, the reason given", () => {
    const constraints = [
      { kind: "forbid" as const, id: "no_v2", explain: "", violated: true, detail: "GET /v2/x" },
    ];
    const g = ungradedFail("not graded: the harness failed", constraints);
    for (const flag of ["passed", "g1_passed", "g2_passed", "card_found"] as const)
      expect(g[flag], flag).toBe(false);
    expect([g.g1, g.g2, g.checkpoints]).toEqual([[], [], []]);
    expect([g.predicates_passed, g.predicates_total, g.partial_score]).toEqual([0, 0, 0]);
    expect(g.constraints).toBe(constraints);
    expect(g.failure_reason).toBe("not graded: the harness failed");
    expect(Object.keys(g).sort()).toEqual(Object.keys(gradeTrial(passingInput)).sort());
    expect(ungradedFail("x").constraints).toEqual([]);
  });
});
