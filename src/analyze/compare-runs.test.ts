import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { mddFactor } from "./cluster-robust.js";
import { compareRuns } from "./compare-runs.js";

describe("compareRuns", () => {
  it("computes flip rate, paired difference and its interval", () => {
    // Two tasks in each of two worlds; A passes sub01 everywhere, B passes everything.
    const tasks = ["v56-w01-sub01", "v56-w01-sub02", "v56-w02-sub01", "v56-w02-sub02"];
    const a = tasks.map((t) => trial("m", t, 1, t.endsWith("sub01") ? "pass" : "fail"));
    const b = tasks.map((t) => trial("m", t, 1, "pass"));
    const res = compareRuns(a, b, { resamples: 500 });
    if (!res.success) throw new Error(res.error.message);
    const o = res.data.overall;
    expect(o.tasks).toBe(4);
    expect(o.pass_rate_a).toBe(0.5);
    expect(o.pass_rate_b).toBe(1);
    expect(o.diff).toBe(0.5);
    expect(o.flip_rate).toBe(0.5);
    expect(o.flips_up).toBe(0.5);
    expect(o.flips_down).toBe(0);
    // Every world has the same difference, so the paired interval has no width.
    expect(o.ci90).toEqual([0.5, 0.5]);
    expect(o.mdd).toBe(0);
  });

  it("gives the paired difference a cluster-robust interval and the MDD at the same level", () => {
    // Three worlds, one task each; B − A per world: 1, 0, 0 → diff 1/3, se 1/3 (CR2, hand-computed
    // in null-model.test.ts for the mirror case), MDD = (t₀.₉₅(2) + t₀.₈₀(2)) × se.
    const worlds = ["w01", "w02", "w03"];
    const a = worlds.map((w) => trial("m", `v56-${w}-sub01`, 1, "fail"));
    const b = worlds.map((w) => trial("m", `v56-${w}-sub01`, 1, w === "w01" ? "pass" : "fail"));
    const res = compareRuns(a, b);
    if (!res.success) throw new Error(res.error.message);
    const o = res.data.overall;
    expect(o.diff).toBeCloseTo(1 / 3, 12);
    expect(o.se).toBeCloseTo(1 / 3, 12);
    expect(o.clusters).toBe(3);
    expect(o.mdd).toBeCloseTo(mddFactor(0.9, 3)! / 3, 12);
    expect(o.ci90![0]).toBeCloseTo(1 / 3 - 2.919986 / 3, 5);
    expect(o.ci90![1]).toBe(1); // 1/3 + 0.973 is above 1: cut to the bound.
    expect(res.data.interval).toMatchObject({ level: 0.9, clusters: 3, min_clusters: 10 });
    expect(res.data.interval.warning).toMatch(/only 3 worlds/);
  });

  it("uses the expected disagreement of epochs as the flip rate", () => {
    // Task pass rates A = 1/2, B = 1/2: a random epoch of each disagrees half the time.
    const a = [trial("m", "v56-w01-sub01", 1, "pass"), trial("m", "v56-w01-sub01", 2, "fail")];
    const b = [trial("m", "v56-w01-sub01", 1, "fail"), trial("m", "v56-w01-sub01", 2, "pass")];
    const res = compareRuns(a, b, { resamples: 10 });
    expect(res.success && res.data.overall.flip_rate).toBe(0.5);
    expect(res.success && res.data.overall.diff).toBe(0);
  });

  it("pairs two single-agent runs and refuses different banks", () => {
    const a = [trial("x", "v56-w01-sub01", 1, "pass")];
    const b = [trial("y", "v56-w01-sub01", 1, "fail")];
    const res = compareRuns(a, b, { resamples: 10 });
    expect(res.success && res.data.pairing).toBe("single_agents");
    expect(res.success && Object.keys(res.data.agents)).toEqual(["x vs y"]);
    const other = compareRuns(a, [trial("x", "v56-w01-sub01", 1, "pass", { bank_hash: "other" })]);
    expect(other.success).toBe(false);
    if (!other.success) expect(other.error.code).toBe("bank_mismatch");
  });
});
