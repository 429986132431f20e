import { describe, expect, it } from "vitest";
import { buildReport } from "./build-report.js";
import { ReportSchema } from "./report-schema.js";
import { trial } from "./test-records.js";

describe("buildReport", () => {
  const recs = [
    // Model a: solo 2/2, chain L=2 passes in w01, fails in w02.
    trial("a", "v56-w01-sub01", 1, "pass"),
    trial("a", "v56-w01-sub02", 1, "pass"),
    trial("a", "v56-w01-chain-1to02", 1, "pass"),
    trial("a", "v56-w02-chain-1to02", 1, "fail", { g1_passed: true, g2_passed: false }),
    // Model b: solo 1/2, chain fails everywhere; one harness error.
    trial("b", "v56-w01-sub01", 1, "pass"),
    trial("b", "v56-w01-sub02", 1, "fail"),
    trial("b", "v56-w01-chain-1to02", 1, "fail"),
    trial("b", "v56-w02-chain-1to02", 1, "fail"),
    trial("b", "v56-w02-chain-1to02", 2, "harness_error"),
  ];

  it("fills the report schema with hand-checkable figures", () => {
    const r = ReportSchema.parse(buildReport(recs, { resamples: 100, seed: "x", screenMinModels: 2 }));
    expect(r.trials).toMatchObject({ total: 9, scored: 8, unscored: 1 });
    expect(r.slices.solo).toMatchObject({ n: 4, passes: 3, pass_rate: 0.75 });
    expect(r.slices.chain_by_length["2"]).toMatchObject({ n: 4, passes: 1 });
    // w02-chain-1to02 is passed by no one: flagged, and the clean chain slice is w01's only.
    expect(r.screen).toMatchObject({ flagged_cells: ["v56-w02-chain-1to02"], flagged_trials: 2 });
    // The null per model: a's solo rates in w01 predict its chain passes, b's predict it fails.
    expect(r.models.a?.null_model["2"]).toMatchObject({ predicted: 1 });
    expect(r.models.b?.null_model["2"]).toMatchObject({ predicted: 0 });
    // With two models the screen is below its default minimum: not computed, and says so.
    expect(buildReport(recs, { resamples: 0 }).screen).toMatchObject({ computed: false, flagged_cells: [] });
    expect(r.clean.chain).toMatchObject({ n: 2, passes: 1 });
    expect(r.models.a).toMatchObject({ pass_rate: 0.75, n: 4, k: 1, best_of_k: 0.75, all_k_of_k: 0.75 });
    expect(r.models.b?.trials).toEqual({
      total: 5,
      scored: 4,
      unscored: 1,
      by_outcome: { pass: 1, fail: 3, harness_error: 1 },
    });
    expect(r.spread.solo).toBeCloseTo(0.5);
    expect(r.spread.chain).toBeCloseTo(0.5);
    // Null for L=2: a in w01 → 1·1, b in w01 → 1·0; w02 has no solo data.
    expect(r.null_model["2"]).toMatchObject({ observed: 0.25, predicted: 0.5, n: 4, n_predicted: 2 });
    expect(r.null_model["2"]).toMatchObject({ observed_clean: 0.5, predicted_clean: 0.5 });
    expect(r.slices.by_model.a?.failures).toMatchObject({ g2_only: 1, n: 1 });
  });

  it("is deterministic for a seed", () => {
    expect(buildReport(recs, { seed: "s" })).toEqual(buildReport(recs, { seed: "s" }));
  });
});
