import { describe, expect, it } from "vitest";
import type { Rng } from "../bank/rng.js";
import { clusterBootstrapRatio, quantileSorted } from "./cluster-bootstrap.js";

/**
 * The cluster bootstrap with the draws fixed (issue 21: mutation testing): a scripted `rng` picks
 * the clusters of each resample, so the resampled ratios, their interval and standard error can be
 * worked out by hand and checked exactly.
 */
function scriptedRng(picks: number[]) {
  const calls: Array<[number, number]> = [];
  let i = 0;
  const rng = {
    int(from: number, to: number) {
      calls.push([from, to]);
      const v = picks[i++];
      if (v === undefined) throw new Error("scripted rng ran out");
      return v;
    },
  } as unknown as Rng;
  return { rng, calls };
}

describe("quantileSorted", () => {
  it("interpolates linearly between order statistics (type 7)", () => {
    expect(quantileSorted([1, 2, 4, 8], 0)).toBe(1);
    expect(quantileSorted([1, 2, 4, 8], 1)).toBe(8);
    expect(quantileSorted([1, 2, 4, 8], 0.5)).toBe(3);
    expect(quantileSorted([1, 2, 4, 8], 0.25)).toBeCloseTo(1.75, 12);
    expect(quantileSorted([1, 2, 4, 8], 0.9)).toBeCloseTo(6.8, 12);
    expect(quantileSorted([5], 0.3)).toBe(5);
    expect(() => quantileSorted([], 0.5)).toThrow("quantileSorted: empty");
  });
});

describe("clusterBootstrapRatio with fixed draws", () => {
  const clusters = [
    { num: 1, den: 2 },
    { num: 0, den: 0 },
    { num: 3, den: 4 },
  ];

  it("resamples live clusters whole, with replacement, and reads the interval and SE off the ratios", () => {
    // Live clusters: A = 1/2, B = 3/4. Resamples: AA = 2/4, BB = 6/8, AB = 4/6.
    const { rng, calls } = scriptedRng([0, 0, 1, 1, 0, 1]);
    const out = clusterBootstrapRatio(clusters, { resamples: 3, rng, level: 0.5 });
    expect(calls).toEqual(Array(6).fill([0, 1]));
    expect(out.estimate).toBeCloseTo(4 / 6, 12);
    const sorted = [0.5, 4 / 6, 0.75];
    expect(out.ci![0]).toBeCloseTo(sorted[0]! + 0.5 * (sorted[1]! - sorted[0]!), 12);
    expect(out.ci![1]).toBeCloseTo(sorted[1]! + 0.5 * (sorted[2]! - sorted[1]!), 12);
    const mean = (0.5 + 4 / 6 + 0.75) / 3;
    const se = Math.sqrt(((0.5 - mean) ** 2 + (4 / 6 - mean) ** 2 + (0.75 - mean) ** 2) / 2);
    expect(out.se).toBeCloseTo(se, 12);
  });

  it("the default level is 90%", () => {
    const { rng } = scriptedRng([0, 0, 1, 1, 0, 1]);
    const out = clusterBootstrapRatio(clusters, { resamples: 3, rng });
    const sorted = [0.5, 4 / 6, 0.75];
    // q = 0.05: h = 0.1; q = 0.95: h = 1.9.
    expect(out.ci![0]).toBeCloseTo(sorted[0]! + 0.1 * (sorted[1]! - sorted[0]!), 12);
    expect(out.ci![1]).toBeCloseTo(sorted[1]! + 0.9 * (sorted[2]! - sorted[1]!), 12);
  });

  it("one resample has a zero-width interval and an SE of 0 (no division by zero)", () => {
    const { rng } = scriptedRng([1, 0]);
    const out = clusterBootstrapRatio(clusters, { resamples: 1, rng });
    expect(out.ci).toEqual([4 / 6, 4 / 6]);
    expect(out.se).toBe(0);
  });

  it("no resamples: the estimate alone; no live cluster: nothing", () => {
    const { rng, calls } = scriptedRng([]);
    expect(clusterBootstrapRatio(clusters, { resamples: 0, rng })).toEqual({
      estimate: 4 / 6,
      ci: null,
      se: null,
    });
    expect(clusterBootstrapRatio([{ num: 2, den: 0 }], { resamples: 5, rng })).toEqual({
      estimate: null,
      ci: null,
      se: null,
    });
    expect(clusterBootstrapRatio([], { resamples: 5, rng }).estimate).toBeNull();
    expect(calls).toEqual([]);
  });
});
