import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Which of a chain's data flows claim their source per segment, and in what order (issue 21:
 * mutation testing of `groupClaims`): an async job's 202 and a rotated refresh token too, sources
 * told apart by URL, segments taken in segment order whatever the grader's order, each segment's
 * claim its own predicates', a flow without a segment never claimed.
 */
const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });
const results = (g1: G1Predicate[], events: ReturnType<ReturnType<typeof trialLog>["events"]>) =>
  gradeLabour(grader(g1), events, {}, "seed").g1.map((r) => `${r.id}@${r.segment ?? "-"}:${r.passed}`);

/** "The id the create minted is used on its own route" (`used` names the route). */
function usedNext(
  segment: number | undefined,
  extra: Partial<Extract<G1Predicate, { kind: "data_flow" }>> = {},
) {
  return {
    kind: "data_flow" as const,
    id: "id_used",
    explain: "",
    ...(segment === undefined ? {} : { segment }),
    from_response_url_pattern: "^/jobs$",
    from_status: 201,
    from_body_key: "job_id",
    must_be_stored: false,
    used_in_request_url_pattern: "^/jobs/[^/]+$",
    used_in_slot: { in: "path" as const },
    ...extra,
  } satisfies G1Predicate;
}

describe("data flows claimed per segment", () => {
  it("claim an async job's submit (202) per segment: one job does not hold two segments", () => {
    const job = (s: number) => usedNext(s, { from_status: 202 });
    const events = trialLog()
      .call("POST", "/jobs", 202, { job_id: "J-1" })
      .call("GET", "/jobs/J-1", 200)
      .events();
    expect(results([job(1), job(2)], events)).toEqual(["id_used@1:true", "id_used@2:false"]);
  });

  it("claim a rotated refresh token per segment: each segment spends its own", () => {
    const refresh = (segment: number): G1Predicate => ({
      kind: "data_flow",
      id: "refresh_spent",
      explain: "",
      segment,
      from_response_url_pattern: "^/oauth/token$",
      from_status: 200,
      from_body_key: "refresh_token",
      must_be_stored: false,
      used_in_request_url_pattern: "^/oauth/token$",
      used_in_slot: { in: "body", key: "refresh_token" },
    });
    // Segment 1 spends R1; the R2 it got back is never spent.
    const events = trialLog()
      .call("POST", "/oauth/token", 200, { refresh_token: "R1" })
      .call("POST", "/oauth/token", 200, { refresh_token: "R2" }, { refresh_token: "R1" })
      .events();
    expect(results([refresh(1), refresh(2)], events)).toEqual([
      "refresh_spent@1:true",
      "refresh_spent@2:false",
    ]);
  });

  it("group flows by their source: creates on two routes are claimed apart", () => {
    const onRoute = (s: number, route: string) =>
      usedNext(s, {
        from_response_url_pattern: `^/${route}$`,
        used_in_request_url_pattern: `^/${route}/[^/]+$`,
      });
    // Segment 2's create comes first: were the routes one source, segment 1's claim would leave it none.
    const events = trialLog()
      .call("POST", "/b", 201, { job_id: "B-1" })
      .call("PUT", "/b/B-1", 200)
      .call("POST", "/a", 201, { job_id: "A-1" })
      .call("PUT", "/a/A-1", 200)
      .events();
    expect(results([onRoute(1, "a"), onRoute(2, "b")], events)).toEqual(["id_used@1:true", "id_used@2:true"]);
  });

  it("take segments in segment order whatever the grader's order: the later segment needs its own create", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("GET", "/jobs/J-1", 200)
      .events();
    expect(results([usedNext(2), usedNext(1)], events)).toEqual(["id_used@2:false", "id_used@1:true"]);
  });

  it("bound a segment by the earlier segments' own claims, not by what a later segment's flow could claim", () => {
    const one = usedNext(1, { used_in_request_url_pattern: "^/one/[^/]+$" });
    const two = usedNext(2, { used_in_request_url_pattern: "^/two/[^/]+$" });
    // Segment 1 claims J-B (J-A never went to /one); segment 2 then has no create after it.
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-A" })
      .call("GET", "/two/J-A", 200)
      .call("POST", "/jobs", 201, { job_id: "J-B" })
      .call("GET", "/one/J-B", 200)
      .call("GET", "/two/J-B", 200)
      .events();
    expect(results([one, two], events)).toEqual(["id_used@1:true", "id_used@2:false"]);
  });

  it("never claim a flow without a segment: it is graded as any other beside a segment's flow of the same source", () => {
    const events = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("GET", "/jobs/J-1", 200)
      .events();
    expect(results([usedNext(undefined), usedNext(2)], events)).toEqual(["id_used@-:true", "id_used@2:true"]);
  });
});

describe("orderings repeated in one segment", () => {
  const ordering = (id: string, segment: number): G1Predicate => ({
    kind: "order",
    id,
    explain: "",
    segment,
    before: { method: "GET", url_pattern: "^/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$" },
  });

  it("rank in the grader's order within a segment: the one listed first needs fewer pairs", () => {
    const pair = trialLog()
      .call("GET", "/jobs/J1", 200)
      .call("POST", "/jobs/J1/confirm", 200)
      .call("GET", "/jobs/J1", 200)
      .call("POST", "/jobs/J1/confirm", 200)
      .events();
    expect(results([ordering("a", 1), ordering("b", 2), ordering("c", 2)], pair)).toEqual([
      "a@1:true",
      "b@2:true",
      "c@2:false",
    ]);
  });
});
