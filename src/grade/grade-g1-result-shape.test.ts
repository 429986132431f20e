import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { ForbidConstraint, G1Predicate } from "../bank/task-schema.js";
import { gradeConstraint, gradeG1Predicate } from "./grade-g1.js";

/**
 * The keys of a G1 result and of a constraint result, in their one fixed order: stored grades and
 * their JSON stay byte-identical across re-grades (issue 21: mutation testing of `g1Result` and
 * `constraintResult`). A key is present only when it has a value.
 */
const events = trialLog().read("/v2/jobs/J-1", { job_id: "J-1" }).events();
const flow = (extra: Partial<Extract<G1Predicate, { kind: "data_flow" }>> = {}): G1Predicate => ({
  kind: "data_flow",
  id: "job_read",
  explain: "why",
  from_response_url_pattern: "^/v2/jobs/[^/]+$",
  from_status: 200,
  from_body_key: "job_id",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  ...extra,
});

describe("a G1 result", () => {
  it("passing: its value and no reason, no segment, no requirement", () => {
    const r = gradeG1Predicate(flow(), events, {}, "seed");
    expect(Object.keys(r)).toEqual(["id", "kind", "explain", "passed", "value"]);
    expect(r).toStrictEqual({
      id: "job_read",
      kind: "data_flow",
      explain: "why",
      passed: true,
      value: "J-1",
    });
  });

  it("failing: its reason and no value", () => {
    const r = gradeG1Predicate(flow({ from_status: 201 }), events, {}, "seed");
    expect(Object.keys(r)).toEqual(["id", "kind", "explain", "passed", "reason"]);
  });

  it("of a segment's requirement: segment, then requirement, before passed", () => {
    const r = gradeG1Predicate(flow({ segment: 2, requirement: "job-read" }), events, {}, "seed");
    expect(JSON.stringify(r)).toBe(
      '{"id":"job_read","kind":"data_flow","explain":"why","segment":2,"requirement":"job-read","passed":true,"value":"J-1"}',
    );
  });
});

describe("a constraint result", () => {
  const forbid: ForbidConstraint = { kind: "forbid", id: "no-v2", explain: "decoy", url_pattern: "^/v2/" };

  it("kept: not violated, with an empty detail, no segment and no requirement", () => {
    const r = gradeConstraint({ ...forbid, url_pattern: "^/v1/" }, events);
    expect(Object.keys(r)).toEqual(["id", "kind", "violated", "detail", "explain"]);
    expect(r).toStrictEqual({ id: "no-v2", kind: "forbid", violated: false, detail: "", explain: "decoy" });
  });

  it("violated: the call that broke it, then its segment and requirement", () => {
    const r = gradeConstraint({ ...forbid, segment: 3, requirement: "no-decoy" }, events);
    expect(JSON.stringify(r)).toBe(
      '{"id":"no-v2","kind":"forbid","violated":true,"detail":"GET /v2/jobs/J-1","explain":"decoy","segment":3,"requirement":"no-decoy"}',
    );
  });
});
