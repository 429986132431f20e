import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { independentErrorNull } from "./null-model.js";

/**
 * The independent-error null at its edges (issue 21: mutation testing): which solo trials feed a
 * chain's prediction (same bank, agent, world; scored only), and how the clean slice splits it.
 */
describe("independentErrorNull: whose solo rates predict a chain", () => {
  it("only the same bank's, agent's and world's scored solo trials", () => {
    const recs = [
      // Agent a, world w01, bank-test: sub01 1/2, sub02 1/1 → predicted 0.5.
      trial("a", "v56-w01-sub01", 1, "pass"),
      trial("a", "v56-w01-sub01", 2, "fail"),
      trial("a", "v56-w01-sub02", 1, "pass"),
      // Unscored solo trials count nowhere.
      trial("a", "v56-w01-sub01", 3, "harness_error"),
      trial("a", "v56-w01-sub02", 2, "provider_error"),
      // Another agent, another world, another bank: none of them is a's rate in w01.
      trial("b", "v56-w01-sub01", 1, "fail"),
      trial("a", "v56-w02-sub01", 1, "fail"),
      trial("a", "v56-w01-sub01", 1, "fail", { bank_hash: "other" }),
      trial("a", "v56-w01-chain-1to02", 1, "pass"),
    ];
    const nm = independentErrorNull(recs, () => true);
    expect(nm["2"]).toMatchObject({ predicted: 0.5, n_predicted: 1, observed: 1, gap: 0.5 });
  });

  it("a chain whose first subtask has no solo trial has no prediction, even if later ones do", () => {
    const recs = [trial("a", "v56-w01-sub02", 1, "pass"), trial("a", "v56-w01-chain-1to02", 1, "pass")];
    const nm = independentErrorNull(recs, () => true);
    expect(nm["2"]).toMatchObject({ n: 1, n_predicted: 0, predicted: null, gap: null, gap_ci90: null });
  });

  it("the clean slice keeps its own counts, prediction and gap", () => {
    const recs = [
      ...["w01", "w02"].flatMap((w) => [
        trial("a", `v56-${w}-sub01`, 1, "pass"),
        trial("a", `v56-${w}-sub01`, 2, "fail"),
      ]),
      // Length 1 chains: predicted 0.5 each. w01's passes (gap +0.5), w02's fails (gap −0.5).
      trial("a", "v56-w01-chain-1to01", 1, "pass"),
      trial("a", "v56-w02-chain-1to01", 1, "fail"),
    ];
    // Only w01's chain is clean.
    const nm = independentErrorNull(recs, (r) => r.world === "w01");
    expect(nm["1"]).toMatchObject({
      observed: 0.5,
      predicted: 0.5,
      observed_clean: 1,
      predicted_clean: 0.5,
      n: 2,
      n_predicted: 2,
      n_clean: 1,
      n_predicted_clean: 1,
      gap: 0,
      gap_clean: 0.5,
      gap_clean_ci90: null,
      worlds: 2,
    });
    // Two worlds' gaps +0.5 and −0.5: an interval cut to [−1, 1].
    expect(nm["1"]!.gap_ci90).not.toBeNull();
    expect(nm["1"]!.gap_ci90![0]).toBe(-1);
    expect(nm["1"]!.gap_ci90![1]).toBe(1);
  });

  it("solo and unscored chain trials make no point; each length is its own point", () => {
    const recs = [
      trial("a", "v56-w01-sub01", 1, "pass"),
      trial("a", "v56-w01-chain-1to01", 1, "unscored"),
      trial("a", "v56-w01-chain-1to02", 1, "fail"),
    ];
    const nm = independentErrorNull(recs, () => true);
    expect(Object.keys(nm)).toEqual(["2"]);
    expect(nm["2"]).toMatchObject({ n: 1, observed: 0, n_predicted: 0 });
  });
});
