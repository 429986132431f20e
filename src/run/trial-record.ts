import { z } from "zod";

/**
 * How a trial ended. The first six are **scored** (they count in every denominator: a model that
 * abstains, hits a loop limit, overflows its context or whose own code throws — `agent_error` — has
 * failed the task); the last three are counted and shown but never scored, because they say nothing
 * about the agent: `provider_error` is the provider's fault (429/5xx/time-outs/malformed replies
 * past their retries, a rejected key), `harness_error` is a bug of ours, and `unscored` is an
 * imported trial the verifier gave no verdict. A model's own mistakes (a malformed tool call, a
 * wrong route) are answered inside the trial and end, at worst, in `fail`.
 */
export const OUTCOMES = [
  "pass",
  "fail",
  "abstained",
  "limit",
  "context_overflow",
  "agent_error",
  "provider_error",
  "harness_error",
  "unscored",
] as const;
export const OutcomeSchema = z.enum(OUTCOMES);
export type Outcome = z.infer<typeof OutcomeSchema>;

/** Outcomes that are counted but never enter a pass-rate denominator. */
export const UNSCORED_OUTCOMES: ReadonlySet<Outcome> = new Set([
  "provider_error",
  "harness_error",
  "unscored",
]);

/**
 * Whether a trial enters the denominators.
 *
 * @example isScored({ outcome: "abstained" }) // true: abstaining is a scored failure
 */
export function isScored(rec: Pick<TrialRecord, "outcome">): boolean {
  return !UNSCORED_OUTCOMES.has(rec.outcome);
}

export const TrialTokensSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative(),
  cache_write: z.number().nonnegative(),
  total: z.number().nonnegative(),
});
export type TrialTokens = z.infer<typeof TrialTokensSchema>;

/** The key of a trial in the results store: one row per (bank, agent, task, epoch). */
export const TrialKeySchema = z.object({
  /** Content hash of the bank the task came from (`official-1.0:v56` for imported 1.0 data). */
  bank_hash: z.string().min(1),
  /** Model slug (`claude-sonnet-4-6`) or scripted agent name (`golden`). */
  agent: z.string().min(1),
  task_id: z.string().min(1),
  /** 1-based epoch (the `-t<N>` of a transcript file name). */
  epoch: z.number().int().positive(),
});
export type TrialKey = z.infer<typeof TrialKeySchema>;

const TrialRecordObject = TrialKeySchema.extend({
  /** World id, e.g. `w03`. */
  world: z.string().min(1),
  kind: z.enum(["solo", "chain"]),
  /** Solo: position of the subtask in its world's sequence (1-based); null for chains. */
  position: z.number().int().positive().nullable(),
  /** Chain: number of subtasks chained (subtasks 1..length); null for solo. */
  length: z.number().int().positive().nullable(),
  /** The bank knows a subtask's axis; imported data may not. */
  axis: z.string().nullable(),
  outcome: OutcomeSchema,
  /** True/false for scored trials, null for unscored ones. */
  passed: z.boolean().nullable(),
  /** Labour predicate group (end state of the API); null when the verifier did not say. */
  g1_passed: z.boolean().nullable(),
  /** Delivery predicate group (the answer card); null when the verifier did not say. */
  g2_passed: z.boolean().nullable(),
  failure_reason: z.string(),
  partial_score: z.number().nullable(),
  tokens: TrialTokensSchema,
  /** Priced from the versioned price table; null when the price is unknown. */
  cost_usd: z.number().nonnegative().nullable(),
  duration_s: z.number().nonnegative(),
  /** Why the agent loop stopped (`answer`, `clarify`, `step_limit`, …); null when unknown. */
  stop_reason: z.string().nullable(),
  /** Transcript path, relative to the run directory (or absolute when it was referenced in place). */
  transcript: z.string().nullable(),
});

/**
 * One trial as the results store holds it: written by `apiflow run` and `apiflow import`, read by
 * `apiflow report`. `passed` agrees with `outcome` (null exactly for the unscored outcomes).
 *
 * @example TrialRecordSchema.parse({ bank_hash: "…", agent: "golden", task_id: "v56-w03-sub07", epoch: 1, … })
 */
export const TrialRecordSchema = TrialRecordObject.superRefine((rec, ctx) => {
  const want = UNSCORED_OUTCOMES.has(rec.outcome) ? null : rec.outcome === "pass";
  if (rec.passed !== want) {
    ctx.addIssue({
      code: "custom",
      path: ["passed"],
      message: `outcome ${rec.outcome} needs passed = ${String(want)}`,
    });
  }
  if ((rec.kind === "solo") !== (rec.position !== null) || (rec.kind === "chain") !== (rec.length !== null)) {
    ctx.addIssue({
      code: "custom",
      path: ["kind"],
      message: "a solo trial has a position and no length; a chain has a length and no position",
    });
  }
});
export type TrialRecord = z.infer<typeof TrialRecordObject>;

/** `agent/task_id/epoch@bank` — a stable string form of a key, for maps and messages. */
export function trialKeyString(key: TrialKey): string {
  return `${key.agent}/${key.task_id}/t${key.epoch}@${key.bank_hash}`;
}
