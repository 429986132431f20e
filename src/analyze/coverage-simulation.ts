import type { Rng } from "../bank/rng.js";
import type { RatioCluster } from "./cluster-bootstrap.js";

/** The true pass rate of the simulated worlds: what a 90% interval must cover 90% of the time. */
export const SIMULATED_TRUTH = 0.85;

/** A standard normal draw (Box–Muller) from the project's seeded Rng. */
function normal(rng: Rng): number {
  const u1 = rng.int(1, 1_000_000) / 1_000_001;
  const u2 = rng.int(0, 999_999) / 1_000_000;
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * One simulated run of one model, as world clusters (passes / scored trials): `worlds` worlds whose
 * true pass rates are 0.85 + sd·z (z normal, cut symmetrically at ±2.4 so the mean stays exactly
 * 0.85 and no rate leaves [0, 1]); 30–42 tasks a world whose rates spread uniformly ±0.15 around
 * their world's (symmetric, so the world's mean is kept); 5 Bernoulli epochs a task. The truth is
 * therefore `SIMULATED_TRUTH`. Only for tests and benchmarks; not part of the public surface.
 *
 * @example simulateRun(Rng.fromSeed("s"), 13, 0.05).length // 13
 */
export function simulateRun(rng: Rng, worlds: number, sd: number): RatioCluster[] {
  const out: RatioCluster[] = [];
  for (let w = 0; w < worlds; w++) {
    let z: number;
    do z = normal(rng);
    while (Math.abs(z) > 2.4);
    const p = SIMULATED_TRUTH + sd * z;
    const spread = Math.min(0.15, 1 - p, p);
    const tasks = rng.int(30, 42);
    let num = 0;
    for (let t = 0; t < tasks; t++) {
      const q = p + spread * (rng.int(0, 1_000_000) / 500_000 - 1);
      for (let e = 0; e < 5; e++) if (rng.chance(q)) num++;
    }
    out.push({ num, den: tasks * 5 });
  }
  return out;
}
