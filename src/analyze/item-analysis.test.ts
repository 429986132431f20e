import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { openStore } from "../run/store.js";
import { consensusScreen } from "./consensus-screen.js";
import { importOfficial } from "./import-official.js";
import { itemAnalysis } from "./item-analysis.js";

/**
 * Three models (s strong, m middling, w weak-but-lucky), six tasks, two epochs each; every figure
 * below is worked out by hand in the comments.
 */
function sampleRecords() {
  // passes[task][model] = epochs passed of 2
  const passes: Record<string, { s: number; m: number; w: number; axis: string | null }> = {
    "v56-w01-sub01": { s: 2, m: 2, w: 2, axis: "auth" }, // every model, every epoch
    "v56-w01-sub02": { s: 0, m: 0, w: 0, axis: "auth" }, // no one
    "v56-w01-chain-1to02": { s: 0, m: 0, w: 0, axis: null }, // no one: a consensus-screen cell
    "v56-w02-sub01": { s: 0, m: 0, w: 2, axis: "pagination" }, // only the weakest: negative
    "v56-w02-sub02": { s: 2, m: 0, w: 0, axis: "pagination" }, // only the strongest
    "v56-w02-chain-1to02": { s: 2, m: 1, w: 0, axis: null },
  };
  const recs = Object.entries(passes).flatMap(([task, p]) =>
    (["s", "m", "w"] as const).flatMap((model) =>
      [1, 2].map((e) => trial(model, task, e, e <= p[model] ? "pass" : "fail", { axis: p.axis })),
    ),
  );
  // Unscored trials count nowhere (not even as a model's presence on a task).
  recs.push(trial("x", "v56-w02-sub02", 1, "harness_error"));
  return recs;
}

describe("itemAnalysis", () => {
  // Ten rest trials a model here: below the default minimum, so it is lowered for the hand example.
  const items = itemAnalysis(sampleRecords(), { minRestTrials: 1 });
  const by = (id: string) => items.items.find((i) => i.task_id === id)!;

  it("flags tasks passed by every model in every epoch, by none, and with negative discrimination", () => {
    expect(by("v56-w01-sub01").flags).toEqual(["all_pass"]);
    expect(by("v56-w01-sub02").flags).toEqual(["none_pass"]);
    expect(by("v56-w01-chain-1to02").flags).toEqual(["none_pass"]);
    expect(by("v56-w02-sub01").flags).toEqual(["negative_discrimination"]);
    expect(by("v56-w02-sub02").flags).toEqual([]);
    expect(by("v56-w02-chain-1to02").flags).toEqual([]);
    // Counted by hand from the table above: 1 all-pass, 2 none-pass, 1 negative.
    expect(items.all).toMatchObject({ tasks: 6, all_pass: 1, none_pass: 2, negative_discrimination: 1 });
  });

  it("computes difficulty and the corrected item–rest correlation by hand", () => {
    // Model totals over 12 trials: s 6, m 3, w 4.
    // w02-sub01, rest scores over the other 10 trials: s 6/10, m 3/10, w 2/10; x = 0,0,0,0,1,1.
    // N = 6, Σx = 2, Σy = 2.2, Σxy = 0.4, Σy² = 0.98: r = (6·0.4 − 2·2.2) / √((12 − 4)(5.88 − 4.84)).
    expect(by("v56-w02-sub01").discrimination).toBeCloseTo(-2 / Math.sqrt(8 * 1.04), 12);
    // w02-sub02, rest: s 4/10, m 3/10, w 4/10; x = 1,1,0,0,0,0: r = 0.4 / √(8 · 0.08) = 0.5.
    expect(by("v56-w02-sub02").discrimination).toBeCloseTo(0.5, 12);
    // Nobody or everybody passing: no variation, no correlation.
    expect(by("v56-w01-sub01").discrimination).toBeNull();
    expect(by("v56-w01-sub02").discrimination).toBeNull();
    expect(by("v56-w02-chain-1to02")).toMatchObject({ difficulty: 0.5, trials: 6, passes: 3, models: 3 });
    expect(by("v56-w02-sub02")).toMatchObject({ trials: 6, models: 3 });
    // The all-pass task's interval keeps a width (three models as clusters), inside [0, 1].
    const [lo, hi] = by("v56-w01-sub01").difficulty_ci90!;
    expect(lo).toBeGreaterThan(0);
    expect(lo).toBeLessThan(1);
    expect(hi).toBeCloseTo(1, 12);
  });

  it("gives the spread of difficulty per axis and per world", () => {
    // w01: 1, 0, 0 → mean 1/3, median 0; w02: 1/3, 1/3, 1/2 → mean 7/18.
    expect(items.by_world.w01).toMatchObject({
      tasks: 3,
      min: 0,
      median: 0,
      max: 1,
      all_pass: 1,
      none_pass: 2,
    });
    expect(items.by_world.w01?.mean).toBeCloseTo(1 / 3, 12);
    expect(items.by_world.w02?.mean).toBeCloseTo(7 / 18, 12);
    expect(items.by_world.w02?.negative_discrimination).toBe(1);
    // Chains have no axis; the solo tasks split 2 / 2.
    expect(Object.keys(items.by_axis)).toEqual(["auth", "pagination"]);
    expect(items.by_axis.auth).toMatchObject({ tasks: 2, all_pass: 1, none_pass: 1, mean: 0.5 });
    expect(items.by_axis.pagination).toMatchObject({ tasks: 2, negative_discrimination: 1 });
  });

  it("agrees with the consensus screen on the chain cells no model passes", () => {
    const recs = sampleRecords();
    const noneChains = itemAnalysis(recs, { minRestTrials: 1 })
      .items.filter((i) => i.kind === "chain" && i.flags.includes("none_pass"))
      .map((i) => i.task_id);
    expect(noneChains).toEqual(consensusScreen(recs).flagged_cells);
  });

  it("leaves discrimination undefined when rest scores rest on too few trials", () => {
    // Default minimum 30 other trials: the ten here are not enough, so nothing is flagged negative.
    const strict = itemAnalysis(sampleRecords());
    expect(strict.discrimination_defined).toBe(0);
    expect(strict.all.negative_discrimination).toBe(0);
    expect(strict.all).toMatchObject({ all_pass: 1, none_pass: 2 });
  });

  it("needs three models for a discrimination", () => {
    const two = itemAnalysis(
      [
        trial("a", "v56-w01-sub01", 1, "pass"),
        trial("b", "v56-w01-sub01", 1, "fail"),
        trial("a", "v56-w01-sub02", 1, "pass"),
        trial("b", "v56-w01-sub02", 1, "pass"),
      ],
      { minRestTrials: 1 },
    );
    expect(two.items.map((i) => i.discrimination)).toEqual([null, null]);
    expect(two.discrimination_defined).toBe(0);
  });
});

// The published 1.0 sample, when the environment says where it is (no network, no ../shared).
const SAMPLE = process.env.APIFLOW_OFFICIAL_SAMPLE;

describe.skipIf(!SAMPLE)("itemAnalysis on the imported 1.0 sample (APIFLOW_OFFICIAL_SAMPLE)", () => {
  it("counts flags as computed by hand and agrees with the consensus screen", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "apiflow-items-")), "run");
    const res = await importOfficial(SAMPLE!, out);
    if (!res.success) throw new Error(res.error.message);
    const store = openStore(out, { readonly: true });
    const recs = [...store.all()];
    store.close();
    const items = itemAnalysis(recs);
    // Counted from the transcripts' own `passed` field, outside this code (one Python pass over
    // the 242 files): 182 tasks, one of them (w02-chain-1to06) only unscored, so 181 items; 118
    // passed in every scored trial, 53 in none (29 of them chains).
    expect(items.items).toHaveLength(181);
    expect(items.all.all_pass).toBe(118);
    expect(items.all.none_pass).toBe(53);
    const noneChains = items.items
      .filter((i) => i.kind === "chain" && i.flags.includes("none_pass"))
      .map((i) => i.task_id);
    expect(noneChains).toHaveLength(29);
    expect(noneChains).toEqual(consensusScreen(recs).flagged_cells);
    // Ten trials a model: no rest score rests on 30 others, so no discrimination is claimed (with
    // the guard lowered, the four tasks that have three or more models all come out at −1, an
    // artefact of every model having 6 passes in 10).
    expect(items.discrimination_defined).toBe(0);
    const loose = itemAnalysis(recs, { minRestTrials: 1 });
    expect(loose.items.filter((i) => i.discrimination !== null).map((i) => i.discrimination)).toEqual(
      [-1, -1, -1, -1].map((x) => expect.closeTo(x, 9)),
    );
  });
});
