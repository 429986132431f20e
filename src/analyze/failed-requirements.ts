import { z } from "zod";
import { failedRequirementOf } from "../grade/grade-trial.js";
import { isScored, type TrialRecord } from "../run/trial-record.js";

/** One ticket requirement named as the first failure of scored failed trials. */
export const FailedRequirementSchema = z.object({
  /** The requirement's id (ids repeat across tasks: `report`, `one_record_written`, …). */
  requirement: z.string(),
  /** Failed trials whose first failure names it. */
  trials: z.number().int().positive(),
  /** Distinct tasks among them. */
  tasks: z.number().int().positive(),
  /** The task with the most such trials (the first by id on a tie), and its sentence for it. */
  example_task: z.string(),
  sentence: z.string().nullable(),
});
export type FailedRequirement = z.infer<typeof FailedRequirementSchema>;

/**
 * Which ticket requirements failed, read from the stored failure reasons (each names the
 * requirement of its first failure, with the ticket's sentence: see `formatRequirement`): one row
 * per requirement id, most failed trials first. Trials whose reason names none (a limit, an
 * abstention before any check, an imported 1.0 trial) are left out.
 *
 * @example failedRequirements(records)[0] // { requirement: "status_settled", trials: 4, tasks: 2, example_task: "…-sub02", sentence: "Move CN-12 to `settled`." }
 */
export function failedRequirements(records: readonly TrialRecord[]): FailedRequirement[] {
  const byId = new Map<string, Map<string, { trials: number; sentence: string | null }>>();
  for (const r of records) {
    if (!isScored(r) || r.passed !== false) continue;
    const named = failedRequirementOf(r.failure_reason);
    if (!named) continue;
    let tasks = byId.get(named.id);
    if (!tasks) {
      tasks = new Map();
      byId.set(named.id, tasks);
    }
    const t = tasks.get(r.task_id) ?? { trials: 0, sentence: named.sentence };
    t.trials += 1;
    tasks.set(r.task_id, t);
  }
  const rows = [...byId].map(([requirement, tasks]) => {
    const [example, at] = [...tasks].sort(
      (a, b) => b[1].trials - a[1].trials || a[0].localeCompare(b[0]),
    )[0] as [string, { trials: number; sentence: string | null }];
    return {
      requirement,
      trials: [...tasks.values()].reduce((n, t) => n + t.trials, 0),
      tasks: tasks.size,
      example_task: example,
      sentence: at.sentence,
    };
  });
  return rows.sort((a, b) => b.trials - a.trials || a.requirement.localeCompare(b.requirement));
}
