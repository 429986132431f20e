import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * A chain states a requirement once per segment, and two segments of one template get predicates
 * alike: each segment must be met by its own evidence, not by an earlier segment's (issue 15: the
 * requirement-mutants gate found these holes in the default bank's chains).
 */

const grader = (g1: G1Predicate[]) =>
  ({ answer: [], g1, constraints: [], checkpoints: [] }) as unknown as GraderSpec;
const results = (g1: G1Predicate[], events: ReturnType<ReturnType<typeof trialLog>["events"]>, card = {}) =>
  gradeLabour(grader(g1), events, card, "seed").g1.map((r) => `${r.id}@${r.segment}:${r.passed}`);

/** "The id the create minted is used on its own route", as segments 1 and 5 of a chain state it. */
const usedNext = (segment: number): G1Predicate => ({
  kind: "data_flow",
  id: "new_id_used_next",
  explain: "",
  segment,
  from_response_url_pattern: "^/jobs$",
  from_status: 201,
  from_body_key: "job_id",
  must_be_stored: false,
  used_in_request_url_pattern: "^/jobs/[^/]+$",
  used_in_slot: { in: "path" },
});
/** Segment 3 creates a job too, and reports its id. */
const reported: G1Predicate = {
  kind: "data_flow",
  id: "id_from_create",
  explain: "",
  segment: 3,
  from_response_url_pattern: "^/jobs$",
  from_status: 201,
  from_body_key: "job_id",
  answer_field: "job_3",
  must_be_stored: false,
  used_in_request_url_pattern: null,
};

describe("chain data flows from a create: each segment its own", () => {
  const g1 = [usedNext(1), reported, usedNext(5)];

  it("pass when every segment's create carries its own id onward", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("PUT", "/jobs/J-1", 200)
      .call("POST", "/jobs", 201, { job_id: "J-3" })
      .call("POST", "/jobs", 201, { job_id: "J-5" })
      .call("PUT", "/jobs/J-5", 200)
      .events();
    expect(results(g1, events, { job_3: "J-3" })).toEqual([
      "new_id_used_next@1:true",
      "id_from_create@3:true",
      "new_id_used_next@5:true",
    ]);
  });

  it("fail segment 5 when only an earlier segment's id went onward (its own create's id was never used)", () => {
    // Segment 3's id used on its route would have held segment 5's predicate before.
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("PUT", "/jobs/J-1", 200)
      .call("POST", "/jobs", 201, { job_id: "J-3" })
      .call("PUT", "/jobs/J-3", 200)
      .call("POST", "/jobs", 201, { job_id: "J-5" })
      .call("PUT", "/jobs/FABRICATED-0000", 404)
      .events();
    const grade = gradeLabour(grader(g1), events, { job_3: "J-3" }, "seed");
    expect(grade.g1.map((r) => r.passed)).toEqual([true, true, false]);
    expect(grade.g1[2]?.reason).toMatch(/segment 5 needs its own/);
  });

  it("let segments share a token: a 200 source is not claimed per segment", () => {
    const token = (segment: number): G1Predicate => ({
      kind: "data_flow",
      id: "token_used",
      explain: "",
      segment,
      from_response_url_pattern: "^/token$",
      from_status: 200,
      from_body_key: "access_token",
      must_be_stored: false,
      used_in_request_url_pattern: "^/jobs/[^/]+$",
      used_in_slot: { in: "path" },
    });
    const events = trialLog()
      .call("POST", "/token", 200, { access_token: "tk_1" })
      .call("GET", "/jobs/tk_1", 200)
      .events();
    expect(results([token(2), token(6)], events)).toEqual(["token_used@2:true", "token_used@6:true"]);
  });
});

describe("a value used in a request the API refused", () => {
  const level: G1Predicate = {
    kind: "data_flow",
    id: "level_from_validator",
    explain: "",
    from_response_url_pattern: "^/orders$",
    from_status: 422,
    from_body_key: "allowed.1",
    must_be_stored: false,
    used_in_request_url_pattern: "^/orders$",
    used_in_slot: { in: "body", key: "risk" },
  };

  it("does not count: the rejected spelling (equal but for case) carried nothing", () => {
    const refused = trialLog()
      .call("POST", "/orders", 422, { allowed: ["low", "elevated"] }, { risk: "X" })
      .call("POST", "/orders", 422, { allowed: ["low", "elevated"] }, { risk: "ELEVATED" })
      .events();
    expect(results([level], refused)).toEqual(["level_from_validator@undefined:false"]);
    const accepted = trialLog()
      .call("POST", "/orders", 422, { allowed: ["low", "elevated"] }, { risk: "X" })
      .call("POST", "/orders", 201, { order_id: "O-1" }, { risk: "elevated" })
      .events();
    expect(results([level], accepted)).toEqual(["level_from_validator@undefined:true"]);
  });
});

describe("chain orderings alike in two segments", () => {
  const polled = (segment: number): G1Predicate => ({
    kind: "order",
    id: "polled_before_confirm",
    explain: "",
    segment,
    before: { method: "GET", url_pattern: "^/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$", status: 200 },
  });

  it("need a poll before each segment's own confirmation", () => {
    const inOrder = trialLog()
      .call("GET", "/jobs/a", 200)
      .call("POST", "/jobs/a/confirm", 200)
      .call("GET", "/jobs/b", 200)
      .call("POST", "/jobs/b/confirm", 200)
      .events();
    expect(results([polled(2), polled(7)], inOrder)).toEqual([
      "polled_before_confirm@2:true",
      "polled_before_confirm@7:true",
    ]);
    // Segment 7 confirms before it polls: its confirmation fails, and segment 2's pair no longer holds it.
    const swapped = trialLog()
      .call("GET", "/jobs/a", 200)
      .call("POST", "/jobs/a/confirm", 200)
      .call("POST", "/jobs/b/confirm", 409)
      .call("GET", "/jobs/b", 200)
      .events();
    expect(results([polled(2), polled(7)], swapped)).toEqual([
      "polled_before_confirm@2:true",
      "polled_before_confirm@7:false",
    ]);
  });
});
