import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { GraderSpec, Requirement } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { failedRequirementOf, formatRequirement, gradeTrial } from "./grade-trial.js";

// Issue 15 item 6: the failure reason, the failure stage and the per-segment results name the
// requirement that failed, by id and by the ticket's sentence.

function events(...calls: Array<[string, string, number, JsonValue?]>) {
  const log = new EventLog();
  for (const [method, url, status, body] of calls)
    log.append({
      type: "exchange",
      protocol: "rest",
      method,
      url,
      request_headers: {},
      request_body: body ?? null,
      status,
      response_headers: {},
      response_body: {},
    });
  return log.events;
}

/** Segment 1 moves note CN-1 to `settled`; segment 2 moves CN-2 to `void`, and reports the note. */
const grader: GraderSpec = {
  answer: [
    {
      field: "note",
      comparator: "string",
      expected: "CN-2",
      explain: "",
      segment: 2,
      requirement: "reported",
    },
  ],
  g1: [
    {
      kind: "call",
      id: "settled",
      explain: "",
      segment: 1,
      requirement: "note_settled",
      method: "PATCH",
      url_pattern: "^/notes/CN-1$",
      status: 200,
      body_has_keys: [],
      sent: { status: "settled" },
    },
    {
      kind: "call",
      id: "voided",
      explain: "",
      segment: 2,
      requirement: "note_settled",
      method: "PATCH",
      url_pattern: "^/notes/CN-2$",
      status: 200,
      body_has_keys: [],
      sent: { status: "void" },
    },
  ],
  constraints: [],
  checkpoints: [],
};
// The same id in two segments, told apart by `segment` (a chain prefixes none).
const requirements: Requirement[] = [
  {
    kind: "value_written",
    id: "note_settled",
    segment: 1,
    sentence: "Move CN-1 to `settled`.",
    predicates: ["settled"],
    call: { method: "PATCH", url_pattern: "^/notes/CN-1$" },
    key: "status",
    value: "settled",
    alternatives: [],
  },
  {
    kind: "value_written",
    id: "note_settled",
    segment: 2,
    sentence: "Then void CN-2.",
    predicates: ["voided"],
    call: { method: "PATCH", url_pattern: "^/notes/CN-2$" },
    key: "status",
    value: "void",
    alternatives: [],
  },
  { kind: "report", id: "reported", segment: 2, predicates: ["answer:note"], fields: ["note"] },
];
const card = '```json\n{"note": "CN-2"}\n```';
const segment1Done = ["PATCH", "/notes/CN-1", 200, { status: "settled" }] as [
  string,
  string,
  number,
  JsonValue,
];

describe("a failed requirement named in a chain's grade", () => {
  it("the failure reason quotes the sentence of the failed segment's requirement", () => {
    const grade = gradeTrial({
      grader,
      trialSeed: "s",
      events: events(segment1Done, ["PATCH", "/notes/CN-2", 200, { status: "approved" }]),
      finalMessage: card,
      requirements,
    });
    expect(grade.passed).toBe(false);
    expect(grade.failure_reason).toContain(
      "first failure: call voided (requirement note_settled: “Then void CN-2.”): ",
    );
    expect(failedRequirementOf(grade.failure_reason)).toEqual({
      id: "note_settled",
      sentence: "Then void CN-2.",
    });
  });

  it("the failure stage and the per-segment results name it; passing segments name none", () => {
    const grade = gradeTrial({
      grader,
      trialSeed: "s",
      events: events(segment1Done),
      finalMessage: "no card",
      requirements,
    });
    expect(grade.segments?.failure_stage).toBe(2);
    expect(grade.segments?.failure_requirement).toEqual({ id: "note_settled", sentence: "Then void CN-2." });
    expect(grade.segments?.per_segment["1"]).not.toHaveProperty("failed_requirements");
    expect(grade.segments?.per_segment["2"]?.failed_requirements).toEqual(["note_settled", "reported"]);
  });

  it("without the task's requirements (a stored log re-graded with its own grader) names the id alone", () => {
    const grade = gradeTrial({ grader, trialSeed: "s", events: events(), finalMessage: card });
    expect(grade.failure_reason).toContain("first failure: call settled (requirement note_settled): ");
    expect(grade.segments?.failure_requirement).toEqual({ id: "note_settled" });
    expect(failedRequirementOf(grade.failure_reason)).toEqual({ id: "note_settled", sentence: null });
  });

  it("reads back what it formats, and nothing from a reason that names no requirement", () => {
    const words = formatRequirement("r1", "Say “hi” (twice).");
    expect(
      failedRequirementOf(`0/1 predicates matched; failed: G1 labour; first failure: call x${words}: no`),
    ).toEqual({
      id: "r1",
      sentence: 'Say “hi" (twice).',
    });
    expect(failedRequirementOf("step limit reached (tool_call_limit): 40 calls")).toBeNull();
    expect(
      failedRequirementOf(
        "0/1 predicates matched; failed: G2 answer; first failure: answer field 'x': absent",
      ),
    ).toBeNull();
  });
});
