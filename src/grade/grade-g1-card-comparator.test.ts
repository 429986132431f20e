import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { AnswerField, Comparator, G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { answerAccepts, gradeAnswerField } from "./grade-answer-field.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (grade-g1-flows, after agent audit 20): a data flow to the card reads the card's value
 * with the answer field's own G2 comparator (cardCarries), so G1 never charges the labour for a
 * card value G2 accepts, and never passes one G2 refuses. Each case grades a one-read log with the
 * API's value and a card holding the agent's, and checks G1 against G2 on the same pair.
 */
const flow: G1Predicate = {
  kind: "data_flow",
  id: "reported",
  explain: "",
  from_response_url_pattern: "^/v1/items/I-1$",
  from_status: 200,
  from_body_key: "value",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  answer_field: "value",
};

function field(comparator: Comparator, expected: JsonValue, tolerance?: number): AnswerField {
  return {
    field: "value",
    comparator,
    expected,
    explain: "",
    ...(tolerance === undefined ? {} : { tolerance }),
  };
}

/** Whether G1's flow passes when the API showed `api` and the card reports `card`. */
function g1Passes(answer: AnswerField, api: JsonValue, card: JsonValue): boolean {
  const grader: GraderSpec = { answer: [answer], g1: [flow], constraints: [], checkpoints: [] };
  const events = trialLog().read("/v1/items/I-1", { value: api }).events();
  const [result] = gradeLabour(grader, events, { value: card }, "seed").g1;
  return result?.passed === true;
}

/** [comparator, the API's value, the card's value, tolerance, whether G2 accepts the card]. */
const cases: Array<[Comparator, JsonValue, JsonValue, number | undefined, boolean]> = [
  // A numeric field within its tolerance (agent audit 20's 60.705 for 60.7), and just outside it.
  ["numeric", 60.7, 60.705, undefined, true],
  ["numeric", 60.7, 60.72, undefined, false],
  ["numeric", 10, 10.4, 0.5, true],
  ["numeric", 10, 10.6, 0.5, false],
  // Both numbers written as text: two strings that only the numeric comparator equates.
  ["numeric", "60.7", "60.705", undefined, true],
  ["numeric", "60.7", "60.8", undefined, false],
  // The string comparator reads a boolean as Python prints it (True), either side.
  ["string", true, "True", undefined, true],
  ["string", "true", true, undefined, true],
  ["string", false, "true", undefined, false],
  ["string", "queued", " Queued", undefined, true],
  ["string", "queued", "queue", undefined, false],
  // A set: another order, or a repeat, of the same elements.
  ["set", "a, b", "b,a", undefined, true],
  ["set", "a", "a, a", undefined, true],
  ["set", "a, b", "a", undefined, false],
  ["boolean", "true", "TRUE", undefined, true],
  ["boolean", true, "false", undefined, false],
];

describe("G1 reads a card value with the answer field's G2 comparator", () => {
  it.each(cases)(
    "%s: the API's %j, the card's %j (tolerance %s): G2 accepts it = %s",
    (comparator, api, card, tolerance, accepted) => {
      const answer = field(comparator, api, tolerance);
      // G2 itself, on the same pair (the API's value as the expected one).
      expect(gradeAnswerField({ ...answer }, { value: card }).passed).toBe(accepted);
      expect(answerAccepts(answer, card, api)).toBe(accepted);
      expect(g1Passes(answer, api, card)).toBe(accepted);
    },
  );

  it("the flow reads its own answer field's comparator among the card's fields", () => {
    // A string field declared first: the numeric field the flow names still reads within tolerance.
    const label: AnswerField = { field: "label", comparator: "string", expected: "x", explain: "" };
    const grader: GraderSpec = {
      answer: [label, field("numeric", 60.7)],
      g1: [flow],
      constraints: [],
      checkpoints: [],
    };
    const events = trialLog().read("/v1/items/I-1", { value: 60.7 }).events();
    const [result] = gradeLabour(grader, events, { label: "x", value: 60.705 }, "seed").g1;
    expect(result?.passed).toBe(true);
  });

  it("without the answer field declared, the card is read by the one string equality alone", () => {
    const grader: GraderSpec = { answer: [], g1: [flow], constraints: [], checkpoints: [] };
    const events = trialLog().read("/v1/items/I-1", { value: 60.7 }).events();
    const [within] = gradeLabour(grader, events, { value: 60.705 }, "seed").g1;
    const [same] = gradeLabour(grader, events, { value: "60.7" }, "seed").g1;
    expect(within?.passed).toBe(false);
    expect(same?.passed).toBe(true);
  });
});
