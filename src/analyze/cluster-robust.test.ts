import { describe, expect, it } from "vitest";
import { clusterRobustRatio, mddFactor } from "./cluster-robust.js";
import { studentTQuantile } from "./student-t.js";

// The coverage simulation of this interval is in cluster-robust-coverage.test.ts.

describe("clusterRobustRatio", () => {
  it("matches the t interval of world means when worlds are equal in size", () => {
    // Equal worlds: CR2 = s² / W of the world rates, so the interval is the textbook t interval.
    const rates = [0.8, 0.9, 0.85, 0.7];
    const res = clusterRobustRatio(
      rates.map((r) => ({ num: r * 20, den: 20 })),
      { level: 0.9, proportion: false },
    );
    const mean = 0.8125;
    const s = Math.sqrt(rates.reduce((a, r) => a + (r - mean) ** 2, 0) / 3);
    const half = studentTQuantile(0.95, 3) * (s / 2);
    expect(res.estimate).toBeCloseTo(mean, 12);
    expect(res.se).toBeCloseTo(s / 2, 12);
    expect(res.ci![0]).toBeCloseTo(mean - half, 12);
    expect(res.ci![1]).toBeCloseTo(mean + half, 12);
    expect(res.clusters).toBe(4);
  });

  it("weighs unequal worlds by leverage (CR2), hand-computed", () => {
    // Worlds 9/10 and 10/30: p̂ = 19/40; residuals 9 − 4.75 = 4.25 and 10 − 14.25 = −4.25;
    // leverages 1/4 and 3/4: meat = 4.25²/0.75 + 4.25²/0.25; se = √meat / 40.
    const res = clusterRobustRatio([
      { num: 9, den: 10 },
      { num: 10, den: 30 },
    ]);
    expect(res.estimate).toBeCloseTo(0.475, 12);
    expect(res.se).toBeCloseTo(Math.sqrt(4.25 ** 2 / 0.75 + 4.25 ** 2 / 0.25) / 40, 12);
  });

  it("keeps a pass rate's interval inside [0, 1] and wide at 100% (Wilson form, n = worlds)", () => {
    // Every one of 5 worlds passes everything: se = 0, so the effective size is 5 worlds and the
    // interval is Wilson's at n = 5 with z = t₀.₉₅(4): lower = 1 / (1 + z²/5).
    const res = clusterRobustRatio(Array.from({ length: 5 }, () => ({ num: 36, den: 36 })));
    const z = studentTQuantile(0.95, 4);
    expect(res.ci![0]).toBeCloseTo(1 / (1 + (z * z) / 5), 12);
    expect(res.ci![1]).toBeCloseTo(1, 12);
    // A difference is cut to its bounds instead.
    const diff = clusterRobustRatio(
      [
        { num: 1, den: 1 },
        { num: -1, den: 1 },
      ],
      { proportion: false, bounds: [-1, 1] },
    );
    expect(diff.ci).toEqual([-1, 1]);
  });

  it("gives no interval on one world and nothing on none", () => {
    expect(clusterRobustRatio([{ num: 3, den: 4 }])).toEqual({
      estimate: 0.75,
      ci: null,
      se: null,
      clusters: 1,
    });
    expect(clusterRobustRatio([{ num: 0, den: 0 }])).toEqual({
      estimate: null,
      ci: null,
      se: null,
      clusters: 0,
    });
  });

  it("computes the minimum detectable difference at the interval's own level", () => {
    expect(mddFactor(0.9, 13)).toBeCloseTo(1.782288 + 0.872609, 4);
    expect(mddFactor(0.95, 13)).toBeCloseTo(2.178813 + 0.872609, 4);
    expect(mddFactor(0.9, 1)).toBeNull();
  });
});

describe("studentTQuantile", () => {
  it("matches the printed table", () => {
    expect(studentTQuantile(0.95, 12)).toBeCloseTo(1.782288, 5);
    expect(studentTQuantile(0.95, 4)).toBeCloseTo(2.131847, 5);
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.8, 12)).toBeCloseTo(0.872609, 5);
    expect(studentTQuantile(0.05, 12)).toBeCloseTo(-1.782288, 5);
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 4);
  });
});
