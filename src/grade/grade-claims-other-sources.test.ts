import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1-flows): a chain segment claims its own create through the
 * data flow's other sources too (a run created under its fleet), and only through a response of the
 * other source's route and status.
 */
const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });
const results = (g1: G1Predicate[], events: ReturnType<ReturnType<typeof trialLog>["events"]>) =>
  gradeLabour(grader(g1), events, {}, "seed").g1.map((r) => `${r.segment}:${r.passed}:${r.value ?? "-"}`);

/** "The run the create minted is started", per segment; a run created under its fleet counts too. */
const started = (
  segment: number,
  extra: Partial<Extract<G1Predicate, { kind: "data_flow" }>> = {},
): G1Predicate => ({
  kind: "data_flow",
  id: "run_started",
  explain: "",
  segment,
  from_response_url_pattern: "^/v2/runs$",
  from_status: 201,
  from_body_key: "run_id",
  must_be_stored: false,
  used_in_request_url_pattern: "^/v2/runs/[^/]+/start$",
  used_in_slot: { in: "path" },
  also_from: [{ url_pattern: "^/v2/fleets/[^/]+/runs$", status: 201, body_key: "run_id" }],
  ...extra,
});
const two = [started(1), started(2)];

describe("a segment's claim through a data flow's other source", () => {
  it("segment 2 claims the run created under its fleet, after segment 1's own", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .call("POST", "/v2/fleets/F-1/runs", 201, { run_id: "R-2" })
      .call("POST", "/v2/runs/R-2/start", 200, {})
      .events();
    expect(results(two, events)).toEqual(["1:true:R-1", "2:true:R-2"]);
  });

  it("not through the other route answering another status", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .call("POST", "/v2/fleets/F-1/runs", 200, { run_id: "R-2" })
      .call("POST", "/v2/runs/R-2/start", 200, {})
      .events();
    expect(results(two, events)).toEqual(["1:true:R-1", "2:false:-"]);
  });

  it("not through a 201 of a route that is neither source, nor a response of any other route", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/notes", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .events();
    expect(results(two, events)).toEqual(["1:true:R-1", "2:false:-"]);
  });

  it("a segment does not borrow an earlier segment's create on its other route (flows sharing a source claim in order)", () => {
    // Segment 1 creates under its fleet (its only source); segment 2 admits that route too, but
    // its own create's id never went to /start: it used a made-up one (hunter-7's irrigation chain).
    const underFleet = started(1, { from_response_url_pattern: "^/v2/fleets/F-1/runs$", also_from: [] });
    const events = trialLog()
      .call("POST", "/v2/fleets/F-1/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .call("POST", "/v2/runs", 201, { run_id: "R-2" })
      .call("POST", "/v2/runs/MADE-UP/start", 404, {})
      .events();
    expect(results([underFleet, started(2)], events)).toEqual(["1:true:R-1", "2:false:-"]);
    const done = trialLog()
      .call("POST", "/v2/fleets/F-1/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .call("POST", "/v2/runs", 201, { run_id: "R-2" })
      .call("POST", "/v2/runs/R-2/start", 200, {})
      .events();
    expect(results([underFleet, started(2)], done)).toEqual(["1:true:R-1", "2:true:R-2"]);
  });

  it("a flow with no destination still needs its own source response: no other response stands in", () => {
    const bare = (s: number): G1Predicate => {
      const p = started(s, { used_in_request_url_pattern: null }) as Extract<
        G1Predicate,
        { kind: "data_flow" }
      >;
      const { used_in_slot: _slot, also_from: _also, ...rest } = p;
      return rest;
    };
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("GET", "/v2/runs/R-1", 200, { run_id: "R-1" })
      .events();
    expect(results([bare(1), bare(2)], events)).toEqual(["1:true:R-1", "2:false:-"]);
  });
});
