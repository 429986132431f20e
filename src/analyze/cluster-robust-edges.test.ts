import { describe, expect, it } from "vitest";
import {
  clusterRobustRatio,
  INTERVAL_METHOD,
  intervalHeader,
  MIN_WORLDS,
  REPORT_LEVEL,
} from "./cluster-robust.js";
import { studentTQuantile } from "./student-t.js";

/**
 * The cluster-robust interval worked by hand at its edges (issue 21: mutation testing): the Wilson
 * form's effective sample size, the level, empty worlds, and the report header's warning.
 */
describe("clusterRobustRatio: the Wilson form by hand", () => {
  it("three worlds at 3/4, 1/4, 2/4: se √3/12, effective size 12, z = t₀.₉₅(2)", () => {
    // p = 1/2; residuals 1, −1, 0; leverage 1/3 each: meat = 2 / (2/3) = 3, se = √3 / 12.
    // Effective size p(1 − p)/se² = 0.25 / (3/144) = 12.
    const res = clusterRobustRatio([
      { num: 3, den: 4 },
      { num: 1, den: 4 },
      { num: 2, den: 4 },
    ]);
    expect(res.estimate).toBe(0.5);
    expect(res.se).toBeCloseTo(Math.sqrt(3) / 12, 12);
    const z = studentTQuantile(0.95, 2);
    const z2n = (z * z) / 12;
    const half = (z / (1 + z2n)) * Math.sqrt(0.25 / 12 + z2n / 48);
    expect(res.ci![0]).toBeCloseTo(0.5 - half, 12);
    expect(res.ci![1]).toBeCloseTo(0.5 + half, 12);
    expect(res.ci![0]).toBeCloseTo(0.177748, 5);
    expect(res.clusters).toBe(3);
  });

  it("the level sets t: 80% is narrower than the default 90%", () => {
    const worlds = [
      { num: 3, den: 4 },
      { num: 1, den: 4 },
      { num: 2, den: 4 },
    ];
    expect(clusterRobustRatio(worlds, { level: 0.8 }).ci![0]).toBeCloseTo(0.260954, 5);
    expect(clusterRobustRatio(worlds, { level: 0.9 })).toEqual(clusterRobustRatio(worlds));
  });

  it("at 0% every world has se 0: Wilson at n = worlds, from 0 up", () => {
    const res = clusterRobustRatio([
      { num: 0, den: 4 },
      { num: 0, den: 4 },
    ]);
    const z = studentTQuantile(0.95, 1);
    expect(res.ci![0]).toBe(0);
    // Upper end of Wilson at p = 0, n = 2: (z²/n) / (1 + z²/n).
    const z2n = (z * z) / 2;
    expect(res.ci![1]).toBeCloseTo(z2n / (1 + z2n), 12);
    expect(res.ci![1]).toBeCloseTo(0.952226, 5);
  });

  it("worlds all at one rate inside (0, 1): se 0, so Wilson at n = worlds, not a point", () => {
    const res = clusterRobustRatio([
      { num: 1, den: 2 },
      { num: 2, den: 4 },
    ]);
    expect(res.se).toBe(0);
    const z = studentTQuantile(0.95, 1);
    const z2n = (z * z) / 2;
    const half = (z / (1 + z2n)) * Math.sqrt(0.25 / 2 + z2n / 8);
    expect(res.ci![0]).toBeCloseTo(0.5 - half, 12);
    expect(res.ci![1]).toBeCloseTo(0.5 + half, 12);
    expect(res.ci![0]).toBeCloseTo(0.01209, 5);
  });

  it("a difference without bounds is estimate ± t·se; worlds with no trials are left out", () => {
    const res = clusterRobustRatio(
      [
        { num: 1, den: 4 },
        { num: 0, den: 4 },
        { num: 5, den: 0 },
      ],
      { proportion: false },
    );
    expect(res.clusters).toBe(2);
    expect(res.estimate).toBe(0.125);
    // Residuals 0.5, −0.5; leverage 1/2 each: meat = 0.25/0.5 · 2 = 1, se = 1/8.
    expect(res.se).toBeCloseTo(0.125, 12);
    const t = studentTQuantile(0.95, 1);
    expect(res.ci![0]).toBeCloseTo(0.125 - t * 0.125, 12);
    expect(res.ci![1]).toBeCloseTo(0.125 + t * 0.125, 12);
  });

  it("a ratio above 1 read as a proportion is clamped to 1 for the Wilson form", () => {
    const res = clusterRobustRatio([
      { num: 5, den: 4 },
      { num: 5, den: 4 },
    ]);
    expect(res.estimate).toBe(1.25);
    expect(res.ci![1]).toBe(1);
    expect(res.ci![0]).toBeGreaterThan(0);
    expect(res.ci![0]).toBeLessThan(1);
  });
});

describe("intervalHeader", () => {
  it("warns below MIN_WORLDS worlds, in the singular for one, and not at the minimum", () => {
    expect(MIN_WORLDS).toBe(10);
    expect(REPORT_LEVEL).toBe(0.9);
    expect(intervalHeader(10)).toEqual({
      method: INTERVAL_METHOD,
      level: 0.9,
      clusters: 10,
      min_clusters: 10,
      warning: null,
    });
    expect(intervalHeader(9).warning).toBe(
      "only 9 worlds (fewer than 10): the intervals rest on few independent units and are wide, and one unusual world can move them; read them with care",
    );
    expect(intervalHeader(1).warning).toMatch(/^only 1 world \(fewer than 10\)/);
  });
});
