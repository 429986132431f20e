import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Where a chain segment's claim on a shared source starts, and what it may claim (issue 21:
 * mutation testing of `gradeDataFlowClaimed`, `claimedBefore` and `claimFrom`): a segment that
 * claimed nothing bounds nothing, a segment's earliest claim bounds the next, and a claim is a
 * scalar from a matching response with the source's status that went to the card, the workspace
 * and the later request the segment's flow names.
 */
type DataFlow = Extract<G1Predicate, { kind: "data_flow" }>;
type Events = ReturnType<ReturnType<typeof trialLog>["events"]>;
const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });
const grades = (g1: G1Predicate[], events: Events, card: Record<string, unknown> | null = {}) =>
  gradeLabour(grader(g1), events, card, "seed").g1;
const results = (g1: G1Predicate[], events: Events, card: Record<string, unknown> | null = {}) =>
  grades(g1, events, card).map((r) => `${r.id}@${r.segment}:${r.passed}`);

/** A flow of segment `segment` from the create `POST /jobs` (201, `job_id`). */
const minted = (id: string, segment: number, extra: Partial<DataFlow> = {}): DataFlow => ({
  kind: "data_flow",
  id,
  explain: "",
  segment,
  from_response_url_pattern: "^/jobs$",
  from_status: 201,
  from_body_key: "job_id",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  ...extra,
});
/** ... whose id is then used in the path of a request to `/<route>/<id>`. */
const usedOn = (id: string, segment: number, route: string): DataFlow =>
  minted(id, segment, { used_in_request_url_pattern: `^/${route}/[^/]+$`, used_in_slot: { in: "path" } });

describe("a claimed data flow", () => {
  it("of the first segment is graded as any flow: its reason is the plain one", () => {
    const events = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).events();
    const [first] = grades([usedOn("used", 1, "jobs"), usedOn("used", 2, "jobs")], events);
    expect(first?.reason).toBe("the job_id was not used in a later request to /^/jobs/[^/]+$/ in its path");
  });

  it("of a later segment is graded as any flow when the earlier segment claimed nothing", () => {
    // Segment 1's id never reached /one: it claims no create, so segment 2 may use the only one.
    const events = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).read("/two/J-1", {}).events();
    expect(results([usedOn("one", 1, "one"), usedOn("two", 2, "two")], events)).toEqual([
      "one@1:false",
      "two@2:true",
    ]);
  });

  it("starts after the earliest claim of the segment before, whichever of its flows made it", () => {
    // Segment 1's flows claim J-1 (used on /one) and J-2 (used on /uno): J-2 stays open to segment 2.
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("POST", "/jobs", 201, { job_id: "J-2" })
      .read("/one/J-1", {})
      .read("/uno/J-2", {})
      .read("/two/J-2", {})
      .events();
    const g1 = [usedOn("one", 1, "one"), usedOn("uno", 1, "uno"), usedOn("two", 2, "two")];
    expect(results(g1, events)).toEqual(["one@1:true", "uno@1:true", "two@2:true"]);
  });

  it("leaves to the earlier segment the create it reported: the same job reported twice holds one segment", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("POST", "/jobs", 201, { job_id: "J-2" })
      .events();
    const g1 = [
      minted("first", 1, { answer_field: "first" }),
      minted("second", 2, { answer_field: "second" }),
    ];
    expect(results(g1, events, { first: "J-2", second: "J-2" })).toEqual(["first@1:true", "second@2:false"]);
  });

  it("without a card, still needs its own create: each segment claims by its other destinations", () => {
    const events = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).read("/jobs/J-1", {}).events();
    const flow = (s: number) => ({ ...usedOn("reported", s, "jobs"), answer_field: "job" });
    const [first, second] = grades([flow(1), flow(2)], events, null);
    expect(first).toMatchObject({ passed: false, not_evaluated: true, value: "J-1" });
    expect(second?.passed).toBe(false);
    expect(second?.not_evaluated).toBeUndefined();
    expect(second?.reason).toContain("segment 2 needs its own");
  });

  it("claims only a response to the source's route with the source's status", () => {
    // After segment 1's J-1: a refused create that names J-2, then a read of J-2 that shows it too.
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .read("/jobs/J-1", {})
      .call("POST", "/jobs", 409, { job_id: "J-2" })
      .read("/jobs/J-2", { job_id: "J-2" })
      .read("/jobs/J-2", {})
      .events();
    expect(results([usedOn("used", 1, "jobs"), usedOn("used", 2, "jobs")], events)).toEqual([
      "used@1:true",
      "used@2:false",
    ]);
  });

  it("claims a scalar only: an object at the key, stored as it came, is no claim", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .store("job", "J-1")
      .call("POST", "/jobs", 201, { job_id: { id: "J-2" } })
      .store("job2", { id: "J-2" })
      .events();
    const stored = (s: number) => minted("stored", s, { must_be_stored: true });
    expect(results([stored(1), stored(2)], events)).toEqual(["stored@1:true", "stored@2:false"]);
  });

  it("claims a value only if it was stored, when the flow says so", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .store("job", "J-1")
      .call("POST", "/jobs", 201, { job_id: "J-2" })
      .events();
    const stored = (s: number) => minted("stored", s, { must_be_stored: true });
    expect(results([stored(1), stored(2)], events)).toEqual(["stored@1:true", "stored@2:false"]);
  });

  it("claims a value only if the card reports it, when the flow names a card field", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("POST", "/jobs", 201, { job_id: "J-2" })
      .events();
    const g1 = [
      minted("first", 1, { answer_field: "first" }),
      minted("second", 2, { answer_field: "second" }),
    ];
    expect(results(g1, events, { first: "J-1", second: "J-9" })).toEqual(["first@1:true", "second@2:false"]);
    expect(results(g1, events, { first: "J-1", second: "J-2" })).toEqual(["first@1:true", "second@2:true"]);
  });
});
