import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { cleanSlice, consensusScreen } from "./consensus-screen.js";

/** The consensus screen at its edges (issue 21: mutation testing). */
describe("consensusScreen: edges", () => {
  it("lists flagged cells in natural order and counts their scored trials and the models", () => {
    const recs = [
      trial("a", "v56-w10-chain-1to05", 1, "fail"),
      trial("b", "v56-w10-chain-1to05", 1, "fail"),
      trial("c", "v56-w02-chain-1to05", 1, "fail"),
      trial("c", "v56-w02-chain-1to05", 2, "fail"),
      trial("c", "v56-w02-chain-1to05", 3, "provider_error"),
      trial("a", "v56-w03-chain-1to05", 1, "pass"),
      // Solo trials and unscored chains are no model's evidence.
      trial("d", "v56-w01-sub01", 1, "fail"),
      trial("e", "v56-w01-chain-1to02", 1, "harness_error"),
    ];
    expect(consensusScreen(recs)).toEqual({
      flagged_cells: ["v56-w02-chain-1to05", "v56-w10-chain-1to05"],
      flagged_trials: 4,
      computed: true,
      models: 3,
      min_models: 3,
    });
  });

  it("the clean slice keeps solo trials and unflagged chains, in order", () => {
    const recs = [
      trial("a", "v56-w01-sub01", 1, "fail"),
      trial("a", "v56-w01-chain-1to02", 1, "fail"),
      trial("a", "v56-w01-chain-1to03", 1, "pass"),
    ];
    const clean = cleanSlice(recs, consensusScreen(recs, { minModels: 1 }));
    expect(clean.map((r) => r.task_id)).toEqual(["v56-w01-sub01", "v56-w01-chain-1to03"]);
  });
});
