import { describe, expect, it } from "vitest";
import { Rng } from "../bank/rng.js";
import { clusterBootstrapRatio } from "./cluster-bootstrap.js";
import { clusterRobustRatio } from "./cluster-robust.js";
import { SIMULATED_TRUTH, simulateRun } from "./coverage-simulation.js";

// Worlds at the default bank's shape (13) and a small bank's (5): `coverage-simulation.ts`.
const TRUTH = SIMULATED_TRUTH;
// 2,000 replications: the coverage estimate's sd is √(0.9·0.1/2000) ≈ 0.67 pp, so the 87–93% band
// is ±4.5 sd around 90 and a method at 86% lies 1.5 sd outside it (at 1,000, 0.95 pp; fewer won't do).
const REPS = 2000;
// The failing control resamples 400 times per replication (the report used 2,000), to keep the test
// to a few seconds. Fewer resamples add Monte Carlo noise to its endpoints but do not move its
// coverage by more than the replication noise: 85.3–85.8% at 13 worlds with 500 resamples in
// bench/interval-candidates.ts, 85.7–86.7% here.
const CONTROL_RESAMPLES = 400;

// The coverage simulation (seconds of CPU): its own file, so `npm run mutate` can leave it out.
describe("the report's interval covers what it claims (simulation)", () => {
  const scenarios = [
    { worlds: 13, sd: 0.03 },
    { worlds: 13, sd: 0.06 },
    { worlds: 5, sd: 0.03 },
    { worlds: 5, sd: 0.06 },
  ];
  for (const { worlds, sd } of scenarios) {
    it(`${worlds} worlds, world sd ${sd}: cluster-robust 90% holds 87–93%, the percentile bootstrap does not`, () => {
      const rng = Rng.fromSeed(`coverage/${worlds}/${sd}`);
      const boot = Rng.fromSeed(`coverage-boot/${worlds}/${sd}`);
      let robust = 0;
      let percentile = 0;
      let wilsonForm = 0;
      let onlyRobust = 0;
      let onlyPercentile = 0;
      for (let r = 0; r < REPS; r++) {
        const run = simulateRun(rng, worlds, sd);
        const ci = clusterRobustRatio(run, { level: 0.9, proportion: false }).ci!;
        const a = ci[0] <= TRUTH && TRUTH <= ci[1];
        const w = clusterRobustRatio(run, { level: 0.9 }).ci!;
        if (w[0] <= TRUTH && TRUTH <= w[1]) wilsonForm++;
        const old = clusterBootstrapRatio(run, { resamples: CONTROL_RESAMPLES, rng: boot, level: 0.9 }).ci!;
        const b = old[0] <= TRUTH && TRUTH <= old[1];
        robust += a ? 1 : 0;
        percentile += b ? 1 : 0;
        if (a && !b) onlyRobust++;
        if (b && !a) onlyPercentile++;
      }
      const coverage = robust / REPS;
      const oldCoverage = percentile / REPS;
      expect(coverage).toBeGreaterThanOrEqual(0.87);
      expect(coverage).toBeLessThanOrEqual(0.93);
      // The Wilson form the report uses for pass rates holds the same band.
      expect(wilsonForm / REPS).toBeGreaterThanOrEqual(0.87);
      expect(wilsonForm / REPS).toBeLessThanOrEqual(0.93);
      // This seed: cluster-robust 90.4/89.5/89.7/90.5%, its Wilson form 90.2/90.2/90.0/91.0%; the old
      // method under-covers: 86.7% and 85.7% at 13 worlds, 78.0% and 79.0% at 5.
      // At 13 worlds its true coverage (~86%) lies only ~1 pp under the band, so the decisive check
      // is paired, on the same simulated runs (McNemar): the replications only the cluster-robust
      // interval covers far outnumber those only the percentile one covers.
      expect(oldCoverage).toBeLessThan(0.87);
      expect(onlyRobust - onlyPercentile).toBeGreaterThan(3 * Math.sqrt(onlyRobust + onlyPercentile));
    });
  }
});
