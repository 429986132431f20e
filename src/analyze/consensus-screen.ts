import { z } from "zod";
import { isScored, type TrialRecord } from "../run/trial-record.js";
import { naturalCompare } from "./slice-stats.js";

export const ScreenSchema = z.object({
  /** Chain task ids (world × length cells) that no agent passed in any scored epoch. */
  flagged_cells: z.array(z.string()),
  /** Scored trials in the flagged cells. */
  flagged_trials: z.number().int(),
  /** False when fewer than `min_models` agents have scored chain trials: nothing is flagged. */
  computed: z.boolean(),
  /** Agents with scored chain trials, and the minimum the screen needs. */
  models: z.number().int(),
  min_models: z.number().int(),
});
export type Screen = z.infer<typeof ScreenSchema>;

/**
 * The fewest agents whose chain trials the consensus screen reads. With one or two models, "no
 * model passes this cell" says more about those models than about the cell, and the clean slice
 * would drop exactly their failures (one model: its chain rate becomes 100% of what it passed).
 */
export const MIN_SCREEN_MODELS = 3;

/**
 * The consensus screen: a chain cell that no model passes in any epoch may be broken rather than
 * hard, so every figure is also shown without it (the clean slice). Cells with no scored trial
 * are not flagged: there is no evidence either way.
 *
 * @example const screen = consensusScreen(records); const clean = cleanSlice(records, screen);
 */
export function consensusScreen(
  records: readonly TrialRecord[],
  options: { minModels?: number } = {},
): Screen {
  const minModels = options.minModels ?? MIN_SCREEN_MODELS;
  const cells = new Map<string, { n: number; passes: number }>();
  const agents = new Set<string>();
  for (const r of records) {
    if (r.kind !== "chain" || !isScored(r)) continue;
    agents.add(r.agent);
    const c = cells.get(r.task_id) ?? { n: 0, passes: 0 };
    c.n++;
    if (r.passed) c.passes++;
    cells.set(r.task_id, c);
  }
  const computed = agents.size >= minModels;
  const flagged = computed ? [...cells.entries()].filter(([, c]) => c.passes === 0) : [];
  return {
    flagged_cells: flagged.map(([id]) => id).sort(naturalCompare),
    flagged_trials: flagged.reduce((a, [, c]) => a + c.n, 0),
    computed,
    models: agents.size,
    min_models: minModels,
  };
}

/**
 * The trials outside the screen's flagged cells (every solo trial stays).
 *
 * @example cleanSlice(records, consensusScreen(records))
 */
export function cleanSlice(records: readonly TrialRecord[], screen: Screen): TrialRecord[] {
  const flagged = new Set(screen.flagged_cells);
  return records.filter((r) => !flagged.has(r.task_id));
}
