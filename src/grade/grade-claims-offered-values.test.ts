import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (grade-g1-flows, after perf-regrade2's pushRecordValues): a segment's claim is offered
 * exactly the values its sources' records hold. A flow with no destination (the API showed a run)
 * passes with the first value offered, so its value names what a claim was offered first.
 */
const shown = (segment: number, url: string, alsoFrom?: string): G1Predicate => ({
  kind: "data_flow",
  id: `run_shown_${segment}`,
  explain: "",
  segment,
  from_response_url_pattern: url,
  from_status: 201,
  from_body_key: "run_id",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  ...(alsoFrom ? { also_from: [{ url_pattern: alsoFrom, status: 201, body_key: "run_id" }] } : {}),
});

/** Segment 1 creates at /v2/runs; segment 2 under its fleet, or (its other source) at /v2/runs too. */
const grader: GraderSpec = {
  answer: [],
  g1: [shown(1, "^/v2/runs$"), shown(2, "^/v2/fleets/[^/]+/runs$", "^/v2/runs$")],
  constraints: [],
  checkpoints: [],
};

describe("a claim is offered only the values its sources hold", () => {
  it("segment 2 claims the second create, through its other source, with that create's run", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs", 201, { run_id: "R-2" })
      .events();
    const g1 = gradeLabour(grader, events, null, "seed").g1;
    expect(g1.map((r) => [r.passed, r.value])).toEqual([
      [true, "R-1"],
      [true, "R-2"],
    ]);
  });

  it("a record the other source answered without the key offers nothing: the claim fails", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs", 201, { status: "queued" })
      .events();
    const [first, second] = gradeLabour(grader, events, null, "seed").g1;
    expect(first?.value).toBe("R-1");
    expect(second?.passed).toBe(false);
    expect(second?.value).toBeUndefined();
  });
});
