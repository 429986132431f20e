import { z } from "zod";
import type { RatioCluster } from "./cluster-bootstrap.js";
import { studentTQuantile } from "./student-t.js";

/**
 * The interval method of every figure in the report, chosen by simulation
 * (`cluster-robust.test.ts`): worlds with known pass rates at the default bank's shape (13 worlds,
 * 30–42 tasks, 5 epochs, world sd 0.03–0.06 around 0.85, task variation) and at 5 worlds, 2,000
 * replications each. Coverage of the nominal 90% interval (seeded run of the candidates):
 *
 * | worlds, world sd | percentile bootstrap | BCa  | bootstrap-t (CR2) | CR1, t(W−1) | CR2, t(W−1) |
 * |------------------|---------------------:|-----:|------------------:|------------:|------------:|
 * | 13, 0.03         | 86.1                 | 86.3 | 90.2              | 89.7        | 89.8        |
 * | 13, 0.06         | 85.8                 | 86.8 | 90.8              | 90.5        | 90.5        |
 * | 5, 0.03          | 78.4                 | 79.1 | 90.5              | 90.0        | 90.0        |
 * | 5, 0.06          | 79.8                 | 80.3 | 91.6              | 90.0        | 90.0        |
 *
 * Percentile and BCa use normal quantiles and a plug-in variance that is (W−1)/W too small, so
 * they under-cover with few worlds. Bootstrap-t and the cluster-robust interval both hold; the
 * cluster-robust one is closed-form (no resamples, no Monte Carlo noise, microseconds), so it is
 * the method. CR2 (Bell–McCaffrey) rather than CR1: identical for equal worlds, and it corrects
 * each world by its own leverage when worlds differ in size.
 */
export const INTERVAL_METHOD = "cluster-robust (CR2) over worlds, t(W−1)";

/**
 * Below this many worlds the report warns. Not a cliff: with worlds whose pass rates are near
 * normal the interval covers even at 5 (tested), but with few worlds one unusual world cannot be
 * told from the rest (simulated: one world in ten at 0.45 among worlds at 0.90 — coverage 47% at 5
 * worlds, 65% at 10, 87% at 20), and t(W−1) widens fast (t₀.₉₅ = 2.13 at 5 worlds, 1.83 at 10).
 * Ten clusters is also where CR2 with t(W−1) is usually taken to become dependable (Imbens &
 * Kolesár 2016).
 */
export const MIN_WORLDS = 10;

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
 * Cluster-robust interval of a ratio Σnum / Σden (a pooled pass rate, a mean over tasks, a mean
 * difference) with clusters (worlds) as the independent units: the CR2 standard error of the
 * intercept in a regression of the unit values on a constant, and Student's t with W−1 degrees of
 * freedom. Not clipped to [0, 1]: a difference may be negative, and a clipped interval would hide
 * how little the data say.
 *
 * @example clusterRobustRatio([{ num: 30, den: 36 }, { num: 28, den: 36 }, { num: 33, den: 36 }], { level: 0.9 }).ci
 */
export function clusterRobustRatio(clusters: readonly RatioCluster[], opts: { level?: number } = {}): Interval {
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
  return { estimate, ci: [estimate - t * se, estimate + t * se], se, clusters: W };
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
