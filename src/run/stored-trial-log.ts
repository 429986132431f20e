import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import type { JsonObject, JsonValue } from "../bank/json.js";
import { type GraderSpec, GraderSpecSchema, type Task } from "../bank/task-schema.js";
import { resolveExpected } from "../grade/final-state.js";
import type { GradeInput } from "../grade/grade-trial.js";
import { GRADER_VERSION } from "../grade/grade-trial.js";
import { STOP_REASONS } from "../trial/agent.js";
import { resolveCanaries } from "../world/canary.js";
import { ExchangeEventSchema, VariableWriteEventSchema } from "../world/event-log.js";
import type { TrialResult } from "./run-trial.js";

/** Bumped when the stored log changes shape; a log of another version is refused, never guessed. */
export const TRIAL_LOG_VERSION = 1;

// A stored log is read with JSON.parse, and whatever JSON.parse returns is JSON: the schema checks
// the log's shape down to each event's fields and leaves the JSON payloads inside (bodies,
// variable values, records) unchecked, which would otherwise cost most of a re-grade's time.
const ParsedJson = z.custom<JsonValue>(() => true);
const ParsedJsonObject = z.custom<JsonObject>(
  (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  {
    message: "expected a JSON object",
  },
);
const StoredEventSchema = z.discriminatedUnion("type", [
  ExchangeEventSchema.extend({ request_body: ParsedJson.nullable(), response_body: ParsedJson.nullable() }),
  VariableWriteEventSchema.extend({ value: ParsedJson }),
]);

/** What a transcript's event log file is called: beside it, `<transcript>.events.json.gz`. */
export const TRIAL_LOG_SUFFIX = ".events.json.gz";

/**
 * One trial's stored event log: everything `gradeTrial` reads, so the trial can be re-graded and
 * its verdict explained without re-running the agent. It holds what the world received and
 * answered (canaries as the trial saw them), every variable write, the world's final records, the
 * final message, and the grader as run with its answer key resolved for the trial's seed. Written
 * gzip-compressed beside the transcript, with the same secret redaction.
 *
 * @example const log = StoredTrialLogSchema.parse(JSON.parse(gunzipSync(readFileSync(path)).toString()));
 */
export const StoredTrialLogSchema = z.strictObject({
  log_version: z.literal(TRIAL_LOG_VERSION),
  bank_hash: z.string().min(1),
  agent: z.string().min(1),
  task_id: z.string().min(1),
  epoch: z.number().int().positive(),
  trial_seed: z.string(),
  /** `GRADER_VERSION` of the grading made when the trial ran. */
  grader_version: z.string(),
  /** The task's grader as run (an explanation reads it when no bank is given). */
  grader: GraderSpecSchema,
  /** Chains graded `selective`: the segments graded; null grades every predicate. */
  graded_segments: z.array(z.number().int().positive()).nullable(),
  /** The answer key with canaries resolved for this trial: what each answer field had to hold. */
  answer_key: z.array(z.strictObject({ field: z.string(), expected: ParsedJson })),
  stop_reason: z.enum(STOP_REASONS),
  stop_detail: z.string(),
  /** The final assistant message (the answer card's source); null when there was none. */
  final_message: z.string().nullable(),
  events: z.array(StoredEventSchema),
  /** Every resource's records when the trial ended (end-state predicates read these); null when unknown. */
  final_records: z.record(z.string(), z.array(ParsedJsonObject)).nullable(),
});
export type StoredTrialLog = z.infer<typeof StoredTrialLogSchema>;

/** The log's schema when its grader is one already validated (see `internedGraders`). */
const KnownGraderLogSchema = StoredTrialLogSchema.extend({ grader: z.custom<GraderSpec>(() => true) });

/** Why a stored log could not be read; `missing` means the trial was stored before logs were kept. */
export interface TrialLogError {
  code: "missing" | "unreadable" | "log_version" | "invalid";
  message: string;
}

/** The event log path of a transcript path (relative or absolute alike). */
export function trialLogPath(transcriptPath: string): string {
  return `${transcriptPath}${TRIAL_LOG_SUFFIX}`;
}

/**
 * The segments a task's grader grades: the `selective` chain's graded segments, else all (undefined).
 *
 * @example gradedSegmentsOf(task) // [3, 5] for a selective chain, undefined for a solo task
 */
export function gradedSegmentsOf(task: Task): readonly number[] | undefined {
  return task.kind === "chain" && task.grader.chain_mode === "selective" && task.graded_segments
    ? task.graded_segments
    : undefined;
}

/**
 * A finished trial's stored log.
 *
 * @example const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
 */
export function storedTrialLogOf(result: TrialResult, task: Task, bankHash: string): StoredTrialLog {
  return {
    log_version: TRIAL_LOG_VERSION,
    bank_hash: bankHash,
    agent: result.agent,
    task_id: result.task_id,
    epoch: result.epoch,
    trial_seed: result.trial_seed,
    grader_version: result.grade.grader_version || GRADER_VERSION,
    grader: task.grader,
    graded_segments: gradedSegmentsOf(task)?.slice() ?? null,
    // A record reference is resolved from the trial's final records (left as its reference, canaries
    // resolved, when no record holds the role).
    answer_key: task.grader.answer.map((f) => {
      const resolved = resolveExpected(f.expected, result.trial_seed, result.final_records);
      return {
        field: f.field,
        expected: resolved.ok
          ? resolved.value
          : (resolveCanaries(f.expected, result.trial_seed) as JsonValue),
      };
    }),
    stop_reason: result.stop_reason,
    stop_detail: result.stop_detail,
    final_message: result.final_message ?? null,
    events: [...result.events],
    final_records: result.final_records ?? null,
  };
}

/**
 * The grader's input for a stored trial: the given grader (a bank's, for a re-grade with newer
 * data) or the one stored with the trial.
 *
 * @example const grade = gradeTrial(gradeInputOf(log));
 */
export function gradeInputOf(
  log: StoredTrialLog,
  with_?: { grader: GraderSpec; gradedSegments: readonly number[] | undefined },
): GradeInput {
  const gradedSegments = with_ ? with_.gradedSegments : (log.graded_segments ?? undefined);
  return {
    grader: with_?.grader ?? log.grader,
    ...(gradedSegments ? { gradedSegments } : {}),
    trialSeed: log.trial_seed,
    events: log.events,
    finalMessage: log.final_message,
    ...(log.final_records ? { finalRecords: log.final_records } : {}),
  };
}

/**
 * A stored log as compressed bytes, with every secret redacted from its text first (the same
 * `redact` the transcript gets).
 *
 * @example writeFileSync(path, encodeTrialLog(log, redactor([apiKey])));
 */
export function encodeTrialLog(
  log: StoredTrialLog | string,
  redact: (text: string) => string = (t) => t,
): Buffer {
  const text = typeof log === "string" ? log : JSON.stringify(log);
  return gzipSync(redact(text));
}

/**
 * Compressed bytes back to a stored log, validated.
 *
 * @example const res = decodeTrialLog(readFileSync(path)); if (res.success) gradeTrial(gradeInputOf(res.data));
 */
export function decodeTrialLog(
  bytes: Uint8Array,
): { success: true; data: StoredTrialLog } | { success: false; error: TrialLogError } {
  let raw: unknown;
  try {
    raw = JSON.parse(gunzipSync(bytes).toString("utf8"));
  } catch (e) {
    return { success: false, error: { code: "unreadable", message: (e as Error).message } };
  }
  const version = (raw as { log_version?: unknown } | null)?.log_version;
  if (version !== TRIAL_LOG_VERSION) {
    return {
      success: false,
      error: {
        code: "log_version",
        message: `stored log version ${String(version)}, this apiflow reads version ${TRIAL_LOG_VERSION}`,
      },
    };
  }
  // The graders of a run repeat (one per task): each distinct one is validated once and then
  // shared, which also lets the grader reuse what it prepared for it.
  const graderText = JSON.stringify((raw as { grader?: unknown }).grader);
  const known = graderText === undefined ? undefined : internedGraders.get(graderText);
  const parsed = known ? KnownGraderLogSchema.safeParse(raw) : StoredTrialLogSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      success: false,
      error: { code: "invalid", message: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}` },
    };
  }
  if (known) return { success: true, data: { ...parsed.data, grader: known } };
  if (graderText !== undefined) {
    if (internedGraders.size >= 10_000) internedGraders.clear();
    internedGraders.set(graderText, parsed.data.grader);
  }
  return { success: true, data: parsed.data };
}

// Validated graders by their JSON text (bank data: never mutated once parsed). Holds nothing of
// any trial, so a decoded log never carries another trial's findings.
const internedGraders = new Map<string, GraderSpec>();

/**
 * Read a stored log file.
 *
 * @example const res = readTrialLog(trialLogPath("runs/x/transcripts/golden/harbor-sub01-t1.json"));
 */
export function readTrialLog(
  path: string,
): { success: true; data: StoredTrialLog } | { success: false; error: TrialLogError } {
  if (!existsSync(path))
    return { success: false, error: { code: "missing", message: `no stored event log at ${path}` } };
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return { success: false, error: { code: "unreadable", message: `${path}: ${(e as Error).message}` } };
  }
  const res = decodeTrialLog(bytes);
  if (!res.success)
    return { success: false, error: { ...res.error, message: `${path}: ${res.error.message}` } };
  return res;
}

/** Write a stored log atomically (temp file then rename), beside its transcript. */
export function writeTrialLog(
  runDir: string,
  transcriptRelPath: string,
  log: StoredTrialLog | string,
  redact: (text: string) => string = (t) => t,
): void {
  const path = join(runDir, trialLogPath(transcriptRelPath));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, encodeTrialLog(log, redact));
  renameSync(`${path}.tmp`, path);
}
