import { describe, expect, it } from "vitest";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * A predicate whose expected value or target is a record the trial's final state cannot name
 * fails, with the reason, whatever the log holds (issue 21: mutation testing).
 */
const RUN = { $record: { resource: "runs", where: { sample: "S-1" } }, field: "run_id" };
const UNKNOWN =
  "the run_id of the runs record with sample=S-1 is unknown: the world's final records were not kept";

describe("an unresolved record reference", () => {
  it("fails a call on the target record, even when a call matches the rest", () => {
    const l = new EventLog();
    l.append({
      type: "exchange",
      protocol: "rest",
      method: "POST",
      url: "/runs/RUN-1/confirm",
      request_headers: {},
      request_body: null,
      status: 200,
      response_headers: {},
      response_body: {},
    });
    const confirmed: G1Predicate = {
      kind: "call",
      id: "confirmed",
      explain: "",
      method: "POST",
      url_pattern: "^/runs/[^/]+/confirm$",
      target: RUN,
      body_has_keys: [],
    };
    expect(gradeG1Predicate(confirmed, l.events, null, "seed")).toEqual({
      id: "confirmed",
      kind: "call",
      explain: "",
      passed: false,
      reason: `the target record is unknown: ${UNKNOWN}`,
    });
  });

  it("fails a workspace value, reporting the variable's value", () => {
    const l = new EventLog();
    l.append({ type: "variable_write", scope: "local", name: "run", value: "RUN-1" });
    const stored: G1Predicate = {
      kind: "workspace_value",
      id: "stored",
      explain: "",
      name: "run",
      scope: "local",
      value: RUN,
    };
    expect(gradeG1Predicate(stored, l.events, null, "seed")).toEqual({
      id: "stored",
      kind: "workspace_value",
      explain: "",
      passed: false,
      value: "RUN-1",
      reason: UNKNOWN,
    });
  });
});
