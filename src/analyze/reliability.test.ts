import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { passHatK, reliability } from "./reliability.js";

describe("reliability", () => {
  it("computes the unbiased pass^k", () => {
    expect(passHatK(3, 4, 2)).toBeCloseTo(0.5);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passHatK(3, 4, 4)).toBe(0);
    expect(passHatK(2, 5, 1)).toBeCloseTo(0.4);
  });

  it("averages best-of-k, all-k-of-k and pass^k over tasks", () => {
    const outcomes: Record<string, Array<"pass" | "fail">> = {
      "v56-w01-sub01": ["pass", "pass", "pass"], // c=3
      "v56-w01-sub02": ["pass", "fail", "pass"], // c=2
      "v56-w01-sub03": ["fail", "fail", "fail"], // c=0
    };
    const recs = Object.entries(outcomes).flatMap(([task, os]) =>
      os.map((o, i) => trial("m", task, i + 1, o)),
    );
    // An unscored epoch is not a task epoch: sub04 has one scored epoch of two.
    recs.push(trial("m", "v56-w01-sub04", 1, "pass"), trial("m", "v56-w01-sub04", 2, "unscored"));
    const r = reliability(recs);
    expect(r.k).toBe(3);
    expect(r.tasks).toBe(4);
    expect(r.best_of_k).toBeCloseTo(3 / 4);
    expect(r.all_k_of_k).toBeCloseTo(2 / 4); // sub01, sub04
    // pass^3 over tasks with ≥3 epochs: (1 + 0 + 0) / 3.
    expect(r.pass_hat_k).toBeCloseTo(1 / 3);
    // pass^1 over all four: (1 + 2/3 + 0 + 1) / 4; pass^2: (1 + C(2,2)/C(3,2) + 0) / 3.
    expect(r.pass_hat_by_k["1"]).toBeCloseTo((1 + 2 / 3 + 1) / 4);
    expect(r.pass_hat_by_k["2"]).toBeCloseTo((1 + 1 / 3) / 3);
  });
});
