import type { JsonObject } from "../../src/bank/json.js";
import type { G1Predicate } from "../../src/bank/task-schema.js";
import type { TrialEvent } from "../../src/world/event-log.js";
import { trialLog } from "./trial-log.js";

/** The one read the job fixtures grade: `GET /v3/jobs/J-1`. */
export const JOB_READ_URL = "/v3/jobs/J-1";

/**
 * A data-flow predicate for small grading tests: the card's `field` must be the `field` of the
 * job read's 200 answer.
 *
 * @example const grader = { answer: [...], g1: [fieldFromJobRead("status")], constraints: [], checkpoints: [] };
 */
export function fieldFromJobRead(field: string): G1Predicate {
  return {
    kind: "data_flow",
    id: `${field}_from_read`,
    explain: "",
    from_response_url_pattern: `^${JOB_READ_URL}$`,
    from_status: 200,
    from_body_key: field,
    answer_field: field,
    must_be_stored: false,
    used_in_request_url_pattern: null,
  };
}

/**
 * The events of a trial that read the job once and got `body` back, or of one that read nothing
 * (`body` undefined).
 *
 * @example gradeTrial({ grader, trialSeed: "s", events: jobReadEvents({ status: "queued" }), finalMessage })
 */
export function jobReadEvents(body?: JsonObject): readonly TrialEvent[] {
  const log = trialLog();
  return (body ? log.read(JOB_READ_URL, body) : log).events();
}
