import { describe, expect, it } from "vitest";
import { fieldFromJobRead, jobReadEvents } from "../../test/support/job-read.js";
import { trial } from "../../test/support/test-records.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { gradeTrial } from "../grade/grade-trial.js";
import { sliceStats } from "./slice-stats.js";

// Issue 20: failure composition counts a trial whose card is unreadable as delivery-only.

const grader: GraderSpec = {
  answer: [{ field: "status", comparator: "string", expected: "queued", explain: "" }],
  g1: [fieldFromJobRead("status")],
  constraints: [],
  checkpoints: [],
};

function composition(read: boolean, finalMessage: string) {
  const events = jobReadEvents(read ? { status: "queued" } : undefined);
  const g = gradeTrial({ grader, trialSeed: "s", events, finalMessage });
  const record = trial("m", "v56-w01-sub02", 1, "fail", { g1_passed: g.g1_passed, g2_passed: g.g2_passed });
  return sliceStats([record]).failures;
}

describe("failure composition of card failures", () => {
  it("the work done, the card unreadable (a trailing comma): delivery-only", () => {
    const message = 'The API said:\n```json\n["queued"]\n```\n```json\n{"status": "queued",}\n```';
    expect(composition(true, message)).toMatchObject({ g1_only: 0, g2_only: 1, both: 0 });
  });

  it("no work and no card: both", () => {
    expect(composition(false, "I could not finish.")).toMatchObject({ g1_only: 0, g2_only: 0, both: 1 });
  });
});
