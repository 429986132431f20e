import { parseTaskId } from "../../src/analyze/task-id.js";
import type { TrialRecord } from "../../src/run/trial-record.js";

/**
 * A trial for tests: `trial("gpt", "v56-w01-sub02", 1, "pass")`. Only for tests and benchmarks;
 * not part of the public surface.
 */
export function trial(
  agent: string,
  taskId: string,
  epoch: number,
  outcome: TrialRecord["outcome"],
  over: Partial<TrialRecord> = {},
): TrialRecord {
  const task = parseTaskId(taskId);
  if (!task) throw new Error(`bad task id ${taskId}`);
  const passed =
    outcome === "pass"
      ? true
      : ["provider_error", "harness_error", "unscored"].includes(outcome)
        ? null
        : false;
  return {
    bank_hash: "bank-test",
    agent,
    task_id: taskId,
    epoch,
    world: task.world,
    kind: task.kind,
    position: task.position,
    length: task.length,
    axis: null,
    outcome,
    passed,
    g1_passed: passed,
    g2_passed: passed,
    failure_reason: "",
    partial_score: null,
    tokens: { input: 100, output: 50, cache_read: 0, cache_write: 0, total: 150 },
    cost_usd: null,
    duration_s: 1,
    stop_reason: null,
    transcript: null,
    ...over,
  };
}
