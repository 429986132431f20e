import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate } from "../bank/task-schema.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * G1's predicates graded one by one at their edges (issue 21: mutation testing): a data flow whose
 * card destination is G2's to judge, workspace values by scope, a call's body keys.
 */
const flow: G1Predicate = {
  kind: "data_flow",
  id: "eta_from_read",
  explain: "the eta read",
  requirement: "eta_reported",
  segment: 2,
  from_response_url_pattern: "^/v3/jobs/[^/]+$",
  from_status: 200,
  from_body_key: "eta",
  answer_field: "eta",
  must_be_stored: false,
  used_in_request_url_pattern: null,
};

describe("a data flow to the card, when the card cannot say", () => {
  const read = trialLog().read("/v3/jobs/J-1", { eta: 4 }).events();

  it("is not evaluated (not failed) when the work held, naming its requirement, segment and the value", () => {
    expect(gradeG1Predicate(flow, read, null, "s")).toEqual({
      id: "eta_from_read",
      kind: "data_flow",
      explain: "the eta read",
      segment: 2,
      requirement: "eta_reported",
      passed: false,
      not_evaluated: true,
      value: 4,
      reason: "not evaluated: no readable answer card to find 'eta' in",
    });
    expect(gradeG1Predicate(flow, read, { status: "queued" }, "s")).toMatchObject({
      not_evaluated: true,
      reason: "not evaluated: the answer card has no field 'eta'",
    });
  });

  it("carries no segment or requirement it does not have", () => {
    const { segment: _s, requirement: _r, ...solo } = flow as Extract<G1Predicate, { kind: "data_flow" }>;
    const r = gradeG1Predicate(solo, read, null, "s");
    expect(r.not_evaluated).toBe(true);
    expect(Object.keys(r).sort()).toEqual([
      "explain",
      "id",
      "kind",
      "not_evaluated",
      "passed",
      "reason",
      "value",
    ]);
  });

  it("fails as labour when the work did not hold, and is graded when the card has the field", () => {
    const none = trialLog().events();
    expect(gradeG1Predicate(flow, none, null, "s")).toMatchObject({ passed: false });
    expect(gradeG1Predicate(flow, none, null, "s").not_evaluated).toBeUndefined();
    expect(gradeG1Predicate(flow, read, { eta: 4 }, "s")).toMatchObject({ passed: true, value: 4 });
    expect(gradeG1Predicate(flow, read, { eta: 5 }, "s")).toMatchObject({ passed: false });
    expect(gradeG1Predicate(flow, read, { eta: 5 }, "s").not_evaluated).toBeUndefined();
  });
});

describe("workspace values by scope", () => {
  const wv = (scope: "local" | "global" | "any"): G1Predicate => ({
    kind: "workspace_value",
    id: "w",
    explain: "",
    name: "job_id",
    scope,
    value: "J-2",
  });

  it("reads the scope asked; any reads local first, then global", () => {
    const global = trialLog().store("job_id", "J-2", "global").events();
    expect(gradeG1Predicate(wv("global"), global, null, "s")).toMatchObject({ passed: true, value: "J-2" });
    expect(gradeG1Predicate(wv("any"), global, null, "s").passed).toBe(true);
    expect(gradeG1Predicate(wv("local"), global, null, "s")).toEqual({
      id: "w",
      kind: "workspace_value",
      explain: "",
      passed: false,
      reason: "no variable job_id was stored in local scope",
    });
    const both = trialLog().store("job_id", "J-9", "local").store("job_id", "J-2", "global").events();
    expect(gradeG1Predicate(wv("any"), both, null, "s")).toMatchObject({
      passed: false,
      value: "J-9",
      reason: 'variable job_id holds "J-9", not the expected value',
    });
    expect(gradeG1Predicate(wv("any"), trialLog().events(), null, "s").reason).toBe(
      "no variable job_id was stored in local or global scope",
    );
  });
});

describe("a call's body keys", () => {
  const call = (keys: string[]): G1Predicate => ({
    kind: "call",
    id: "c",
    explain: "",
    method: "GET",
    url_pattern: "^/v3/jobs/[^/]+$",
    body_has_keys: keys,
  });

  it("passes on any matching call whose body has every key, and says what it looked for", () => {
    const events = trialLog()
      .read("/v3/jobs/J-1", { state: "queued" })
      .read("/v3/jobs/J-1", { state: "done", eta: 0 });
    expect(gradeG1Predicate(call(["state", "eta"]), events.events(), null, "s").passed).toBe(true);
    expect(gradeG1Predicate(call(["state", "owner"]), events.events(), null, "s")).toMatchObject({
      passed: false,
      reason: "no GET to /^/v3/jobs/[^/]+$/ with body keys state, owner",
    });
  });
});
