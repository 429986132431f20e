import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import { clusterRobustRatio, REPORT_LEVEL } from "./cluster-robust.js";
import { naturalCompare } from "./slice-stats.js";

export const ITEM_FLAGS = ["all_pass", "none_pass", "negative_discrimination"] as const;
export const ItemFlagSchema = z.enum(ITEM_FLAGS);
export type ItemFlag = z.infer<typeof ItemFlagSchema>;

/** Discrimination needs at least this many models with a scored trial of the task. */
export const MIN_MODELS_FOR_DISCRIMINATION = 3;

/**
 * A model's rest score counts only when it rests on this many other scored trials. With few, the
 * rest score is mostly the item itself taken away: in the published sample every model has 6
 * passes in 10 trials, so its rest score is (6 − x) / 9 and the correlation is −1 by arithmetic on
 * every task, whatever the task does. The 1.0 leaderboard has ~2,335 trials a model.
 */
export const MIN_REST_TRIALS = 30;

/** One task of the bank as an item of a test. */
export const ItemSchema = z.object({
  task_id: z.string(),
  world: z.string(),
  kind: z.enum(["solo", "chain"]),
  /** Chain length (chains) or storyline position (solo). */
  length: z.number().int().nullable(),
  position: z.number().int().nullable(),
  axis: z.string().nullable(),
  /** Scored trials of the task, over every model and epoch. */
  trials: z.number().int(),
  passes: z.number().int(),
  /** Models with at least one scored trial of the task. */
  models: z.number().int(),
  /** Pass rate across models (passes / scored trials): high is easy. */
  difficulty: z.number().nullable(),
  /**
   * 90% interval of `difficulty` by the report's method with models as the clusters (a task's
   * epochs by one model are not independent): Wilson's at the effective sample size.
   */
  difficulty_ci90: z.tuple([z.number(), z.number()]).nullable(),
  /**
   * Corrected item–rest correlation: over the task's scored trials, the correlation of passing it
   * with the model's pass rate on every other task. Null below three models whose rest score rests
   * on ≥ 30 trials, or when the task or the models do not vary (a task everyone passes separates
   * no one).
   */
  discrimination: z.number().nullable(),
  flags: z.array(ItemFlagSchema),
});
export type Item = z.infer<typeof ItemSchema>;

/** How difficulty spreads across the tasks of one axis or one world. */
export const ItemSpreadSchema = z.object({
  tasks: z.number().int(),
  mean: z.number().nullable(),
  sd: z.number().nullable(),
  min: z.number().nullable(),
  median: z.number().nullable(),
  max: z.number().nullable(),
  all_pass: z.number().int(),
  none_pass: z.number().int(),
  negative_discrimination: z.number().int(),
});
export type ItemSpread = z.infer<typeof ItemSpreadSchema>;

export const ItemAnalysisSchema = z.object({
  method: z.object({ difficulty: z.string(), discrimination: z.string() }),
  /** Every task with a scored trial, in natural task order. */
  items: z.array(ItemSchema),
  /** All tasks, then by axis (when the bank knows axes) and by world. */
  all: ItemSpreadSchema,
  by_axis: z.record(z.string(), ItemSpreadSchema),
  by_world: z.record(z.string(), ItemSpreadSchema),
  /** Tasks whose discrimination is defined. */
  discrimination_defined: z.number().int(),
});
export type ItemAnalysis = z.infer<typeof ItemAnalysisSchema>;

function spreadOf(items: readonly Item[]): ItemSpread {
  const d = items.map((i) => i.difficulty).filter((x): x is number => x !== null);
  d.sort((a, b) => a - b);
  const mean = d.length ? d.reduce((a, b) => a + b, 0) / d.length : null;
  const sd =
    mean !== null && d.length > 1
      ? Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / (d.length - 1))
      : null;
  const mid = d.length / 2;
  const count = (f: ItemFlag) => items.filter((i) => i.flags.includes(f)).length;
  return {
    tasks: items.length,
    mean,
    sd,
    min: d.length ? d[0]! : null,
    median: d.length ? (d.length % 2 ? d[Math.floor(mid)]! : (d[mid - 1]! + d[mid]!) / 2) : null,
    max: d.length ? d[d.length - 1]! : null,
    all_pass: count("all_pass"),
    none_pass: count("none_pass"),
    negative_discrimination: count("negative_discrimination"),
  };
}

function spreadsBy(items: readonly Item[], key: (i: Item) => string | null): Record<string, ItemSpread> {
  const groups = new Map<string, Item[]>();
  for (const i of items) {
    const k = key(i);
    if (k === null) continue;
    const list = groups.get(k) ?? [];
    list.push(i);
    groups.set(k, list);
  }
  return Object.fromEntries(
    [...groups.keys()].sort(naturalCompare).map((k) => [k, spreadOf(groups.get(k)!)]),
  );
}

/**
 * Item analysis of the bank from stored trials: per task its difficulty with an interval, its
 * discrimination and its flags (passed by every model in every epoch, by none, or passed more by
 * weaker models than stronger ones), and per axis and world the spread of difficulty.
 *
 * Discrimination is the corrected item–rest correlation (point-biserial of passing the task
 * against the model's pass rate on all *other* tasks), chosen over a two-parameter IRT fit because
 * of what the 1.0 data look like:
 * - A 2PL fit has no finite estimate for a task every model passes or none does, and those are the
 *   tasks the flags are for: the consensus screen exists because the 1.0 data have chain cells that
 *   no model passes in any epoch.
 * - With 19 models, ability is pinned down by the rest score about as well as by a latent trait:
 *   the 2PL would add one slope per task to fit from at most 19 × 5 correlated trials.
 * - On the published sample (242 trials, one to four models a task, ten trials a model) nothing
 *   per task can be estimated: a 2PL has no data, and even the item–rest correlation is −1 by
 *   construction there (see `MIN_REST_TRIALS`), so it returns null rather than a number the data
 *   cannot support; the flags for all-pass and none-pass tasks still hold.
 * The rest score, not the total, because the task would otherwise correlate with itself: the bias is
 * negligible over 467 tasks but large on a small run.
 *
 * @example const items = itemAnalysis(records); items.items.filter((i) => i.flags.includes("none_pass"))
 */
export function itemAnalysis(
  records: readonly TrialRecord[],
  opts: { minRestTrials?: number } = {},
): ItemAnalysis {
  const minRest = opts.minRestTrials ?? MIN_REST_TRIALS;
  const perModel = new Map<string, { n: number; passes: number }>();
  const perTask = new Map<
    string,
    { first: TrialRecord; models: Map<string, { n: number; passes: number }> }
  >();
  for (const r of records) {
    if (!isScored(r)) continue;
    const pass = r.passed ? 1 : 0;
    const m = perModel.get(r.agent) ?? { n: 0, passes: 0 };
    m.n++;
    m.passes += pass;
    perModel.set(r.agent, m);
    const t = perTask.get(r.task_id) ?? { first: r, models: new Map() };
    perTask.set(r.task_id, t);
    const tm = t.models.get(r.agent) ?? { n: 0, passes: 0 };
    tm.n++;
    tm.passes += pass;
    t.models.set(r.agent, tm);
  }

  const items: Item[] = [...perTask.keys()].sort(naturalCompare).map((taskId) => {
    const { first, models } = perTask.get(taskId)!;
    const cells = [...models.entries()];
    const trials = cells.reduce((a, [, c]) => a + c.n, 0);
    const passes = cells.reduce((a, [, c]) => a + c.passes, 0);
    const robust = clusterRobustRatio(
      cells.map(([, c]) => ({ num: c.passes, den: c.n })),
      { level: REPORT_LEVEL },
    );
    const difficulty = trials ? passes / trials : null;

    // Trial-level correlation from sums: x = passed, y = the model's rest score.
    let discrimination: number | null = null;
    const usable = cells.filter(([agent, c]) => perModel.get(agent)!.n - c.n >= minRest);
    if (usable.length >= MIN_MODELS_FOR_DISCRIMINATION) {
      let N = 0;
      let sx = 0;
      let sy = 0;
      let sxy = 0;
      let syy = 0;
      for (const [agent, c] of usable) {
        const all = perModel.get(agent)!;
        const y = (all.passes - c.passes) / (all.n - c.n);
        N += c.n;
        sx += c.passes;
        sy += c.n * y;
        sxy += c.passes * y;
        syy += c.n * y * y;
      }
      const vx = N * sx - sx * sx;
      const vy = N * syy - sy * sy;
      // Relative guard: rest scores equal to rounding make vy a tiny float, not zero.
      if (vx > 0 && vy > 1e-12 * N * syy) discrimination = (N * sxy - sx * sy) / Math.sqrt(vx * vy);
    }
    const flags: ItemFlag[] = [];
    if (trials > 0 && passes === trials) flags.push("all_pass");
    if (trials > 0 && passes === 0) flags.push("none_pass");
    if (discrimination !== null && discrimination < 0) flags.push("negative_discrimination");
    return {
      task_id: taskId,
      world: first.world,
      kind: first.kind,
      length: first.length,
      position: first.position,
      axis: first.axis,
      trials,
      passes,
      models: models.size,
      difficulty,
      difficulty_ci90: robust.ci,
      discrimination,
      flags,
    };
  });

  return {
    method: {
      difficulty:
        "pass rate over scored trials; 90% cluster-robust interval (CR2, t(M−1), Wilson form) with the M models as clusters",
      discrimination: `corrected item–rest correlation (point-biserial against the model's pass rate on the other tasks; ≥ ${MIN_MODELS_FOR_DISCRIMINATION} models with ≥ ${minRest} other trials each)`,
    },
    items,
    all: spreadOf(items),
    by_axis: spreadsBy(items, (i) => i.axis),
    by_world: spreadsBy(items, (i) => i.world),
    discrimination_defined: items.filter((i) => i.discrimination !== null).length,
  };
}
