import { createHash } from "node:crypto";
import { z } from "zod";
import { AgentSettingsSchema } from "../agents/agent-registry.js";
import { RetryPolicySchema } from "../agents/model-call-retry.js";
import { TrialGradeSchema } from "../grade/grade-schema.js";
import type { TrialOutcomeKind, TrialResult } from "../run/run-trial.js";
import type { StopReason } from "../trial/agent.js";
import { TranscriptMessageSchema } from "../trial/transcript-schema.js";

/** The BullMQ queue every coordinator and worker meets on, unless `--queue-name` says otherwise. */
export const DEFAULT_QUEUE_NAME = "apiflow-trials";

/** Bumped when a job payload or result changes shape; a worker refuses jobs of another version. */
export const TRIAL_JOB_VERSION = 1;

/**
 * One trial as a queue job: everything a worker needs to run it on its own copy of the bank, and
 * nothing secret (agent settings never hold keys; workers read keys from their own environment).
 *
 * @example TrialJobSchema.parse({ v: 1, bank_hash, bank_name: "apiflow-skeleton", agent: "golden", settings: { kind: "scripted" }, task_id: "harbor-sub01", epoch: 1, limits, retry })
 */
export const TrialJobSchema = z.strictObject({
  v: z.literal(TRIAL_JOB_VERSION),
  bank_hash: z.string().min(1),
  bank_name: z.string(),
  /** Store name of the agent (model slug or scripted/module agent name). */
  agent: z.string().min(1),
  settings: AgentSettingsSchema,
  task_id: z.string().min(1),
  epoch: z.number().int().positive(),
  limits: z.strictObject({ maxToolCalls: z.number(), maxTokens: z.number(), maxSeconds: z.number() }),
  retry: RetryPolicySchema,
  /** The run's salt (it enters every canary); absent from jobs of an older coordinator. */
  salt: z.string().optional(),
});
export type TrialJob = z.infer<typeof TrialJobSchema>;

const STOP_REASONS = [
  "answered",
  "clarify",
  "report_blocked",
  "tool_call_limit",
  "token_limit",
  "time_limit",
  "context_overflow",
  "provider_error",
  "agent_error",
  "harness_error",
  "disconnected",
] as const satisfies readonly StopReason[];
const TRIAL_OUTCOMES = [
  "pass",
  "fail",
  "abstained",
  "limit",
  "context_overflow",
  "agent_error",
  "provider_error",
  "harness_error",
] as const satisfies readonly TrialOutcomeKind[];

/**
 * What a worker hands back through Redis: the trial's `TrialResult` without the world's event log
 * (the coordinator's transcript and store row are built from everything else, exactly as in the
 * local runner).
 *
 * @example const r = TrialJobResultSchema.safeParse(job.returnvalue); if (r.success) record(fromJobResult(r.data));
 */
export const TrialJobResultSchema = z.strictObject({
  task_id: z.string(),
  epoch: z.number().int().positive(),
  agent: z.string(),
  trial_seed: z.string(),
  outcome: z.enum(TRIAL_OUTCOMES),
  stop_reason: z.enum(STOP_REASONS),
  stop_detail: z.string(),
  grade: TrialGradeSchema,
  messages: z.array(TranscriptMessageSchema),
  tokens: z.looseObject({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cache: z.number().nonnegative(),
    total: z.number().nonnegative(),
    cache_write: z.number().nonnegative(),
  }),
  tool_calls: z.number().int().nonnegative(),
  duration_s: z.number().nonnegative(),
});
export type TrialJobResult = z.infer<typeof TrialJobResultSchema>;

/**
 * The job id of a trial: a pure function of (bank hash, agent, task, epoch), so adding the same
 * trial twice — a rerun, a restarted coordinator — finds the job already there and adds nothing.
 * BullMQ ids may not contain `:`, hence the digest.
 *
 * @example trialJobId({ bank_hash: "ab12…", agent: "golden", task_id: "harbor-sub01", epoch: 2 }) // "trial-5f0c…"
 */
export function trialJobId(key: {
  bank_hash: string;
  agent: string;
  task_id: string;
  epoch: number;
}): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([key.bank_hash, key.agent, key.task_id, key.epoch]))
    .digest("hex");
  return `trial-${digest.slice(0, 40)}`;
}

/** A trial result as it travels through Redis (the event log stays on the worker). */
export function toJobResult(result: TrialResult): TrialJobResult {
  const { events: _events, ...rest } = result;
  return rest;
}

/** Back to the runner's `TrialResult`, for the same transcript and store row as a local run. */
export function fromJobResult(result: TrialJobResult): TrialResult {
  return { ...result, tokens: { ...result.tokens }, events: [] };
}
