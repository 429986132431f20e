import type { TrialResult } from "./run-trial.js";

/**
 * Watches the first trials of each agent for a provider that refuses the key (401/403). When an
 * agent's first `threshold` finished trials all ended that way, its remaining trials are not
 * started: a wrong key would otherwise fail every trial of the grid, one by one.
 *
 * @example const watch = new AuthRefusalWatch(3); watch.note(result); if (watch.refused("gpt-5-mini")) …
 */
export class AuthRefusalWatch {
  private readonly seen = new Map<string, { finished: number; refused: number }>();
  private readonly tripped = new Set<string>();

  constructor(private readonly threshold: (agent: string) => number) {}

  /** Count one finished trial (in completion order). */
  note(result: Pick<TrialResult, "agent" | "outcome" | "stop_detail">): void {
    const s = this.seen.get(result.agent) ?? { finished: 0, refused: 0 };
    s.finished++;
    if (isAuthRefusal(result)) s.refused++;
    this.seen.set(result.agent, s);
    if (s.refused === s.finished && s.refused >= this.threshold(result.agent)) this.tripped.add(result.agent);
  }

  /** True once the agent's first trials were all refused. */
  refused(agent: string): boolean {
    return this.tripped.has(agent);
  }

  /** Every agent stopped so far, in the order they were. */
  refusedAgents(): string[] {
    return [...this.tripped];
  }
}

/** A trial the provider ended by refusing the key (the model agent's `auth:` stop detail). */
export function isAuthRefusal(result: Pick<TrialResult, "outcome" | "stop_detail">): boolean {
  return result.outcome === "provider_error" && result.stop_detail.startsWith("auth:");
}
