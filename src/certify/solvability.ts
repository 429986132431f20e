import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { AgentFactory } from "../trial/agent.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

export const SOLVABILITY_VERSION = "1.0.0";

export interface SolvabilityOptions {
  /** The oracle; default the golden agent. Any `AgentFactory` (a model agent too) can be one. */
  oracle?: AgentFactory;
  /** Attempts per task (N, default 10). */
  attempts?: number;
  /** Passes needed to admit the task (k, default 3). */
  minPasses?: number;
}

/**
 * Gate 2, solvability: the oracle attempts each task N times through the real harness (each
 * attempt its own epoch, so its own trial seed and canaries); the task is admitted when pass@N ≥ k.
 * Attempts stop at the k-th pass: the later ones cannot change the admission (and the report names
 * no count for an admitted task), so a sound task costs k trials, not N.
 *
 * @example await solvabilityGate(bank, bank.tasks, { attempts: 10, minPasses: 3 })
 */
export async function solvabilityGate(
  bank: Bank,
  tasks: readonly Task[],
  options: SolvabilityOptions = {},
  runner: TrialRunner = sharedTrials(bank),
): Promise<GateReport> {
  const failures: GateFailure[] = [];
  for (const task of tasks) {
    failures.push(...(await solvabilityFindings(task, options, runner)));
    runner.release(task);
  }
  return gateReport(
    SOLVABILITY_VERSION,
    tasks.map((t) => t.id),
    failures,
  );
}

/**
 * Solvability on one task: a `pass_at_n` failure when the oracle passes fewer than k of N attempts.
 * Stops at the k-th pass (admitted whatever the rest do); a task that fails runs all N, so its
 * message counts the passes of every attempt.
 *
 * @example await solvabilityFindings(task, { attempts: 10, minPasses: 3 }, sharedTrials(bank)) // []
 */
export async function solvabilityFindings(
  task: Task,
  options: SolvabilityOptions,
  runner: TrialRunner,
): Promise<GateFailure[]> {
  const oracle = options.oracle ?? goldenAgentFactory;
  const attempts = options.attempts ?? 10;
  const minPasses = options.minPasses ?? 3;
  let passes = 0;
  let lastReason = "";
  for (let epoch = 1; epoch <= attempts; epoch++) {
    const r = await runner.run(task, oracle, epoch);
    if (r.grade.passed) {
      passes += 1;
      if (passes >= minPasses) return [];
    } else lastReason = r.grade.failure_reason || r.stop_detail || r.outcome;
  }
  if (passes >= minPasses) return [];
  return [
    {
      task_id: task.id,
      check: "pass_at_n",
      message: `oracle ${oracle.name} passed ${passes} of ${attempts} attempts (needs ${minPasses}); last failure: ${lastReason}`,
    },
  ];
}
