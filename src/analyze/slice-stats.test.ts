import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { computeSlices, sliceStats } from "./slice-stats.js";

describe("sliceStats", () => {
  it("uses scored trials as the denominator and splits failures by predicate group", () => {
    const s = sliceStats([
      trial("a", "v56-w01-sub01", 1, "pass"),
      trial("a", "v56-w01-sub01", 2, "fail", { g1_passed: false, g2_passed: true }),
      trial("a", "v56-w01-sub01", 3, "fail", { g1_passed: true, g2_passed: false }),
      trial("a", "v56-w01-sub01", 4, "fail", { g1_passed: true, g2_passed: false }),
      trial("a", "v56-w01-sub01", 5, "abstained", { g1_passed: null, g2_passed: null }),
      trial("a", "v56-w01-sub02", 1, "fail", { g1_passed: false, g2_passed: false }),
      trial("a", "v56-w01-sub02", 2, "harness_error"),
      trial("a", "v56-w01-sub02", 3, "unscored"),
    ]);
    expect(s.n).toBe(6);
    expect(s.unscored).toBe(2);
    expect(s.pass_rate).toBeCloseTo(1 / 6);
    expect(s.failures).toEqual({ g1_only: 0.2, g2_only: 0.4, both: 0.2, other: 0.2, n: 5 });
  });

  it("gives null, not NaN, for an empty slice", () => {
    expect(sliceStats([]).pass_rate).toBeNull();
    expect(sliceStats([trial("a", "v56-w01-sub01", 1, "unscored")]).pass_rate).toBeNull();
  });

  it("slices by kind, chain length, world and axis in natural order", () => {
    const s = computeSlices([
      trial("a", "v56-w02-chain-1to12", 1, "fail"),
      trial("a", "v56-w10-chain-1to02", 1, "pass"),
      trial("a", "v56-w02-sub01", 1, "pass", { axis: "auth" }),
    ]);
    expect(Object.keys(s.chain_by_length)).toEqual(["2", "12"]);
    expect(Object.keys(s.by_world)).toEqual(["w02", "w10"]);
    expect(s.by_axis.auth?.n).toBe(1);
    expect(s.chain.pass_rate).toBe(0.5);
    expect(s.solo.pass_rate).toBe(1);
  });
});
