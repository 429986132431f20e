import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import { clusterRobustRatio, REPORT_LEVEL } from "./cluster-robust.js";

/**
 * Failure composition: among the scored failures of a slice, the fraction that failed only the
 * labour group (G1), only the delivery group (G2: correct state, wrong answer card), or both.
 * `other` holds failures whose groups are unknown or both passed (e.g. abstentions the verifier
 * did not grade); the four fractions add up to 1 when `n` > 0.
 */
export const FailureCompositionSchema = z.object({
  g1_only: z.number(),
  g2_only: z.number(),
  both: z.number(),
  other: z.number(),
  /** Number of scored failures. */
  n: z.number().int(),
});
export type FailureComposition = z.infer<typeof FailureCompositionSchema>;

/** One slice of trials: pass rate over its scored trials, and its failure composition. */
export const SliceStatsSchema = z.object({
  /** Passes / scored trials; null for a slice with no scored trial. */
  pass_rate: z.number().nullable(),
  /** Scored trials (the denominator). */
  n: z.number().int(),
  passes: z.number().int(),
  /** Trials of the slice that were counted but not scored (harness/provider errors, no verdict). */
  unscored: z.number().int(),
  /** 90% cluster-robust interval of `pass_rate` (`cluster-robust.ts`); null with fewer than two clusters. */
  ci90: z.tuple([z.number(), z.number()]).nullable(),
  /** Independent units the interval rests on: worlds, or tasks within a single world's slice. */
  clusters: z.number().int(),
  failures: FailureCompositionSchema,
});
export type SliceStats = z.infer<typeof SliceStatsSchema>;

/** What a slice's trials cluster by: the world, or (inside one world) the task. */
export type ClusterBy = "world" | "task";

/**
 * Pass rate, its cluster-robust interval and the failure composition of a set of trials.
 * Denominators are scored trials. Trials cluster by world (a world's tasks and epochs are not
 * independent); a slice of one world clusters by task instead.
 *
 * @example sliceStats(records.filter((r) => r.kind === "solo")).pass_rate // 0.62
 */
export function sliceStats(records: Iterable<TrialRecord>, clusterBy: ClusterBy = "world"): SliceStats {
  const clusters = new Map<string, { num: number; den: number }>();
  let n = 0;
  let passes = 0;
  let unscored = 0;
  let g1Only = 0;
  let g2Only = 0;
  let both = 0;
  let other = 0;
  for (const r of records) {
    if (!isScored(r)) {
      unscored++;
      continue;
    }
    n++;
    const key = clusterBy === "world" ? r.world : r.task_id;
    const c = clusters.get(key) ?? { num: 0, den: 0 };
    clusters.set(key, c);
    c.den++;
    if (r.passed) {
      c.num++;
      passes++;
      continue;
    }
    if (r.g1_passed === false && r.g2_passed === false) both++;
    else if (r.g1_passed === false && r.g2_passed === true) g1Only++;
    else if (r.g1_passed === true && r.g2_passed === false) g2Only++;
    else other++;
  }
  const failures = n - passes;
  const frac = (x: number) => (failures ? x / failures : 0);
  const interval = clusterRobustRatio([...clusters.values()], { level: REPORT_LEVEL });
  return {
    pass_rate: n ? passes / n : null,
    n,
    passes,
    unscored,
    ci90: interval.ci,
    clusters: interval.clusters,
    failures: {
      g1_only: frac(g1Only),
      g2_only: frac(g2Only),
      both: frac(both),
      other: frac(other),
      n: failures,
    },
  };
}

/**
 * Group trials by a key (insertion order kept; `null` keys dropped).
 *
 * @example groupBy(records, (r) => r.world)
 */
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K | null): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** Numeric-aware key order, so `w2` sorts before `w10` and length `2` before `12`. */
export function naturalCompare(a: string, b: string): number {
  return a.localeCompare(b, "en", { numeric: true });
}

/** Map a grouping to a plain object of slice stats, keys in natural order. */
export function slicesBy(
  records: Iterable<TrialRecord>,
  key: (r: TrialRecord) => string | null,
  clusterBy: ClusterBy = "world",
) {
  const groups = groupBy(records, key);
  return Object.fromEntries(
    [...groups.keys()].sort(naturalCompare).map((k) => [k, sliceStats(groups.get(k)!, clusterBy)] as const),
  ) as Record<string, SliceStats>;
}

export const SlicesSchema = z.object({
  all: SliceStatsSchema,
  solo: SliceStatsSchema,
  chain: SliceStatsSchema,
  chain_by_length: z.record(z.string(), SliceStatsSchema),
  by_axis: z.record(z.string(), SliceStatsSchema),
  by_world: z.record(z.string(), SliceStatsSchema),
});
export type Slices = z.infer<typeof SlicesSchema>;

/**
 * Every standard slice of a set of trials: all, solo, chain, chain by length, by axis (where the
 * bank knows it), by world.
 *
 * @example computeSlices(records).chain_by_length["12"].pass_rate
 */
export function computeSlices(records: readonly TrialRecord[]): Slices {
  return {
    all: sliceStats(records),
    solo: sliceStats(records.filter((r) => r.kind === "solo")),
    chain: sliceStats(records.filter((r) => r.kind === "chain")),
    chain_by_length: slicesBy(records, (r) => (r.kind === "chain" ? String(r.length) : null)),
    by_axis: slicesBy(records, (r) => r.axis),
    by_world: slicesBy(records, (r) => r.world, "task"),
  };
}
