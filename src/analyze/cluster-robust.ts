import { z } from "zod";
import type { RatioCluster } from "./cluster-bootstrap.js";
import { studentTQuantile } from "./student-t.js";

/**
 * The interval method of every figure in the report, chosen by simulation: worlds with known pass
 * rates at the default bank's shape (13 worlds, 30–42 tasks, 5 epochs, world sd 0.03–0.06 around
 * 0.85, task variation) and at 5 worlds (`coverage-simulation.ts`). Coverage of the nominal 90%
 * interval, every candidate on the same 2,000 runs, 500 resamples (`npx tsx bench/interval-candidates.ts`):
 *
 * | worlds, sd | percentile bootstrap | BCa  | bootstrap-t (CR2) | CR1, t(W−1) | CR2, t(W−1) | CR2, Wilson form |
 * |------------|---------------------:|-----:|------------------:|------------:|------------:|-----------------:|
 * | 13, 0.03   | 85.3                 | 86.0 | 89.9              | 89.0        | 89.0        | 89.6             |
 * | 13, 0.06   | 85.8                 | 86.1 | 90.3              | 90.0        | 89.9        | 90.0             |
 * | 5, 0.03    | 77.7                 | 78.3 | 90.8              | 89.0        | 89.2        | 89.4             |
 * | 5, 0.06    | 79.0                 | 79.3 | 90.8              | 89.1        | 89.2        | 89.7             |
 *
 * `cluster-robust.test.ts` holds the chosen method to 87–93% on other seeds and shows the
 * percentile bootstrap failing.
 *
 * Percentile and BCa use normal quantiles and a plug-in variance that is (W−1)/W too small, so
 * they under-cover with few worlds. Bootstrap-t and the cluster-robust interval both hold; the
 * cluster-robust one is closed-form (no resamples, no Monte Carlo noise, microseconds), so it is
 * the method. CR2 (Bell–McCaffrey) rather than CR1: identical for equal worlds, and it corrects
 * each world by its own leverage when worlds differ in size. Pass rates use its Wilson form (the
 * same standard error and t, through Wilson's score interval at the effective sample size), which
 * keeps the interval inside [0, 1] and gives it a width at 0% and 100%; the test holds both forms
 * to the 87–93% band.
 */
export const INTERVAL_METHOD =
  "cluster-robust over worlds (CR2 standard error, t(W−1), Wilson form for rates)";

/** The level of every interval in the report and in `compare`. */
export const REPORT_LEVEL = 0.9;

/**
 * Below this many worlds the report warns. Not a cliff: with worlds whose pass rates are near
 * normal the interval covers even at 5 (tested), but with few worlds one unusual world cannot be
 * told from the rest (simulated: one world in ten at 0.45 among worlds at 0.90 — coverage 47% at 5
 * worlds, 65% at 10, 87% at 20), and t(W−1) widens fast (t₀.₉₅ = 2.13 at 5 worlds, 1.83 at 10).
 * Ten is a rule of thumb at that point, not a result: no method can see a kind of world that the
 * sample happens not to contain.
 */
export const MIN_WORLDS = 10;

/** What a report says about its intervals: the method, the level, the clusters, and a warning. */
export const IntervalHeaderSchema = z.object({
  method: z.string(),
  level: z.number(),
  /** Worlds in the data: the clusters of the overall intervals (slices may have fewer). */
  clusters: z.number().int(),
  /** The documented minimum (`MIN_WORLDS`); below it `warning` says so. */
  min_clusters: z.number().int(),
  warning: z.string().nullable(),
});
export type IntervalHeader = z.infer<typeof IntervalHeaderSchema>;

/**
 * The interval header of a report or comparison over `worlds` worlds.
 *
 * @example intervalHeader(5).warning // "only 5 worlds: …"
 */
export function intervalHeader(worlds: number): IntervalHeader {
  return {
    method: INTERVAL_METHOD,
    level: REPORT_LEVEL,
    clusters: worlds,
    min_clusters: MIN_WORLDS,
    warning:
      worlds < MIN_WORLDS
        ? `only ${worlds} world${worlds === 1 ? "" : "s"} (fewer than ${MIN_WORLDS}): the intervals rest on few independent units and are wide, and one unusual world can move them; read them with care`
        : null,
  };
}

/** An estimate with its interval; `clusters` is how many independent units the interval rests on. */
export const IntervalSchema = z.object({
  estimate: z.number().nullable(),
  /** The interval at the report's level; null with fewer than two clusters. */
  ci: z.tuple([z.number(), z.number()]).nullable(),
  /** Standard error (CR2). */
  se: z.number().nullable(),
  clusters: z.number().int(),
});
export type Interval = z.infer<typeof IntervalSchema>;

/**
 * Wilson score interval at an effective sample size, with `z` from t(W−1). For a clustered
 * proportion the effective size is p(1−p)/se² (Korn & Graubard's design-effect form; not capped at
 * the trial count, which over-covered at 5 worlds in the simulation, 93%); with no spread at all (se = 0, e.g. every world at 100%) it is the number of
 * clusters, since the trials of one cluster are not independent evidence. Unlike p ± t·se it never
 * collapses to a point at 0% or 100% and never leaves [0, 1].
 */
function wilson(p: number, n: number, z: number): [number, number] {
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * Cluster-robust interval of a ratio Σnum / Σden (a pooled pass rate, a mean over tasks, a mean
 * difference) with clusters (worlds) as the independent units: the CR2 standard error of the
 * intercept in a regression of the unit values on a constant, and Student's t with W−1 degrees of
 * freedom. For a pass rate (`proportion`, the default) the interval is Wilson's at the effective
 * sample size, so it stays inside [0, 1] and keeps a width at 0% and 100%; for a difference it is
 * estimate ± t·se, cut to `bounds` (the truth cannot lie outside them, so cutting loses no coverage).
 * Both forms are held to the coverage test.
 *
 * @example clusterRobustRatio([{ num: 30, den: 36 }, { num: 28, den: 36 }, { num: 33, den: 36 }], { level: 0.9 }).ci
 */
export function clusterRobustRatio(
  clusters: readonly RatioCluster[],
  opts: { level?: number; proportion?: boolean; bounds?: [number, number] } = {},
): Interval {
  const live = clusters.filter((c) => c.den > 0);
  const W = live.length;
  if (W === 0) return { estimate: null, ci: null, se: null, clusters: 0 };
  let N = 0;
  let Y = 0;
  for (const c of live) {
    N += c.den;
    Y += c.num;
  }
  const estimate = Y / N;
  if (W < 2) return { estimate, ci: null, se: null, clusters: W };
  let meat = 0;
  for (const c of live) {
    const e = c.num - estimate * c.den;
    // CR2: the cluster's residual scaled by (1 − h_w)^(-1/2), h_w = n_w / N its leverage.
    meat += (e * e) / (1 - c.den / N);
  }
  const se = Math.sqrt(meat) / N;
  const level = opts.level ?? 0.9;
  const t = studentTQuantile(1 - (1 - level) / 2, W - 1);
  if (opts.proportion ?? true) {
    const p = Math.min(1, Math.max(0, estimate));
    const n = se > 0 && p > 0 && p < 1 ? (p * (1 - p)) / (se * se) : W;
    return { estimate, ci: wilson(p, n, t), se, clusters: W };
  }
  const [lo, hi] = opts.bounds ?? [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY];
  return {
    estimate,
    ci: [Math.max(lo, estimate - t * se), Math.min(hi, estimate + t * se)],
    se,
    clusters: W,
  };
}

/**
 * The multiplier a minimum detectable difference needs at the interval's own level: the two-sided
 * critical value of t(W−1) at 1 − level plus the one for 80% power. At a 90% level and 13 worlds:
 * 1.78 + 0.87 = 2.65 (not the 2.80 of α = 0.05 with a normal).
 *
 * @example mddFactor(0.9, 13) * se
 */
export function mddFactor(level: number, clusters: number): number | null {
  if (clusters < 2) return null;
  const df = clusters - 1;
  return studentTQuantile(1 - (1 - level) / 2, df) + studentTQuantile(0.8, df);
}
