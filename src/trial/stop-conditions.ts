import type { StopReason } from "./agent.js";

/** What limits look at: the history of the trial so far. */
export interface StepHistory {
  toolCalls: number;
  tokens: number;
  elapsedMs: number;
}

/** A limit as a pure function of the step history (AI SDK style): a stop reason, or null to go on. */
export type StopCondition = (history: StepHistory) => StopReason | null;

/** Stop once more than `n` tool calls were made. */
export const toolCallLimit =
  (n: number): StopCondition =>
  (h) =>
    h.toolCalls > n ? "tool_call_limit" : null;

/** Stop once the model has used more than `n` tokens. */
export const tokenLimit =
  (n: number): StopCondition =>
  (h) =>
    h.tokens > n ? "token_limit" : null;

/** Stop once the trial has run longer than `ms` (checked between steps; an abort signal fires too). */
export const timeLimit =
  (ms: number): StopCondition =>
  (h) =>
    h.elapsedMs > ms ? "time_limit" : null;

export interface TrialLimits {
  maxToolCalls: number;
  maxTokens: number;
  maxSeconds: number;
}

/**
 * Default limits. The tool-call limit leaves long chains room: a 20-segment golden needs about 120
 * calls, and trials of the published 1.0 bank reached 251.
 */
export const DEFAULT_LIMITS: TrialLimits = { maxToolCalls: 300, maxTokens: 2_000_000, maxSeconds: 1800 };

export function stopConditions(limits: TrialLimits): StopCondition[] {
  return [
    toolCallLimit(limits.maxToolCalls),
    tokenLimit(limits.maxTokens),
    timeLimit(limits.maxSeconds * 1000),
  ];
}
