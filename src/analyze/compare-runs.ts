import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import {
  clusterRobustRatio,
  IntervalHeaderSchema,
  intervalHeader,
  mddFactor,
  REPORT_LEVEL,
} from "./cluster-robust.js";
import { groupBy, naturalCompare } from "./slice-stats.js";

export const PairedComparisonSchema = z.object({
  /** Tasks scored in both runs (the paired units). */
  tasks: z.number().int(),
  /** Task-averaged pass rate in run A and in run B, over the paired tasks. */
  pass_rate_a: z.number().nullable(),
  pass_rate_b: z.number().nullable(),
  /** B − A. */
  diff: z.number().nullable(),
  /** 90% paired cluster-robust interval of `diff`: per-task B − A, clustered by world. */
  ci90: z.tuple([z.number(), z.number()]).nullable(),
  /** Cluster-robust (CR2) standard error of `diff`. */
  se: z.number().nullable(),
  /**
   * Smallest |diff| this design detects with 80% power by a two-sided test at the interval's own
   * level (α = 0.10 for a 90% interval), with t(W−1): (t₀.₉₅ + t₀.₈₀) × se, 2.65 × se at 13 worlds.
   */
  mdd: z.number().nullable(),
  /** Worlds the interval rests on. */
  clusters: z.number().int(),
  /** Chance that one epoch of A and one of B disagree on a task, averaged over tasks. */
  flip_rate: z.number().nullable(),
  /** Of which A failed and B passed … */
  flips_up: z.number().nullable(),
  /** … and A passed and B failed. */
  flips_down: z.number().nullable(),
});
export type PairedComparison = z.infer<typeof PairedComparisonSchema>;

export const ComparisonSchema = z.object({
  bank_hash: z.string(),
  /** How trials were paired: by agent name, or the single agent of A against the single agent of B. */
  pairing: z.enum(["by_agent", "single_agents"]),
  /** The interval method, level and worlds of `overall`, with a warning below the minimum. */
  interval: IntervalHeaderSchema,
  overall: PairedComparisonSchema,
  agents: z.record(z.string(), PairedComparisonSchema),
});
export type Comparison = z.infer<typeof ComparisonSchema>;

export type CompareError = { code: "bank_mismatch" | "no_pairs"; message: string };

interface Unit {
  world: string;
  a: number;
  b: number;
}

function taskRates(records: readonly TrialRecord[]): Map<string, { world: string; rate: number }> {
  const byTask = groupBy(
    records.filter((r) => isScored(r)),
    (r) => r.task_id,
  );
  return new Map(
    [...byTask].map(([task, rs]) => [
      task,
      { world: rs[0]!.world, rate: rs.filter((r) => r.passed).length / rs.length },
    ]),
  );
}

function compareUnits(units: readonly Unit[]): PairedComparison {
  if (units.length === 0) {
    return {
      tasks: 0,
      pass_rate_a: null,
      pass_rate_b: null,
      diff: null,
      ci90: null,
      se: null,
      mdd: null,
      clusters: 0,
      flip_rate: null,
      flips_up: null,
      flips_down: null,
    };
  }
  const mean = (f: (u: Unit) => number) => units.reduce((s, u) => s + f(u), 0) / units.length;
  const byWorld = groupBy(units, (u) => u.world);
  const clusters = [...byWorld.keys()]
    .sort(naturalCompare)
    .map((w) => ({ num: byWorld.get(w)!.reduce((s, u) => s + (u.b - u.a), 0), den: byWorld.get(w)!.length }));
  const ci = clusterRobustRatio(clusters, { level: REPORT_LEVEL, proportion: false, bounds: [-1, 1] });
  const factor = mddFactor(REPORT_LEVEL, ci.clusters);
  const up = mean((u) => (1 - u.a) * u.b);
  const down = mean((u) => u.a * (1 - u.b));
  return {
    tasks: units.length,
    pass_rate_a: mean((u) => u.a),
    pass_rate_b: mean((u) => u.b),
    diff: ci.estimate,
    ci90: ci.ci,
    se: ci.se,
    mdd: ci.se === null || factor === null ? null : factor * ci.se,
    clusters: ci.clusters,
    flip_rate: up + down,
    flips_up: up,
    flips_down: down,
  };
}

/**
 * Compare two runs of the same bank, task by task: per-task flip rate, the difference in pass rate
 * (B − A) with a paired cluster-robust CI over worlds, and the minimum detectable difference of
 * that design at the same level. Trials pair by agent; two single-agent runs of different agents
 * pair with each other. (`opts` is accepted for callers written for the old bootstrap, and ignored.)
 *
 * @example const res = compareRuns(recordsA, recordsB); if (res.success) res.data.overall.diff
 */
export function compareRuns(
  a: readonly TrialRecord[],
  b: readonly TrialRecord[],
  _opts: { resamples?: number; seed?: string } = {},
): { success: true; data: Comparison } | { success: false; error: CompareError } {
  const banks = [...new Set([...a, ...b].map((r) => r.bank_hash))];
  if (banks.length !== 1) {
    return {
      success: false,
      error: {
        code: "bank_mismatch",
        message: `the runs are of different banks (${banks.join(" vs ") || "none"}); only runs of one bank compare`,
      },
    };
  }
  const agentsA = groupBy(a, (r) => r.agent);
  const agentsB = groupBy(b, (r) => r.agent);
  const shared = [...agentsA.keys()].filter((k) => agentsB.has(k)).sort(naturalCompare);
  let pairs: Array<[string, TrialRecord[], TrialRecord[]]>;
  let pairing: Comparison["pairing"] = "by_agent";
  if (shared.length > 0) {
    pairs = shared.map((agent) => [agent, agentsA.get(agent)!, agentsB.get(agent)!]);
  } else if (agentsA.size === 1 && agentsB.size === 1) {
    const [nameA, recsA] = [...agentsA][0]!;
    const [nameB, recsB] = [...agentsB][0]!;
    pairs = [[`${nameA} vs ${nameB}`, recsA, recsB]];
    pairing = "single_agents";
  } else {
    return {
      success: false,
      error: { code: "no_pairs", message: "the runs share no agent to pair trials by" },
    };
  }
  const all: Unit[] = [];
  const agents: Comparison["agents"] = {};
  for (const [name, ra, rb] of pairs) {
    const ta = taskRates(ra);
    const tb = taskRates(rb);
    const units = [...ta.keys()]
      .filter((t) => tb.has(t))
      .sort(naturalCompare)
      .map((t) => ({ world: ta.get(t)!.world, a: ta.get(t)!.rate, b: tb.get(t)!.rate }));
    all.push(...units);
    agents[name] = compareUnits(units);
  }
  if (all.length === 0) {
    return { success: false, error: { code: "no_pairs", message: "no task was scored in both runs" } };
  }
  const overall = compareUnits(all);
  return {
    success: true,
    data: {
      bank_hash: banks[0]!,
      pairing,
      interval: intervalHeader(overall.clusters),
      overall,
      agents,
    },
  };
}
