import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { buildReport } from "./build-report.js";
import { reportMarkdown } from "./format-tables.js";
import { ReportSchema } from "./report-schema.js";

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

  it("names the interval method and worlds, warns below the minimum, and puts an interval on every slice", () => {
    const r = buildReport(recs);
    expect(r.interval).toMatchObject({ level: 0.9, clusters: 2, min_clusters: 10 });
    expect(r.interval.method).toMatch(/cluster-robust/);
    expect(r.interval.warning).toMatch(/only 2 worlds/);
    // Two worlds: all, chain and chain length 2 have intervals; solo lives in w01 only (one cluster).
    expect(r.slices.all.clusters).toBe(2);
    expect(r.slices.all.ci90).not.toBeNull();
    expect(r.slices.solo).toMatchObject({ clusters: 1, ci90: null });
    // A single world's slice clusters by task: w01 has three tasks.
    expect(r.slices.by_world.w01?.clusters).toBe(3);
    expect(r.models.a?.best_of_k_ci90).not.toBeNull();
    expect(r.models.a?.all_k_of_k_ci90).not.toBeNull();
    expect(r.items).toBeUndefined();
    const md = reportMarkdown(r);
    expect(md).toContain("**Warning:** only 2 worlds");
    expect(md).not.toContain("Items (per task)");
  });

  it("adds the item analysis on request, in JSON and Markdown", () => {
    const r = ReportSchema.parse(buildReport(recs, { items: true }));
    // w02-chain-1to02 is passed by no one (as the screen says); w01-sub01 by both models.
    expect(r.items?.items.find((i) => i.task_id === "v56-w02-chain-1to02")?.flags).toEqual(["none_pass"]);
    expect(r.items?.items.find((i) => i.task_id === "v56-w01-sub01")?.flags).toEqual(["all_pass"]);
    const md = reportMarkdown(r);
    expect(md).toContain("### Items (per task)");
    expect(md).toMatch(/\| v56-w02-chain-1to02 \|.*\| none pass \|/);
  });

  it("is deterministic for a seed", () => {
    expect(buildReport(recs, { seed: "s" })).toEqual(buildReport(recs, { seed: "s" }));
  });
});
