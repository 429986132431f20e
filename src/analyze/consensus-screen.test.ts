import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { cleanSlice, consensusScreen, MIN_SCREEN_MODELS } from "./consensus-screen.js";

describe("consensusScreen", () => {
  it("flags chain cells no model passes in any epoch, and the clean slice drops them", () => {
    const recs = [
      trial("a", "v56-w01-chain-1to05", 1, "fail"),
      trial("b", "v56-w01-chain-1to05", 1, "abstained"),
      trial("b", "v56-w01-chain-1to05", 2, "unscored"),
      trial("a", "v56-w01-chain-1to06", 1, "fail"),
      trial("b", "v56-w01-chain-1to06", 1, "pass"),
      trial("a", "v56-w01-chain-1to07", 1, "harness_error"),
      trial("a", "v56-w01-sub01", 1, "fail"),
    ];
    const screen = consensusScreen(recs, { minModels: 2 });
    expect(screen).toMatchObject({
      flagged_cells: ["v56-w01-chain-1to05"],
      flagged_trials: 2,
      computed: true,
    });
    const clean = cleanSlice(recs, screen);
    expect(clean.map((r) => r.task_id)).not.toContain("v56-w01-chain-1to05");
    expect(clean).toHaveLength(4);
  });

  it("is not computed below its minimum of models, and then flags nothing", () => {
    const recs = [trial("a", "v56-w01-chain-1to05", 1, "fail"), trial("b", "v56-w01-chain-1to05", 1, "fail")];
    expect(MIN_SCREEN_MODELS).toBe(3);
    expect(consensusScreen(recs)).toEqual({
      flagged_cells: [],
      flagged_trials: 0,
      computed: false,
      models: 2,
      min_models: 3,
    });
    expect(consensusScreen(recs.slice(0, 1), { minModels: 1 }).flagged_cells).toEqual([
      "v56-w01-chain-1to05",
    ]);
  });
});
