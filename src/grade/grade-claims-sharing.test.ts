import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1-flows): two segments' create flows that mint the same kind
 * of value claim in segment order only when one exchange of the log could be the source of both,
 * and an exchange serves a source only with that source's status, not by its route alone.
 */
const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });
const results = (g1: G1Predicate[], events: ReturnType<ReturnType<typeof trialLog>["events"]>) =>
  gradeLabour(grader(g1), events, {}, "seed").g1.map((r) => `${r.segment}:${r.passed}:${r.value ?? "-"}`);

/** "The run the create minted is started", for a segment, from `url` answering 201. */
const started = (
  segment: number,
  url: string,
  alsoFrom: Array<{ url: string; status: number }> = [],
): G1Predicate => ({
  kind: "data_flow",
  id: "run_started",
  explain: "",
  segment,
  from_response_url_pattern: url,
  from_status: 201,
  from_body_key: "run_id",
  must_be_stored: false,
  used_in_request_url_pattern: "^/v2/runs/[^/]+/start$",
  used_in_slot: { in: "path" },
  also_from: alsoFrom.map((a) => ({ url_pattern: a.url, status: a.status, body_key: "run_id" })),
});

// Segment 2 creates (under its fleet) and starts its run before segment 1 does its own.
const segment2First = trialLog()
  .call("POST", "/v2/fleets/F-1/runs", 201, { run_id: "R-2" })
  .call("POST", "/v2/runs/R-2/start", 200, {})
  .call("POST", "/v2/runs", 201, { run_id: "R-1" })
  .call("POST", "/v2/runs/R-1/start", 200, {})
  .events();

describe("create flows share their claims only through an exchange that could serve both", () => {
  it("a route one flow admits with another status does not join it to the flow that created there", () => {
    // Segment 2 also takes a run from /v2/runs answering 200 (an upsert): the 201 there is segment
    // 1's alone, so segment 2's own create, earlier in the log, still holds its flow.
    const flows = [
      started(1, "^/v2/runs$"),
      started(2, "^/v2/fleets/[^/]+/runs$", [{ url: "^/v2/runs$", status: 200 }]),
    ];
    expect(results(flows, segment2First)).toEqual(["1:true:R-1", "2:true:R-2"]);
  });

  it("with the status that route answered, the two share a source and segment 2 must claim after segment 1", () => {
    const flows = [
      started(1, "^/v2/runs$"),
      started(2, "^/v2/fleets/[^/]+/runs$", [{ url: "^/v2/runs$", status: 201 }]),
    ];
    expect(results(flows, segment2First)).toEqual(["1:true:R-1", "2:false:-"]);
  });
});
