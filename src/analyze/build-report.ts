import { isScored, OUTCOMES, type Outcome, type TrialRecord } from "../run/trial-record.js";
import { intervalHeader } from "./cluster-robust.js";
import { cleanSlice, consensusScreen } from "./consensus-screen.js";
import { costFrontier, costSummary } from "./cost.js";
import { failedRequirements } from "./failed-requirements.js";
import { itemAnalysis } from "./item-analysis.js";
import { independentErrorNull } from "./null-model.js";
import { reliability } from "./reliability.js";
import { REPORT_VERSION, type Report, type Spread } from "./report-schema.js";
import { computeSlices, groupBy, naturalCompare, type SliceStats, slicesBy } from "./slice-stats.js";
import { spread } from "./spread.js";

export interface ReportOptions {
  /**
   * @deprecated Ignored: the intervals are closed-form (cluster-robust, `cluster-robust.ts`) since
   * report version 2. Accepted so callers written for the bootstrap still compile.
   */
  resamples?: number;
  /** @deprecated Ignored, as `resamples`. */
  seed?: string;
  /** Add the item analysis (`report.items`). */
  items?: boolean;
  /** Where the trials came from, recorded in the report. */
  runs?: Array<{ dir: string; trials: number }>;
  /** The consensus screen's minimum of models (default `MIN_SCREEN_MODELS`). */
  screenMinModels?: number;
}

function spreads(models: Report["models"]): { abs: Spread; logOdds: Spread } {
  const list = Object.values(models);
  const of = (pick: (m: Report["models"][string]) => SliceStats | undefined) =>
    spread(list.map(pick).filter((s): s is SliceStats => s !== undefined));
  const keys = (pick: (m: Report["models"][string]) => Record<string, SliceStats>) =>
    [...new Set(list.flatMap((m) => Object.keys(pick(m))))].sort(naturalCompare);
  const build = (which: "abs" | "log_odds"): Spread => {
    const rec = (pick: (m: Report["models"][string]) => Record<string, SliceStats>) =>
      Object.fromEntries(keys(pick).map((k) => [k, of((m) => pick(m)[k])[which]]));
    return {
      solo: of((m) => m.slices.solo)[which],
      chain: of((m) => m.slices.chain)[which],
      chain_by_length: rec((m) => m.slices.chain_by_length),
      by_axis: rec((m) => m.slices.by_axis),
      by_world: rec((m) => m.slices.by_world),
    };
  };
  return { abs: build("abs"), logOdds: build("log_odds") };
}

/** How many trials ended in each outcome, in the taxonomy's order. */
function outcomeCounts(records: readonly TrialRecord[]): Partial<Record<Outcome, number>> {
  const counts: Partial<Record<Outcome, number>> = {};
  for (const r of records) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
  return Object.fromEntries(OUTCOMES.filter((o) => counts[o]).map((o) => [o, counts[o]]));
}

/**
 * Every figure of the report from the stored trials of one bank. Pure and deterministic; every
 * interval is the cluster-robust one over worlds (`cluster-robust.ts`), so no seed is involved.
 *
 * @example const report = buildReport([...store.all()], { items: true });
 */
export function buildReport(records: readonly TrialRecord[], opts: ReportOptions = {}): Report {
  const screen = consensusScreen(records, opts.screenMinModels ? { minModels: opts.screenMinModels } : {});
  const clean = cleanSlice(records, screen);
  const flagged = new Set(screen.flagged_cells);
  const byOutcome = outcomeCounts(records);
  const scored = records.filter((r) => isScored(r)).length;

  const byAgent = groupBy(records, (r) => r.agent);
  const cleanByAgent = groupBy(clean, (r) => r.agent);
  const models: Report["models"] = {};
  for (const agent of [...byAgent.keys()].sort(naturalCompare)) {
    const rs = byAgent.get(agent)!;
    const slices = computeSlices(rs);
    models[agent] = {
      pass_rate: slices.all.pass_rate,
      n: slices.all.n,
      ci90: slices.all.ci90,
      ...reliability(rs),
      trials: {
        total: rs.length,
        scored: slices.all.n,
        unscored: slices.all.unscored,
        by_outcome: outcomeCounts(rs),
      },
      slices,
      clean: computeSlices(cleanByAgent.get(agent) ?? []),
      cost: costSummary(rs),
      null_model: independentErrorNull(rs, (r) => !flagged.has(r.task_id)),
    };
  }
  const { abs, logOdds } = spreads(models);
  const worlds = new Set(records.filter((r) => isScored(r)).map((r) => r.world)).size;
  return {
    report_version: REPORT_VERSION,
    bank_hashes: [...new Set(records.map((r) => r.bank_hash))].sort(),
    runs: opts.runs ?? [],
    interval: intervalHeader(worlds),
    trials: { total: records.length, scored, unscored: records.length - scored, by_outcome: byOutcome },
    slices: { ...computeSlices(records), by_model: slicesBy(records, (r) => r.agent) },
    clean: { ...computeSlices(clean), by_model: slicesBy(clean, (r) => r.agent) },
    screen,
    models,
    spread: abs,
    spread_log_odds: logOdds,
    null_model: independentErrorNull(records, (r) => !flagged.has(r.task_id)),
    cost: {
      frontier: costFrontier(
        Object.entries(models).map(([agent, m]) => ({ agent, cost: m.cost, pass_rate: m.pass_rate })),
      ),
    },
    ...(opts.items ? { items: itemAnalysis(records) } : {}),
    failed_requirements: failedRequirements(records),
  };
}
