import {
  clusterBootstrapRatio,
  quantileSorted,
  type RatioCluster,
} from "../src/analyze/cluster-bootstrap.js";
import { clusterRobustRatio } from "../src/analyze/cluster-robust.js";
import { SIMULATED_TRUTH, simulateRun } from "../src/analyze/coverage-simulation.js";
import { studentTCdf, studentTQuantile } from "../src/analyze/student-t.js";
import { Rng } from "../src/bank/rng.js";

/**
 * Not a speed benchmark: the simulation that chose the report's interval method (issue 19), kept
 * so the comparison in `src/analyze/cluster-robust.ts` can be re-run. Every candidate is computed
 * on the same simulated runs; prints the coverage of each nominal 90% interval.
 *
 *   npx tsx bench/interval-candidates.ts [replications=2000] [resamples=500]
 */
const REPS = Number(process.argv[2] ?? 2000);
const B = Number(process.argv[3] ?? 500);
const LEVEL = 0.9;

// The normal distribution as the limit of Student's t (enough for BCa's few quantiles).
const qnorm = (p: number) => studentTQuantile(p, 1e7);
const pnorm = (x: number) => studentTCdf(x, 1e7);

function crSe(cs: readonly RatioCluster[]): { est: number; se: number } {
  const r = clusterRobustRatio(cs, { proportion: false });
  return { est: r.estimate!, se: r.se ?? 0 };
}

/** Studentised cluster bootstrap: t* = (θ* − θ̂) / se*(CR2), interval θ̂ − t*₁₋α/₂·se … θ̂ − t*α/₂·se. */
function bootstrapT(cs: readonly RatioCluster[], rng: Rng): [number, number] {
  const { est, se } = crSe(cs);
  const W = cs.length;
  const ts: number[] = [];
  const pick: RatioCluster[] = new Array(W);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < W; i++) pick[i] = cs[rng.int(0, W - 1)]!;
    const r = crSe(pick);
    ts.push(
      r.se > 0 ? (r.est - est) / r.se : r.est >= est ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY,
    );
  }
  ts.sort((a, b) => a - b);
  return [est - quantileSorted(ts, 1 - (1 - LEVEL) / 2) * se, est - quantileSorted(ts, (1 - LEVEL) / 2) * se];
}

/** BCa over clusters: bias correction from the resamples, acceleration from the cluster jackknife. */
function bca(cs: readonly RatioCluster[], rng: Rng): [number, number] {
  const W = cs.length;
  const N = cs.reduce((s, c) => s + c.den, 0);
  const Y = cs.reduce((s, c) => s + c.num, 0);
  const est = Y / N;
  const stats: number[] = [];
  for (let b = 0; b < B; b++) {
    let num = 0;
    let den = 0;
    for (let i = 0; i < W; i++) {
      const c = cs[rng.int(0, W - 1)]!;
      num += c.num;
      den += c.den;
    }
    stats.push(num / den);
  }
  stats.sort((a, b) => a - b);
  const below = stats.filter((s) => s < est).length + 0.5 * stats.filter((s) => s === est).length;
  const z0 = qnorm(Math.min(1 - 1e-6, Math.max(1e-6, below / B)));
  const jack = cs.map((c) => (Y - c.num) / (N - c.den));
  const jm = jack.reduce((s, x) => s + x, 0) / W;
  const cube = jack.reduce((s, x) => s + (jm - x) ** 3, 0);
  const square = jack.reduce((s, x) => s + (jm - x) ** 2, 0);
  const a = square > 0 ? cube / (6 * square ** 1.5) : 0;
  const adjust = (alpha: number) => {
    const z = qnorm(alpha);
    return pnorm(z0 + (z0 + z) / (1 - a * (z0 + z)));
  };
  return [quantileSorted(stats, adjust((1 - LEVEL) / 2)), quantileSorted(stats, adjust(1 - (1 - LEVEL) / 2))];
}

function cr1(cs: readonly RatioCluster[]): [number, number] {
  const W = cs.length;
  const N = cs.reduce((s, c) => s + c.den, 0);
  const est = cs.reduce((s, c) => s + c.num, 0) / N;
  const meat = cs.reduce((s, c) => s + (c.num - est * c.den) ** 2, 0) * (W / (W - 1));
  const half = studentTQuantile(1 - (1 - LEVEL) / 2, W - 1) * (Math.sqrt(meat) / N);
  return [est - half, est + half];
}

const candidates: Record<string, (cs: readonly RatioCluster[], rng: Rng) => [number, number]> = {
  "percentile bootstrap": (cs, rng) => clusterBootstrapRatio(cs, { resamples: B, rng, level: LEVEL }).ci!,
  BCa: bca,
  "bootstrap-t (CR2)": bootstrapT,
  "CR1, t(W−1)": cr1,
  "CR2, t(W−1)": (cs) => clusterRobustRatio(cs, { proportion: false }).ci!,
  "CR2, t(W−1), Wilson form": (cs) => clusterRobustRatio(cs).ci!,
};

process.stdout.write(`${REPS} replications, ${B} resamples; coverage of the nominal 90% interval (%)\n`);
process.stdout.write(`worlds  sd    ${Object.keys(candidates).join("  |  ")}\n`);
for (const [worlds, sd] of [
  [13, 0.03],
  [13, 0.06],
  [5, 0.03],
  [5, 0.06],
] as const) {
  const data = Rng.fromSeed(`candidates/${worlds}/${sd}`);
  const boot = Rng.fromSeed(`candidates-boot/${worlds}/${sd}`);
  const hits = Object.fromEntries(Object.keys(candidates).map((k) => [k, 0]));
  for (let r = 0; r < REPS; r++) {
    const run = simulateRun(data, worlds, sd);
    for (const [name, interval] of Object.entries(candidates)) {
      const [lo, hi] = interval(run, boot);
      if (lo <= SIMULATED_TRUTH && SIMULATED_TRUTH <= hi) hits[name]!++;
    }
  }
  const cells = Object.values(hits).map((h) => ((100 * h) / REPS).toFixed(1));
  process.stdout.write(`${String(worlds).padStart(6)}  ${sd.toFixed(2)}  ${cells.join("  |  ")}\n`);
}
