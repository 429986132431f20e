import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec, UseSlot } from "../bank/task-schema.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1-prepare): which data flows of a chain form one claim group
 * (`groupClaims`). Creates group by what they mint (status and the body key's last key), so one
 * create showing two kinds of id serves a flow of each; a rotated refresh token's flows group by
 * their source as written (route pattern, status and key), so flows written with other patterns
 * each take the token they match.
 */
const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });
const results = (g1: G1Predicate[], events: ReturnType<ReturnType<typeof trialLog>["events"]>) =>
  gradeLabour(grader(g1), events, {}, "seed").g1.map((r) => `${r.segment}:${r.passed}:${r.value ?? "-"}`);

const flow = (
  segment: number,
  from: { url: string; status: number; key: string },
  usedIn: string,
  slot: UseSlot,
): G1Predicate => ({
  kind: "data_flow",
  id: `flow_${segment}`,
  explain: "",
  segment,
  from_response_url_pattern: from.url,
  from_status: from.status,
  from_body_key: from.key,
  must_be_stored: false,
  used_in_request_url_pattern: usedIn,
  used_in_slot: slot,
});

describe("claim groups: which segments' flows must each claim their own source", () => {
  it("one create that mints a run and a batch serves segment 1's run and segment 2's batch", () => {
    const create = { url: "^/v2/runs$", status: 201 };
    const flows = [
      flow(1, { ...create, key: "run_id" }, "^/v2/runs/[^/]+/start$", { in: "path" }),
      flow(2, { ...create, key: "batch_id" }, "^/v2/batches/[^/]+/seal$", { in: "path" }),
    ];
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { run_id: "R-1", batch_id: "B-1" })
      .call("POST", "/v2/runs/R-1/start", 200, {})
      .call("POST", "/v2/batches/B-1/seal", 200, {})
      .events();
    expect(results(flows, events)).toEqual(["1:true:R-1", "2:true:B-1"]);
    // The same kind minted by two segments is one group: segment 2 needs a run of its own.
    const runs = [
      flows[0] as G1Predicate,
      flow(2, { ...create, key: "run_id" }, "^/v2/runs/[^/]+/start$", { in: "path" }),
    ];
    expect(results(runs, events)).toEqual(["1:true:R-1", "2:false:-"]);
  });

  it("refresh-token flows written with other route patterns are not one group, though one response matches both", () => {
    const spent = (segment: number, url: string) =>
      flow(segment, { url, status: 200, key: "refresh_token" }, "^/oauth/token$", {
        in: "body",
        key: "refresh_token",
      });
    const events = trialLog()
      .call("POST", "/oauth/token", 200, { refresh_token: "R1" })
      .call("POST", "/oauth/token", 200, {}, { refresh_token: "R1" })
      .events();
    expect(results([spent(1, "^/oauth/token$"), spent(2, "^/oauth/token(\\?.*)?$")], events)).toEqual([
      "1:true:R1",
      "2:true:R1",
    ]);
    // Written alike, they are one group: segment 2 needs a token of its own.
    expect(results([spent(1, "^/oauth/token$"), spent(2, "^/oauth/token$")], events)).toEqual([
      "1:true:R1",
      "2:false:-",
    ]);
  });
});
