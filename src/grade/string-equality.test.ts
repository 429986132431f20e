import { describe, expect, it } from "vitest";
import { fieldFromJobRead, jobReadEvents } from "../../test/support/job-read.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { gradeAnswerField } from "./grade-answer-field.js";
import { gradeTrial } from "./grade-trial.js";
import { sameString } from "./string-equality.js";
import { valuesEqual } from "./values-equal.js";

describe("one string equality for G1 and G2", () => {
  it.each([
    ["queued", "queued", true],
    [" Queued\n", "queued", true],
    ["\u3000QUEUED", "queued", true],
    ["queued.", "queued", false],
    ["que ued", "queued", false],
  ])("%j vs %j → %s, in sameString, valuesEqual and the string comparator alike", (got, expected, same) => {
    expect(sameString(got, expected)).toBe(same);
    expect(valuesEqual(got, expected)).toBe(same);
    expect(gradeAnswerField({ field: "s", comparator: "string", expected }, { s: got }).passed).toBe(same);
  });

  const grader: GraderSpec = {
    answer: [{ field: "status", comparator: "string", expected: "queued", explain: "" }],
    g1: [fieldFromJobRead("status")],
    constraints: [],
    checkpoints: [],
  };
  const grade = (status: string) =>
    gradeTrial({
      grader,
      trialSeed: "s",
      events: jobReadEvents({ status: "queued" }),
      finalMessage: `\`\`\`json\n${JSON.stringify({ status })}\n\`\`\``,
    });

  it("a card that writes the API's value in another case passes G1 and G2 alike", () => {
    const g = grade("Queued");
    expect([g.g1_passed, g.g2_passed, g.passed]).toEqual([true, true, true]);
  });

  it("a card with another value fails both", () => {
    const g = grade("queued-2");
    expect([g.g1_passed, g.g2_passed]).toEqual([false, false]);
  });
});
