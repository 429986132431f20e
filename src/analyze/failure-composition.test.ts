import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { gradeTrial } from "../grade/grade-trial.js";
import { EventLog } from "../world/event-log.js";
import { sliceStats } from "./slice-stats.js";

// Issue 20: failure composition counts a trial whose card is unreadable as delivery-only.

const grader: GraderSpec = {
  answer: [{ field: "status", comparator: "string", expected: "queued", explain: "" }],
  g1: [
    {
      kind: "data_flow",
      id: "status_from_read",
      explain: "",
      from_response_url_pattern: "^/v3/jobs/J-1$",
      from_status: 200,
      from_body_key: "status",
      answer_field: "status",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    },
  ],
  constraints: [],
  checkpoints: [],
};

function composition(read: boolean, finalMessage: string) {
  const log = new EventLog();
  if (read)
    log.append({
      type: "exchange",
      protocol: "rest",
      method: "GET",
      url: "/v3/jobs/J-1",
      request_headers: {},
      request_body: null,
      status: 200,
      response_headers: {},
      response_body: { status: "queued" },
    });
  const g = gradeTrial({ grader, trialSeed: "s", events: log.events, finalMessage });
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
