import { describe, expect, it } from "vitest";
import { Rng } from "../bank/rng.js";
import { clusterBootstrapRatio, quantileSorted } from "./cluster-bootstrap.js";

describe("clusterBootstrapRatio", () => {
  it("interpolates quantiles like R type 7", () => {
    expect(quantileSorted([0, 10], 0.5)).toBe(5);
    expect(quantileSorted([1, 2, 3, 4, 5], 0.05)).toBeCloseTo(1.2);
  });

  it("gives a zero-width interval when every cluster has the same rate", () => {
    const res = clusterBootstrapRatio(
      [
        { num: 1, den: 2 },
        { num: 2, den: 4 },
        { num: 3, den: 6 },
      ],
      { resamples: 500, rng: Rng.fromSeed("t"), level: 0.9 },
    );
    expect(res.estimate).toBe(0.5);
    expect(res.ci).toEqual([0.5, 0.5]);
    expect(res.se).toBe(0);
  });

  it("matches the hand-computed resampling distribution of two clusters", () => {
    // Clusters 1/1 and 0/1: a resample of two draws gives 0, ½, 1 with probabilities ¼, ½, ¼,
    // so the 90% percentile interval is [0, 1] and the standard error is √(1/8).
    const res = clusterBootstrapRatio(
      [
        { num: 1, den: 1 },
        { num: 0, den: 1 },
      ],
      { resamples: 4000, rng: Rng.fromSeed("two"), level: 0.9 },
    );
    expect(res.estimate).toBe(0.5);
    expect(res.ci).toEqual([0, 1]);
    expect(res.se).toBeCloseTo(Math.sqrt(1 / 8), 1);
  });

  it("keeps a cluster's trials together (a big world weighs as one cluster draw)", () => {
    // One world of 100 trials all passing, one of 1 trial failing: the ratio is 100/101, but a
    // resample that draws the small world twice has rate 0 — which trial-level resampling never gives.
    const res = clusterBootstrapRatio(
      [
        { num: 100, den: 100 },
        { num: 0, den: 1 },
      ],
      { resamples: 2000, rng: Rng.fromSeed("c"), level: 0.9 },
    );
    expect(res.ci?.[0]).toBe(0);
  });

  it("is deterministic for a seed", () => {
    const clusters = Array.from({ length: 18 }, (_, i) => ({ num: i % 5, den: 6 }));
    const run = (seed: string) =>
      clusterBootstrapRatio(clusters, { resamples: 2000, rng: Rng.fromSeed(seed) });
    expect(run("s1")).toEqual(run("s1"));
    expect(run("s1").se).not.toBe(run("s2").se);
    const [lo, hi] = run("s1").ci!;
    expect(lo).toBeLessThan(run("s1").estimate!);
    expect(hi).toBeGreaterThan(run("s1").estimate!);
  });
});
