import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { consensusScreen } from "./consensus-screen.js";
import { independentErrorNull } from "./null-model.js";

describe("independentErrorNull", () => {
  it("predicts a chain from the product of the model's solo rates on subtasks 1..L of its world", () => {
    const recs = [
      // Model a, world w01: sub01 passes 1/2, sub02 passes 1/1 → chain-1to02 predicted 0.5.
      trial("a", "v56-w01-sub01", 1, "pass"),
      trial("a", "v56-w01-sub01", 2, "fail"),
      trial("a", "v56-w01-sub02", 1, "pass"),
      trial("a", "v56-w01-chain-1to02", 1, "fail"),
      // Model b, same world: sub01 1/1, sub02 1/4 → predicted 0.25; its chain passes.
      trial("b", "v56-w01-sub01", 1, "pass"),
      ...[1, 2, 3, 4].map((e) => trial("b", "v56-w01-sub02", e, e === 1 ? "pass" : "fail")),
      trial("b", "v56-w01-chain-1to02", 1, "pass"),
      // No solo data for w02: observed but not predicted.
      trial("a", "v56-w02-chain-1to02", 1, "fail"),
      // Unscored chains count nowhere.
      trial("a", "v56-w01-chain-1to02", 2, "unscored"),
      // Length 3 in w01: a has no sub03, so no prediction.
      trial("a", "v56-w01-chain-1to03", 1, "fail"),
    ];
    const screen = consensusScreen(recs, { minModels: 1 });
    expect(screen.flagged_cells).toEqual(["v56-w01-chain-1to03", "v56-w02-chain-1to02"]);
    const flagged = new Set(screen.flagged_cells);
    const nm = independentErrorNull(recs, (r) => !flagged.has(r.task_id));
    expect(nm["2"]).toEqual({
      observed: 1 / 3,
      predicted: (0.5 + 0.25) / 2,
      observed_clean: 1 / 2,
      predicted_clean: (0.5 + 0.25) / 2,
      n: 3,
      n_predicted: 2,
      n_clean: 2,
      n_predicted_clean: 2,
      // Gap over the predicted trials: ((0 − 0.5) + (1 − 0.25)) / 2, both in w01: one world, no interval.
      gap: 0.125,
      gap_ci90: null,
      gap_clean: 0.125,
      gap_clean_ci90: null,
      worlds: 2,
    });
    expect(nm["3"]?.predicted).toBeNull();
    expect(nm["3"]?.observed_clean).toBeNull();
  });

  it("gives the observed − predicted gap a cluster-robust interval over worlds", () => {
    // Three worlds, each with solo sub01 and sub02 passed (predicted 1): the chain fails in w01
    // and passes in w02, w03, so the gaps are −1, 0, 0. Estimate −1/3; CR2 residuals −2/3, 1/3, 1/3,
    // leverage 1/3 each: se = √((4/9 + 1/9 + 1/9) / (2/3)) / 3 = 1/3; t₀.₉₅(2) = 2.919986.
    const recs = ["w01", "w02", "w03"].flatMap((w) => [
      trial("a", `v56-${w}-sub01`, 1, "pass"),
      trial("a", `v56-${w}-sub02`, 1, "pass"),
      trial("a", `v56-${w}-chain-1to02`, 1, w === "w01" ? "fail" : "pass"),
    ]);
    const nm = independentErrorNull(recs, () => true);
    expect(nm["2"]?.gap).toBeCloseTo(-1 / 3, 12);
    expect(nm["2"]?.worlds).toBe(3);
    const [lo, hi] = nm["2"]!.gap_ci90!;
    expect(lo).toBe(-1); // −1/3 − 0.973 is below −1: cut to the bound.
    expect(hi).toBeCloseTo(-1 / 3 + 2.919986 / 3, 5);
  });
});
