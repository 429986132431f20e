import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import { clusterRobustRatio, REPORT_LEVEL } from "./cluster-robust.js";
import { groupBy } from "./slice-stats.js";

export const ReliabilitySchema = z.object({
  /** Epochs per task: the most common number of scored epochs of this agent's tasks. */
  k: z.number().int(),
  /** Tasks with at least one scored epoch. */
  tasks: z.number().int(),
  /** Reach: fraction of tasks passed in at least one scored epoch. */
  best_of_k: z.number().nullable(),
  /** Reliability: fraction of tasks passed in every scored epoch. */
  all_k_of_k: z.number().nullable(),
  /** 90% cluster-robust intervals (tasks clustered by world) of `best_of_k` and `all_k_of_k`. */
  best_of_k_ci90: z.tuple([z.number(), z.number()]).nullable(),
  all_k_of_k_ci90: z.tuple([z.number(), z.number()]).nullable(),
  /** Unbiased pass^k (τ-bench): mean over tasks with ≥ k scored epochs of C(c, k) / C(n, k). */
  pass_hat_k: z.number().nullable(),
  /** pass^j for j = 1..k, the reliability curve. */
  pass_hat_by_k: z.record(z.string(), z.number().nullable()),
});
export type Reliability = z.infer<typeof ReliabilitySchema>;

/**
 * C(c, k) / C(n, k): the probability that k epochs drawn without replacement from n, of which c
 * passed, all passed — the unbiased estimator of pass^k.
 *
 * @example passHatK(3, 4, 2) // C(3,2)/C(4,2) = 3/6 = 0.5
 */
export function passHatK(c: number, n: number, k: number): number {
  if (k > n) throw new Error(`passHatK: k=${k} > n=${n}`);
  let p = 1;
  for (let i = 0; i < k; i++) p *= (c - i) / (n - i);
  return Math.max(0, p);
}

/**
 * Reach and reliability of one agent over its tasks (scored epochs only).
 *
 * @example reliability(store.query({ agent: "gpt-5-mini" })).all_k_of_k
 */
export function reliability(records: readonly TrialRecord[]): Reliability {
  const byTask = groupBy(
    records.filter((r) => isScored(r)),
    (r) => r.task_id,
  );
  const cells = [...byTask.values()].map((rs) => ({
    world: rs[0]!.world,
    n: rs.length,
    c: rs.filter((r) => r.passed).length,
  }));
  if (cells.length === 0) {
    return {
      k: 0,
      tasks: 0,
      best_of_k: null,
      all_k_of_k: null,
      best_of_k_ci90: null,
      all_k_of_k_ci90: null,
      pass_hat_k: null,
      pass_hat_by_k: {},
    };
  }
  // A task is the unit of reach and reliability; tasks of one world are not independent.
  const byWorld = [...groupBy(cells, (t) => t.world).values()];
  const interval = (hit: (t: (typeof cells)[number]) => boolean) =>
    clusterRobustRatio(
      byWorld.map((ts) => ({ num: ts.filter(hit).length, den: ts.length })),
      { level: REPORT_LEVEL },
    ).ci;
  const freq = new Map<number, number>();
  for (const { n } of cells) freq.set(n, (freq.get(n) ?? 0) + 1);
  // The modal epoch count; on a tie the larger, so a few short tasks do not shrink k.
  const k = [...freq.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]![0];
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const hat = (j: number) => mean(cells.filter((t) => t.n >= j).map((t) => passHatK(t.c, t.n, j)));
  const byK: Record<string, number | null> = {};
  for (let j = 1; j <= k; j++) byK[String(j)] = hat(j);
  return {
    k,
    tasks: cells.length,
    best_of_k: mean(cells.map((t) => (t.c > 0 ? 1 : 0))),
    all_k_of_k: mean(cells.map((t) => (t.c === t.n ? 1 : 0))),
    best_of_k_ci90: interval((t) => t.c > 0),
    all_k_of_k_ci90: interval((t) => t.c === t.n),
    pass_hat_k: hat(k),
    pass_hat_by_k: byK,
  };
}
