import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { z } from "zod";
import { AgentSettingsSchema } from "../agents/agent-registry.js";
import { RetryPolicySchema } from "../agents/model-call-retry.js";
import { TrialGradeSchema } from "../grade/grade-schema.js";
import type { TrialOutcomeKind, TrialResult } from "../run/run-trial.js";
import { STOP_REASONS } from "../trial/agent.js";
import { TranscriptMessageSchema } from "../trial/transcript-schema.js";

/** The BullMQ queue every coordinator and worker meets on, unless `--queue-name` says otherwise. */
export const DEFAULT_QUEUE_NAME = "apiflow-trials";

/**
 * Bumped when a job payload or result changes shape; a worker refuses jobs of another version.
 * 2: results carry the trial's stored event log.
 */
export const TRIAL_JOB_VERSION = 2;

/**
 * One trial as a queue job: everything a worker needs to run it on its own copy of the bank, and
 * nothing secret (agent settings never hold keys; workers read keys from their own environment).
 *
 * @example TrialJobSchema.parse({ v: TRIAL_JOB_VERSION, bank_hash, bank_name: "apiflow-skeleton", agent: "golden", settings: { kind: "scripted" }, task_id: "harbor-sub01", epoch: 1, limits, retry })
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
 * local runner), and the stored event log, already built, redacted and gzipped on the worker
 * (`event_log_gz`, base64), which the coordinator writes beside the transcript.
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
  /** The stored event log (`StoredTrialLog`), gzip then base64; absent when the worker kept none. */
  event_log_gz: z.string().optional(),
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

/**
 * A trial result as it travels through Redis: the raw events stay on the worker, the stored log
 * (when given, already encoded) travels as base64.
 */
export function toJobResult(result: TrialResult, eventLogGz?: Uint8Array): TrialJobResult {
  const {
    events: _events,
    final_message: _message,
    final_records: _records,
    removed_records: _removed,
    ...rest
  } = result;
  return eventLogGz ? { ...rest, event_log_gz: Buffer.from(eventLogGz).toString("base64") } : rest;
}

/**
 * The stored log's JSON text carried by a job result; null when the result carries none or it is
 * not a gzip stream (the trial is then kept without a log: not re-gradable, never guessed).
 */
export function jobResultLogJson(result: TrialJobResult): string | null {
  if (result.event_log_gz === undefined) return null;
  try {
    return gunzipSync(Buffer.from(result.event_log_gz, "base64")).toString("utf8");
  } catch {
    return null;
  }
}

/** Back to the runner's `TrialResult`, for the same transcript and store row as a local run. */
export function fromJobResult(result: TrialJobResult): TrialResult {
  const { event_log_gz: _log, ...rest } = result;
  return { ...rest, tokens: { ...result.tokens }, events: [] };
}
