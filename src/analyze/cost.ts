import { z } from "zod";
import type { TrialRecord } from "../run/trial-record.js";

export const CostSummarySchema = z.object({
  /** Mean price per trial over the trials with a known price; null when none is priced. */
  mean_cost_usd: z.number().nullable(),
  /** Trials with a known price. */
  n_priced: z.number().int(),
  /** Mean total tokens per trial (every trial: tokens are spent whether or not it is scored). */
  mean_tokens: z.number().nullable(),
  n: z.number().int(),
});
export type CostSummary = z.infer<typeof CostSummarySchema>;

/**
 * Cost per trial of one agent.
 *
 * @example costSummary(records).mean_cost_usd
 */
export function costSummary(records: readonly TrialRecord[]): CostSummary {
  let cost = 0;
  let priced = 0;
  let tokens = 0;
  for (const r of records) {
    tokens += r.tokens.total;
    if (r.cost_usd !== null) {
      cost += r.cost_usd;
      priced++;
    }
  }
  return {
    mean_cost_usd: priced ? cost / priced : null,
    n_priced: priced,
    mean_tokens: records.length ? tokens / records.length : null,
    n: records.length,
  };
}

export const FrontierSchema = z.object({
  /** `cost_usd` when every agent has prices, else `tokens` (mean total tokens per trial). */
  basis: z.enum(["cost_usd", "tokens"]),
  points: z.array(
    z.object({ agent: z.string(), cost: z.number(), pass_rate: z.number(), on_frontier: z.boolean() }),
  ),
});
export type Frontier = z.infer<typeof FrontierSchema>;

/**
 * The cost / pass-rate frontier: agents no other agent beats on both cost (lower) and pass rate
 * (higher). Prices where every agent has them, else tokens, so imported data still gets a frontier.
 *
 * @example costFrontier([{ agent: "a", cost: costSummary(ra), pass_rate: 0.4 }, …]).points.filter((p) => p.on_frontier)
 */
export function costFrontier(
  agents: ReadonlyArray<{ agent: string; cost: CostSummary; pass_rate: number | null }>,
): Frontier {
  const live = agents.filter((a) => a.pass_rate !== null && a.cost.n > 0);
  const basis = live.length > 0 && live.every((a) => a.cost.mean_cost_usd !== null) ? "cost_usd" : "tokens";
  const points = live
    .map((a) => ({
      agent: a.agent,
      cost: (basis === "cost_usd" ? a.cost.mean_cost_usd : a.cost.mean_tokens) ?? 0,
      pass_rate: a.pass_rate!,
      on_frontier: false,
    }))
    .sort((a, b) => a.cost - b.cost || b.pass_rate - a.pass_rate || a.agent.localeCompare(b.agent));
  let best = Number.NEGATIVE_INFINITY;
  for (const p of points) {
    if (p.pass_rate > best) {
      p.on_frontier = true;
      best = p.pass_rate;
    }
  }
  return { basis, points };
}
