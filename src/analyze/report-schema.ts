import { z } from "zod";
import { OutcomeSchema } from "../run/trial-record.js";
import { IntervalHeaderSchema } from "./cluster-robust.js";
import { ScreenSchema } from "./consensus-screen.js";
import { CostSummarySchema, FrontierSchema } from "./cost.js";
import { FailedRequirementSchema } from "./failed-requirements.js";
import { ItemAnalysisSchema } from "./item-analysis.js";
import { NullModelPointSchema } from "./null-model.js";
import { ReliabilitySchema } from "./reliability.js";
import { SliceStatsSchema, SlicesSchema } from "./slice-stats.js";

export const REPORT_VERSION = 2;

const SpreadSchema = z.object({
  solo: z.number().nullable(),
  chain: z.number().nullable(),
  chain_by_length: z.record(z.string(), z.number().nullable()),
  by_axis: z.record(z.string(), z.number().nullable()),
  by_world: z.record(z.string(), z.number().nullable()),
});
export type Spread = z.infer<typeof SpreadSchema>;

const TrialCountsSchema = z.object({
  total: z.number().int(),
  scored: z.number().int(),
  unscored: z.number().int(),
});

export const ModelReportSchema = ReliabilitySchema.extend({
  /** Pooled pass rate over the agent's scored trials. */
  pass_rate: z.number().nullable(),
  n: z.number().int(),
  /** 90% cluster-robust interval of `pass_rate` over worlds (the method is in `Report.interval`). */
  ci90: z.tuple([z.number(), z.number()]).nullable(),
  /** The agent's trials, with how each ended (`agent_error` is scored; provider/harness errors are not). */
  trials: TrialCountsSchema.extend({ by_outcome: z.partialRecord(OutcomeSchema, z.number().int()) }),
  slices: SlicesSchema,
  clean: SlicesSchema,
  cost: CostSummarySchema,
  /** The independent-error null of this agent alone (the report's `null_model` pools every agent). */
  null_model: z.record(z.string(), NullModelPointSchema),
});
export type ModelReport = z.infer<typeof ModelReportSchema>;

/**
 * The report `apiflow report --json` writes: every figure of DESIGN.md §8, computed only from the
 * stored trials (re-reporting never re-runs an agent). Fractions are in [0, 1]; denominators are
 * scored trials; a figure with no data is null.
 *
 * @example ReportSchema.parse(JSON.parse(readFileSync("report.json", "utf8"))).models["gpt-5-mini"].ci90
 */
export const ReportSchema = z.object({
  report_version: z.literal(REPORT_VERSION),
  bank_hashes: z.array(z.string()),
  runs: z.array(z.object({ dir: z.string(), trials: z.number().int() })),
  /** How every interval of the report was computed, on how many worlds, and any warning. */
  interval: IntervalHeaderSchema,
  trials: TrialCountsSchema.extend({ by_outcome: z.partialRecord(OutcomeSchema, z.number().int()) }),
  slices: SlicesSchema.extend({ by_model: z.record(z.string(), SliceStatsSchema) }),
  clean: SlicesSchema.extend({ by_model: z.record(z.string(), SliceStatsSchema) }),
  screen: ScreenSchema,
  models: z.record(z.string(), ModelReportSchema),
  /** Across models: max − min of each slice's pass rate. */
  spread: SpreadSchema,
  /** The same on the log-odds scale. */
  spread_log_odds: SpreadSchema,
  null_model: z.record(z.string(), NullModelPointSchema),
  cost: z.object({ frontier: FrontierSchema }),
  /** The item analysis (`apiflow report --items`). */
  items: ItemAnalysisSchema.optional(),
  /** Which ticket requirements failed first, most failed trials first (absent in older reports). */
  failed_requirements: z.array(FailedRequirementSchema).optional(),
});
export type Report = z.infer<typeof ReportSchema>;
