import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { compareRuns } from "./compare-runs.js";

/**
 * compareRuns at its edges (issue 21: mutation testing): what pairs with what, what is left out,
 * the refusals word for word, and the per-agent breakdown.
 */
describe("compareRuns: refusals", () => {
  it("two empty runs are of no bank", () => {
    expect(compareRuns([], [])).toEqual({
      success: false,
      error: {
        code: "bank_mismatch",
        message: "the runs are of different banks (none); only runs of one bank compare",
      },
    });
  });

  it("names both banks when they differ", () => {
    const res = compareRuns(
      [trial("m", "v56-w01-sub01", 1, "pass")],
      [trial("m", "v56-w01-sub01", 1, "pass", { bank_hash: "other" })],
    );
    expect(res).toEqual({
      success: false,
      error: {
        code: "bank_mismatch",
        message: "the runs are of different banks (bank-test vs other); only runs of one bank compare",
      },
    });
  });

  it("several agents on each side and none shared: nothing to pair", () => {
    const a = [trial("m", "v56-w01-sub01", 1, "pass"), trial("n", "v56-w01-sub01", 1, "pass")];
    const b = [trial("o", "v56-w01-sub01", 1, "pass"), trial("p", "v56-w01-sub01", 1, "pass")];
    expect(compareRuns(a, b)).toEqual({
      success: false,
      error: { code: "no_pairs", message: "the runs share no agent to pair trials by" },
    });
    // One agent against two: still no pairing.
    expect(compareRuns(a.slice(0, 1), b)).toMatchObject({ success: false, error: { code: "no_pairs" } });
    expect(compareRuns(a, b.slice(0, 1))).toMatchObject({ success: false, error: { code: "no_pairs" } });
  });

  it("an agent shared but no task scored in both runs", () => {
    expect(
      compareRuns(
        [trial("m", "v56-w01-sub01", 1, "pass"), trial("m", "v56-w01-sub02", 1, "unscored")],
        [trial("m", "v56-w01-sub02", 1, "pass")],
      ),
    ).toEqual({ success: false, error: { code: "no_pairs", message: "no task was scored in both runs" } });
  });
});

describe("compareRuns: pairing", () => {
  it("pairs by the shared agents only, sorted naturally; an agent without common tasks has an empty row", () => {
    const a = [
      trial("m10", "v56-w01-sub01", 1, "pass"),
      trial("m2", "v56-w01-sub01", 1, "fail"),
      trial("m2", "v56-w02-sub01", 1, "pass"),
      trial("only-a", "v56-w01-sub01", 1, "pass"),
      trial("lonely", "v56-w01-sub01", 1, "pass"),
    ];
    const b = [
      trial("m10", "v56-w01-sub01", 1, "fail"),
      trial("m2", "v56-w01-sub01", 1, "pass"),
      trial("m2", "v56-w02-sub01", 1, "pass"),
      trial("only-b", "v56-w01-sub01", 1, "fail"),
      trial("lonely", "v56-w03-sub01", 1, "pass"),
    ];
    const res = compareRuns(a, b);
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.pairing).toBe("by_agent");
    expect(Object.keys(res.data.agents)).toEqual(["lonely", "m2", "m10"]);
    expect(res.data.agents.lonely).toEqual({
      tasks: 0,
      pass_rate_a: null,
      pass_rate_b: null,
      diff: null,
      ci90: null,
      se: null,
      mdd: null,
      clusters: 0,
      flip_rate: null,
      flips_up: null,
      flips_down: null,
    });
    expect(res.data.agents.m10).toMatchObject({
      tasks: 1,
      pass_rate_a: 1,
      pass_rate_b: 0,
      diff: -1,
      flip_rate: 1,
      flips_up: 0,
      flips_down: 1,
      // One world: no interval, so no MDD either.
      ci90: null,
      se: null,
      mdd: null,
      clusters: 1,
    });
    expect(res.data.agents.m2).toMatchObject({ tasks: 2, pass_rate_a: 0.5, pass_rate_b: 1, diff: 0.5 });
    // Overall: the three paired tasks, w01 twice (−1 + 1) and w02 once (0).
    expect(res.data.overall).toMatchObject({ tasks: 3, diff: 0, clusters: 2 });
    expect(res.data.overall.pass_rate_a).toBeCloseTo(2 / 3, 12);
    expect(res.data.overall.flips_up).toBeCloseTo(1 / 3, 12);
    expect(res.data.overall.flips_down).toBeCloseTo(1 / 3, 12);
    expect(res.data.interval.clusters).toBe(2);
  });

  it("a task's rate is over its scored epochs only, in each run", () => {
    const a = [
      trial("m", "v56-w01-sub01", 1, "pass"),
      trial("m", "v56-w01-sub01", 2, "harness_error"),
      trial("m", "v56-w01-sub01", 3, "fail"),
    ];
    const b = [trial("m", "v56-w01-sub01", 1, "provider_error"), trial("m", "v56-w01-sub01", 2, "pass")];
    const res = compareRuns(a, b);
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.overall).toMatchObject({ tasks: 1, pass_rate_a: 0.5, pass_rate_b: 1, diff: 0.5 });
    // Disagreement of one epoch each: A fails and B passes with 1/2 · 1; never the other way.
    expect(res.data.overall).toMatchObject({ flip_rate: 0.5, flips_up: 0.5, flips_down: 0 });
  });
});
