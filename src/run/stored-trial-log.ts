import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import type { JsonObject, JsonValue } from "../bank/json.js";
import { type GraderSpec, GraderSpecSchema, type Task } from "../bank/task-schema.js";
import { RECORDS_HOLDING, type RecordsHolding, resolveExpected } from "../grade/final-state.js";
import type { GradeInput, RequirementNote } from "../grade/grade-trial.js";
import { GRADER_VERSION } from "../grade/grade-trial.js";
import { STOP_REASONS } from "../trial/agent.js";
import { resolveCanaries } from "../world/canary.js";
import { type ExchangeEvent, ExchangeEventSchema, VariableWriteEventSchema } from "../world/event-log.js";
import { ByteLines } from "./byte-lines.js";
import { readFileReused } from "./read-file-reused.js";
import type { TrialResult } from "./run-trial.js";
import { gunzipMember, inflateMember, readSizedGzip, sizedGzip } from "./sized-gzip.js";
import { isAnswerKey, isPlainHead } from "./stored-log-head.js";

/**
 * Bumped when the stored log changes shape. Version 6 (JSON Lines, see `encodeTrialLog`) is
 * written; versions 5 (the answer key in the head, every resource in a member of its own), 4 (a
 * resource's records on one line, each body's line number in the head), 3 (the task's requirements
 * in the head, the final records in one member), 2 (the final records on one line) and 1 (one JSON
 * document) are still read; any other version is refused, never guessed.
 */
export const TRIAL_LOG_VERSION = 6;

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
// Headers are checked in place (a plain object of strings), not copied key by key as `z.record`
// does: a stored log carries two header objects per exchange, and the copies were most of what
// validating a head allocated.
const ParsedHeaders = z.custom<Record<string, string>>(
  (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
    for (const key in v) if (typeof (v as Record<string, unknown>)[key] !== "string") return false;
    return true;
  },
  { message: "expected an object of strings" },
);
const StoredExchangeShape = {
  request_headers: ParsedHeaders,
  response_headers: ParsedHeaders,
  request_body: ParsedJson.nullable(),
};
const StoredEventSchema = z.discriminatedUnion("type", [
  ExchangeEventSchema.extend({ ...StoredExchangeShape, response_body: ParsedJson.nullable() }),
  VariableWriteEventSchema.extend({ value: ParsedJson }),
]);
const FinalRecordsSchema = z.record(z.string(), z.array(ParsedJsonObject)).nullable();

/** What a transcript's event log file is called: beside it, `<transcript>.events.json.gz`. */
export const TRIAL_LOG_SUFFIX = ".events.json.gz";

/**
 * One trial's stored event log: everything `gradeTrial` reads, so the trial can be re-graded and
 * its verdict explained without re-running the agent. It holds what the world received and
 * answered (canaries as the trial saw them), every variable write, the world's final records, the
 * final message, and the grader as run with its answer key resolved for the trial's seed. Written
 * gzip-compressed beside the transcript, with the same secret redaction (see `encodeTrialLog` for
 * the file's layout); `log_version` is the version of the file it was read from.
 *
 * @example const res = readTrialLog(path); if (res.success) StoredTrialLogSchema.parse(res.data);
 */
export const StoredTrialLogSchema = z.strictObject({
  log_version: z.literal([1, 2, 3, 4, 5, TRIAL_LOG_VERSION]),
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
  final_records: FinalRecordsSchema,
  /** Records deleted during the trial (record references still name them); absent in older logs. */
  removed_records: z.record(z.string(), z.array(ParsedJsonObject)).optional(),
  /**
   * The task's requirements as the failure reason names them (id, segment, sentence), so a
   * re-grade with the stored grader words it as the run did; absent in older logs.
   */
  requirements: z
    .array(
      z.strictObject({
        id: z.string(),
        sentence: z.string().optional(),
        segment: z.number().int().positive().optional(),
      }),
    )
    .optional(),
});
export type StoredTrialLog = z.infer<typeof StoredTrialLogSchema>;

/** A version 1 file: the log as one JSON document. */
const V1LogSchema = StoredTrialLogSchema.extend({ log_version: z.literal(1) });

/**
 * The head of a version 2 or 3 file (its first line): the log without its bulk. Derived from the
 * log's schema, so a field added to the log is stored and checked in the head without more code.
 * An exchange's `response_body` holds the number of its body's line (1 for the first exchange's).
 */
const V2HeadSchema = StoredTrialLogSchema.omit({ grader: true, final_records: true }).extend({
  log_version: z.literal([2, 3]),
  events: z.array(
    z.discriminatedUnion("type", [
      ExchangeEventSchema.extend({ ...StoredExchangeShape, response_body: z.number().int().positive() }),
      VariableWriteEventSchema.extend({ value: ParsedJson }),
    ]),
  ),
});

/** Version 4's task part (its second member): what every trial of a task stores alike. */
const TaskPartSchema = StoredTrialLogSchema.pick({ graded_segments: true, requirements: true, grader: true });
type TaskPart = z.infer<typeof TaskPartSchema>;

/** The resources' names of version 4's head (and version 3's records): each resource once. */
const ResourceNamesSchema = z
  .array(z.string())
  .refine((names) => new Set(names).size === names.length, { message: "a resource is named twice" });

/**
 * The head of a version 4 file: as version 3's without what the task part holds, and with the
 * names of the resources whose records follow, one member each (null when unknown). Checked by
 * `isPlainV4Head` first, this schema only when that refuses it (see `stored-log-head.ts`; exported
 * for the test holding the two to each other).
 *
 * @example V4HeadSchema.safeParse(JSON.parse(firstLine)).success
 */
export const V4HeadSchema = V2HeadSchema.omit({ graded_segments: true, requirements: true }).extend({
  log_version: z.literal(4),
  final_resources: ResourceNamesSchema.nullable(),
});
type V4Head = z.infer<typeof V4HeadSchema>;

/**
 * The head of a version 5 file: as version 4's, but an exchange has no `response_body` (the k-th
 * exchange's body is line k) and `final_resources` gives each resource with its number of records,
 * one line each. Checked by `isPlainHead` first, as version 4's.
 *
 * @example V5HeadSchema.safeParse(JSON.parse(firstLine)).success
 */
export const V5HeadSchema = V4HeadSchema.extend({
  log_version: z.literal(5),
  events: z.array(
    z.discriminatedUnion("type", [
      ExchangeEventSchema.extend(StoredExchangeShape).omit({ response_body: true }),
      VariableWriteEventSchema.extend({ value: ParsedJson }),
    ]),
  ),
  final_resources: z
    .array(z.strictObject({ resource: z.string(), records: z.number().int().nonnegative() }))
    .refine((rs) => new Set(rs.map((r) => r.resource)).size === rs.length, {
      message: "a resource is named twice",
    })
    .nullable(),
});
type V5Head = z.infer<typeof V5HeadSchema>;

/**
 * The head of a version 6 file: as version 5's without the answer key (the line after the bodies:
 * a re-grade never reads it, and it was a fifth of what the head's JSON.parse read), and with each
 * resource's `inline`: its records' lines follow the answer key in the head's member (a small
 * resource, see `INLINE_RECORDS_LENGTH`) or make a member of their own. Checked by `isPlainHead`
 * first, as version 5's.
 *
 * @example V6HeadSchema.safeParse(JSON.parse(firstLine)).success
 */
export const V6HeadSchema = V5HeadSchema.omit({ answer_key: true }).extend({
  log_version: z.literal(6),
  final_resources: z
    .array(
      z.strictObject({ resource: z.string(), records: z.number().int().nonnegative(), inline: z.boolean() }),
    )
    .refine((rs) => new Set(rs.map((r) => r.resource)).size === rs.length, {
      message: "a resource is named twice",
    })
    .nullable(),
});
type V6Head = z.infer<typeof V6HeadSchema>;

const AnswerKeySchema = StoredTrialLogSchema.shape.answer_key;

/**
 * A resource whose records' lines are fewer characters than this, in all, is stored in the head's
 * member: a zlib call costs about what inflating 5 KiB does, and the resources selectors read are
 * often small (of the 1.33 resource members a re-grade of the default bank's golden, blank and
 * baseline trials inflated per trial, 0.71 held less than 2 KiB of records, 0.33 none).
 */
const INLINE_RECORDS_LENGTH = 2048;

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
    ...(task.requirements
      ? {
          requirements: task.requirements.map((r) => ({
            id: r.id,
            ...(r.sentence !== undefined ? { sentence: r.sentence } : {}),
            ...(r.segment !== undefined ? { segment: r.segment } : {}),
          })),
        }
      : {}),
    // A record reference is resolved from the trial's final records (left as its reference, canaries
    // resolved, when no record holds the role).
    answer_key: task.grader.answer.map((f) => {
      const resolved = resolveExpected(
        f.expected,
        result.trial_seed,
        result.final_records,
        result.removed_records,
        result.events,
      );
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
    ...(result.removed_records ? { removed_records: result.removed_records } : {}),
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
  with_?: {
    grader: GraderSpec;
    gradedSegments: readonly number[] | undefined;
    /** The task's requirements, so the failure reason names each by its sentence. */
    requirements?: readonly RequirementNote[] | undefined;
  },
): GradeInput {
  const gradedSegments = with_ ? with_.gradedSegments : (log.graded_segments ?? undefined);
  const requirements = with_ ? with_.requirements : log.requirements;
  return new StoredGradeInput(log, with_?.grader ?? log.grader, gradedSegments, requirements);
}

/**
 * A stored log as the grader reads it. The final records are read through, not copied: a log
 * decoded lazily parses them only for the trials whose predicates read them. The getters are the
 * class's, shared by every input: getters written in an object literal are new closures each
 * time, which gives every input its own hidden class (old-generation memory) holding its log, so
 * every trial's decoded log outlived the young-generation collections (a re-grade spent a fifth of
 * its time copying and promoting them).
 */
class StoredGradeInput implements GradeInput {
  readonly trialSeed: string;
  readonly events: StoredTrialLog["events"];
  readonly finalMessage: string | null;
  readonly gradedSegments?: readonly number[];
  readonly requirements?: readonly RequirementNote[];
  readonly #log: StoredTrialLog;

  constructor(
    log: StoredTrialLog,
    readonly grader: GraderSpec,
    gradedSegments: readonly number[] | undefined,
    requirements: readonly RequirementNote[] | undefined,
  ) {
    this.#log = log;
    if (gradedSegments) this.gradedSegments = gradedSegments;
    if (requirements) this.requirements = requirements;
    this.trialSeed = log.trial_seed;
    this.events = log.events;
    this.finalMessage = log.final_message;
  }

  get finalRecords() {
    return this.#log.final_records ?? undefined;
  }

  get removedRecords() {
    return this.#log.removed_records;
  }
}

/**
 * A stored log as compressed bytes, with every secret redacted from its text first (the same
 * `redact` the transcript gets).
 *
 * Version 6 is JSON Lines: the head (the log without its bulk: no response body, no answer key;
 * `final_resources` gives each resource with its number of records and whether they are `inline`,
 * null when the final records are unknown), one line per response body (the k-th exchange's is
 * line k), the answer key, the records of each inline resource (one line per record), the task part
 * (`graded_segments`, `requirements`, `grader`: the same in every trial of the task), then the
 * records of each other resource. It is written as sized gzip members (see `sizedGzip`): the head
 * with the bodies, the answer key and the inline resources; the task part; then one per other
 * resource. `zcat` shows the lines. A re-grade inflates the first member, the task part only the
 * first time its bytes are seen (then it is known: parsed and validated once per task), and a
 * resource's member only when a predicate reads it (a record reference names one resource; the
 * catalogue beside it is most of the bytes); the answer key is parsed only when read.
 *
 * Version 5 held the answer key in the head and every resource in a member of its own; version 4
 * each resource's records on one line, each body's line number in the head; version 3 the
 * requirements in the head and every resource in one member after a line naming them; version 2
 * the final records as one line.
 *
 * A string is a stored log's text as another process wrote it (a queue worker's, gunzipped for
 * transport), stored again as it is.
 *
 * @example writeFileSync(path, encodeTrialLog(log, redactor([apiKey])));
 */
export function encodeTrialLog(
  log: StoredTrialLog | string,
  redact: (text: string) => string = (t) => t,
): Buffer {
  const members = typeof log === "string" ? membersOfText(log) : v6Members(log);
  return members.length === 1 ? gzipSync(redact(members[0] as string)) : sizedGzip(members.map(redact));
}

function v6Members(log: StoredTrialLog): string[] {
  const { grader, graded_segments, requirements, final_records, events, answer_key, ...rest } = log;
  const bodies: string[] = [];
  // Each event in the schema's key order, so a decoder can keep the objects JSON.parse makes.
  const headEvents = events.map((e): V6Head["events"][number] => {
    if (e.type !== "exchange") {
      const { type, seq, scope, name, value } = e;
      return { type, seq, scope, name, value };
    }
    // JSON.stringify writes no line break (one inside a string is escaped), so a body is one line.
    bodies.push(JSON.stringify(e.response_body));
    return envelopeOf(e);
  });
  const resources = Object.entries(final_records ?? {}).map(([resource, records]) => {
    const text = records.map((r) => `${JSON.stringify(r)}\n`).join("");
    return { resource, records: records.length, inline: text.length < INLINE_RECORDS_LENGTH, text };
  });
  const head: V6Head = {
    ...rest,
    log_version: 6,
    events: headEvents,
    final_resources:
      final_records === null
        ? null
        : resources.map(({ resource, records, inline }) => ({ resource, records, inline })),
  };
  const task: TaskPart = { graded_segments, ...(requirements ? { requirements } : {}), grader };
  return [
    `${[JSON.stringify(head), ...bodies, JSON.stringify(answer_key)].join("\n")}\n${resources
      .filter((r) => r.inline)
      .map((r) => r.text)
      .join("")}`,
    `${JSON.stringify(task)}\n`,
    ...resources.filter((r) => !r.inline).map((r) => r.text),
  ];
}

/** A stored log's text split back into its members; anything but version 2 to 6 text is one member. */
function membersOfText(text: string): string[] {
  const lines = linesOf(text);
  const head = parseLine(lines[0] ?? "");
  const n = headLineCount(head);
  if (n === undefined) return [text];
  const { log_version: version, final_resources: names } = head as {
    log_version: 2 | 3 | 4 | 5 | 6;
    final_resources?: unknown;
  };
  if (version === 5 || version === 6) {
    // Each resource's member holds its records' lines (none for a resource without records); in
    // version 6 the answer key's line and an inline resource's lines are the first member's.
    const rs = Array.isArray(names)
      ? names.map((r) => r as { records?: unknown; inline?: unknown } | null)
      : [];
    const counts = rs.map((r) => r?.records);
    if (!counts.every((c): c is number => Number.isSafeInteger(c) && (c as number) >= 0)) return [text];
    const inline = rs.map((r) => version === 6 && r?.inline === true);
    const first = n + (version === 6 ? 1 : 0) + counts.reduce((a, c, i) => a + (inline[i] ? c : 0), 0);
    if (lines.length !== first + 1 + counts.reduce((a, c, i) => a + (inline[i] ? 0 : c), 0)) return [text];
    const members = [`${lines.slice(0, first).join("\n")}\n`, `${lines[first]}\n`];
    let at = first + 1;
    for (const [i, c] of counts.entries()) {
      if (inline[i]) continue;
      members.push(
        lines
          .slice(at, at + c)
          .map((l) => `${l}\n`)
          .join(""),
      );
      at += c;
    }
    return members;
  }
  if (version === 4) {
    const resources = Array.isArray(names) ? names.length : 0;
    if (lines.length !== n + 1 + resources) return [text];
    return [`${lines.slice(0, n).join("\n")}\n`, ...lines.slice(n).map((l) => `${l}\n`)];
  }
  if (version === 2 ? lines.length !== n + 2 : lines.length < n + 2) return [text];
  return [`${lines.slice(0, n).join("\n")}\n`, `${lines[n]}\n`, `${lines.slice(n + 1).join("\n")}\n`];
}

/**
 * The head's line and one per response body (the first member's lines before version 6) of a
 * version 2 to 6 head as parsed; undefined for any other head.
 */
function headLineCount(head: unknown): number | undefined {
  const h = head as { log_version?: unknown; events?: unknown } | null | undefined;
  const v = h?.log_version;
  if ((v !== 2 && v !== 3 && v !== 4 && v !== 5 && v !== 6) || !Array.isArray(h?.events)) return undefined;
  return 1 + h.events.filter((e) => (e as { type?: unknown } | null)?.type === "exchange").length;
}

function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * A stored log whose payload turned out unreadable when a predicate first read it (only with
 * `decodeTrialLog`'s `lazy`). A re-grade lists the trial as not re-gradable.
 */
export class TrialLogPayloadError extends Error {
  readonly code = "invalid" as const;
}

export interface DecodeTrialLogOptions {
  /**
   * Parse each response body and the final records when first read, not up front: a re-grade
   * reads few of them. One that does not parse then throws `TrialLogPayloadError` where it is
   * read. The lazy properties come last among their object's keys. Version 1 files are read whole.
   */
  lazy?: boolean;
}

type Decoded = { success: true; data: StoredTrialLog } | { success: false; error: TrialLogError };

/**
 * The parts of a version 2 or 3 log before they are parsed: lines not yet decoded, texts, or gzip
 * members not yet inflated.
 */
interface V2Parts {
  version: 2 | 3;
  head: unknown;
  /** The head and body lines: the first `headLines` of `lines`. */
  lines: ByteLines;
  headLines: number;
  grader: { text: string } | { member: Buffer };
  /** The final records' lines, inflated, or their member. */
  finalRecords: { bytes: Buffer } | { member: Buffer };
}

/**
 * Compressed bytes back to a stored log, validated: version 2 (see `encodeTrialLog`; also when
 * recompressed as one gzip stream) or version 1 (one JSON document). The log keeps no view of
 * `bytes`: the caller may reuse them once this returns.
 *
 * @example const res = decodeTrialLog(readFileSync(path)); if (res.success) gradeTrial(gradeInputOf(res.data));
 */
export function decodeTrialLog(bytes: Uint8Array, options: DecodeTrialLogOptions = {}): Decoded {
  const lazy = options.lazy ?? false;
  const found = readSizedGzip(bytes);
  const members = found !== null && found.length >= 2 ? found : null;
  let lines: ByteLines;
  let head: unknown;
  try {
    // gunzip checks each member's checksum: what follows reads the bytes as they were written.
    // Lines are decoded when read: the head now, a response body when a predicate reads it.
    lines = new ByteLines(members ? gunzipMember(members[0] as Buffer) : gunzipSync(bytes));
    head = JSON.parse(lines.text(0) as string);
  } catch (e) {
    return { success: false, error: { code: "unreadable", message: (e as Error).message } };
  }
  const version = (head as { log_version?: unknown } | null)?.log_version;
  if (version === 1 && lines.length === 1) return decodeV1(head);
  if (version === 5 || version === 6)
    return decodeV5(head, version, lines, members && { members, bytes }, lazy);
  if (version === 4) return decodeV4(head, lines, members && { members, bytes }, lazy);
  if (version !== 2 && version !== 3) {
    return {
      success: false,
      error: {
        code: "log_version",
        message: `stored log version ${String(version)}, this apiflow reads versions 1 to ${TRIAL_LOG_VERSION}`,
      },
    };
  }
  if (members && members.length !== 3)
    return invalid(`${members.length} gzip members: version ${version} has 3`);
  if (members)
    return decodeV2(
      {
        version,
        head,
        lines,
        headLines: lines.length,
        grader: { member: members[1] as Buffer },
        // A copy: the bytes may be the caller's to reuse once decoded (see `readFileReused`).
        finalRecords: { member: Buffer.from(members[2] as Buffer) },
      },
      lazy,
    );
  if (lines.length < 3) return invalid(`${lines.length} lines: no grader or final records`);
  // One gzip stream (the members recompressed as one): version 2 ends with the grader and the
  // records' line; version 3's records take the lines after the grader.
  const n = version === 2 ? lines.length - 2 : (headLineCount(head) ?? lines.length - 2);
  if (n + 2 > lines.length) return invalid(`${lines.length} lines: no grader or final records`);
  return decodeV2(
    {
      version,
      head,
      lines,
      headLines: n,
      grader: { text: lines.text(n) as string },
      finalRecords: { bytes: lines.bytesFrom(n + 1) },
    },
    lazy,
  );
}

function invalid(error: z.ZodError | string): { success: false; error: TrialLogError } {
  if (typeof error === "string") return { success: false, error: { code: "invalid", message: error } };
  const issue = error.issues[0];
  return {
    success: false,
    error: { code: "invalid", message: `${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}` },
  };
}

function decodeV1(raw: unknown): Decoded {
  const graderText = JSON.stringify((raw as { grader?: unknown }).grader);
  const key = graderText === undefined ? undefined : `json:${graderText}`;
  const known = key === undefined ? undefined : (internedParts.get(key) as GraderSpec | undefined);
  const parsed = known ? V1KnownGraderSchema.safeParse(raw) : V1LogSchema.safeParse(raw);
  if (!parsed.success) return invalid(parsed.error);
  if (known) return { success: true, data: { ...parsed.data, grader: known } };
  if (key !== undefined) intern(key, parsed.data.grader);
  return { success: true, data: parsed.data };
}

/** A version 1 log whose grader is one already validated (see `internedGraders`). */
const V1KnownGraderSchema = V1LogSchema.extend({ grader: z.custom<GraderSpec>(() => true) });

function decodeV2(parts: V2Parts, lazy: boolean): Decoded {
  const parsedHead = V2HeadSchema.safeParse(parts.head);
  if (!parsedHead.success) return invalid(parsedHead.error);
  const { events: headEvents, ...rest } = parsedHead.data;
  const { lines, headLines } = parts;

  const events: StoredTrialLog["events"] = [];
  let line = 1;
  for (const e of headEvents) {
    if (e.type !== "exchange") {
      events.push(e);
      continue;
    }
    const where = `events.${events.length}.response_body`;
    if (e.response_body !== line) return invalid(`${where}: line ${e.response_body}, expected line ${line}`);
    const at = line++;
    if (at >= headLines) return invalid(`${where}: no line ${e.response_body}`);
    if (lazy) {
      const { response_body: _line, ...envelope } = e;
      events.push(withLazy(envelope, "response_body", () => payload(lines.text(at) as string, where)));
      continue;
    }
    const value = parseLine(lines.text(at) as string);
    if (value === undefined) return invalid(`${where}: not JSON`);
    events.push({ ...e, response_body: value as JsonValue });
  }
  if (headLines !== line) return invalid(`${headLines - line} lines after the last response body`);

  const grader = knownPart(parts.grader, GraderSpecSchema, "grader");
  if (!grader.success) return grader;
  const log = { ...rest, grader: grader.data, events };
  const records = () =>
    parts.version === 2 ? finalRecords(parts.finalRecords) : finalRecordsV3(parts.finalRecords, lazy);
  return withRecords(log, records, lazy);
}

/**
 * A version 4 log: the head checked by `isPlainV4Head` (by its schema when that refuses it), the
 * task part known by its bytes, the events rebuilt in the schema's key order with each response
 * body read from its line (when first read, with `lazy`), the final records by resource, each
 * inflated and parsed when first read (with `lazy`). From members, or from one gzip stream's lines.
 */
function decodeV4(
  raw: unknown,
  lines: ByteLines,
  sized: { members: Buffer[]; bytes: Uint8Array } | null,
  lazy: boolean,
): Decoded {
  const checked = checkedHead(raw, 4, V4HeadSchema);
  if (!checked.success) return checked;
  const head = checked.data;
  const names = head.final_resources;
  const resources = names?.length ?? 0;
  let headLines: number;
  let taskSource: { text: string } | { member: Buffer };
  let resource: (i: number) => { text: string } | { member: Buffer };
  if (sized) {
    const parts = sizedParts(sized, resources, lazy);
    if (!parts.success) return parts;
    headLines = lines.length;
    ({ taskSource, resource } = parts.data);
  } else {
    headLines = 1 + head.events.reduce((n, e) => (e.type === "exchange" ? n + 1 : n), 0);
    if (lines.length !== headLines + 1 + resources)
      return invalid(`${lines.length} lines: expected ${headLines + 1 + resources}`);
    taskSource = { text: lines.text(headLines) as string };
    resource = (i) => ({ text: lines.text(headLines + 1 + i) as string });
  }

  const events: StoredTrialLog["events"] = [];
  let line = 1;
  for (const e of head.events) {
    if (e.type !== "exchange") {
      const { type, seq, scope, name, value } = e;
      events.push({ type, seq, scope, name, value });
      continue;
    }
    const where = `events.${events.length}.response_body`;
    if (e.response_body !== line) return invalid(`${where}: line ${e.response_body}, expected line ${line}`);
    const at = line++;
    if (at >= headLines) return invalid(`${where}: no line ${e.response_body}`);
    const envelope = envelopeOf(e);
    if (lazy) {
      events.push(withLazy(envelope, "response_body", () => payload(lines.text(at) as string, where)));
      continue;
    }
    const value = parseLine(lines.text(at) as string);
    if (value === undefined) return invalid(`${where}: not JSON`);
    events.push({ ...envelope, response_body: value as JsonValue });
  }
  if (headLines !== line) return invalid(`${headLines - line} lines after the last response body`);

  const task = knownPart(taskSource, TaskPartSchema, "task");
  if (!task.success) return task;
  const log = logOf(head, task.data, events, head.answer_key) as Omit<StoredTrialLog, "final_records">;
  if (names === null) return { success: true, data: { ...log, final_records: null } };
  const records = () => {
    const out: Record<string, JsonObject[]> = {};
    names.forEach((name, i) => {
      const read = () => resourceRecords(resourceText(resource(i), name), name);
      if (lazy) withLazy(out, name, read);
      else out[name] = read();
    });
    return out;
  };
  return withRecords(log, records, lazy);
}

/** An exchange without its response body, in the schema's key order. */
function envelopeOf(e: Omit<ExchangeEvent, "response_body">): Omit<ExchangeEvent, "response_body"> {
  return {
    type: e.type,
    seq: e.seq,
    protocol: e.protocol,
    method: e.method,
    url: e.url,
    ...(e.raw_url !== undefined ? { raw_url: e.raw_url } : {}),
    request_headers: e.request_headers,
    request_body: e.request_body,
    status: e.status,
    response_headers: e.response_headers,
  };
}

/** A version 4 to 6 head: as parsed when `isPlainHead` accepts it, else as its schema reads it. */
function checkedHead<T>(
  raw: unknown,
  version: 4 | 5 | 6,
  schema: z.ZodType<T>,
): { success: true; data: T } | { success: false; error: TrialLogError } {
  if (isPlainHead(raw, version)) return { success: true, data: raw as T };
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed : invalid(parsed.error);
}

/**
 * A log with its final records: read when first read with `lazy`, else now (refused when they
 * cannot be read).
 */
function withRecords(
  log: Omit<StoredTrialLog, "final_records">,
  records: () => StoredTrialLog["final_records"],
  lazy: boolean,
): Decoded {
  if (lazy) return { success: true, data: withLazy(log, "final_records", records) };
  try {
    return { success: true, data: { ...log, final_records: records() } };
  } catch (e) {
    if (e instanceof TrialLogPayloadError) return invalid(e.message);
    throw e;
  }
}

/**
 * Version 4 and 5's members after the first: the task part's, and each resource's (`n`) by its
 * rank. With `lazy`, the resources' are a copy: the bytes may be the caller's to reuse once decoded.
 */
function sizedParts(
  { members, bytes }: { members: Buffer[]; bytes: Uint8Array },
  n: number,
  lazy: boolean,
):
  | {
      success: true;
      data: { taskSource: { member: Buffer }; resource: (i: number) => { member: Buffer } };
    }
  | { success: false; error: TrialLogError } {
  if (members.length !== 2 + n)
    return invalid(`${members.length} gzip members for ${n} resources: expected ${2 + n}`);
  const first = members[2];
  const from = first ? first.byteOffset - bytes.byteOffset : 0;
  const tail = first && lazy ? Buffer.from(bytes.subarray(from)) : null;
  const resource = (i: number) => {
    const m = members[2 + i] as Buffer;
    const at = m.byteOffset - bytes.byteOffset - from;
    return { member: tail ? tail.subarray(at, at + m.length) : m };
  };
  return { success: true, data: { taskSource: { member: members[1] as Buffer }, resource } };
}

/**
 * A version 4 to 6 log but its final records: the head's fields, the task part's, the events, and
 * the answer key when given (where the log has it; a version 6 log read lazily gets it last).
 */
function logOf(
  head: V4Head | V5Head | V6Head,
  task: TaskPart,
  events: StoredTrialLog["events"],
  answerKey: StoredTrialLog["answer_key"] | undefined,
) {
  const { graded_segments, requirements, grader } = task;
  return {
    log_version: head.log_version,
    bank_hash: head.bank_hash,
    agent: head.agent,
    task_id: head.task_id,
    epoch: head.epoch,
    trial_seed: head.trial_seed,
    grader_version: head.grader_version,
    graded_segments,
    ...(answerKey !== undefined ? { answer_key: answerKey } : {}),
    stop_reason: head.stop_reason,
    stop_detail: head.stop_detail,
    final_message: head.final_message,
    ...(head.removed_records !== undefined ? { removed_records: head.removed_records } : {}),
    ...(requirements !== undefined ? { requirements } : {}),
    grader,
    events,
  };
}

/**
 * A version 5 or 6 log: as version 4's, but the head's events are kept as JSON.parse made them
 * (written in the schema's key order; each exchange gets its response body from its line), and
 * each resource's records are one line each: a selector's records are found by their text (see
 * `RECORDS_HOLDING`), and only those are parsed. Version 6's answer key is its line after the
 * bodies (parsed when first read, with `lazy`), and an inline resource's lines follow it.
 */
function decodeV5(
  raw: unknown,
  version: 5 | 6,
  lines: ByteLines,
  sized: { members: Buffer[]; bytes: Uint8Array } | null,
  lazy: boolean,
): Decoded {
  const checked = version === 5 ? checkedHead(raw, 5, V5HeadSchema) : checkedHead(raw, 6, V6HeadSchema);
  if (!checked.success) return checked;
  const head: V5Head | V6Head = checked.data;
  const resources: ReadonlyArray<{ resource: string; records: number; inline?: boolean }> | null =
    head.final_resources;
  const exchanges = head.events.reduce((n, e) => (e.type === "exchange" ? n + 1 : n), 0);
  const headLines = 1 + exchanges;
  // Where each resource's lines start (an inline one's in the first member, after the answer key),
  // else its rank among the resources with a member of their own.
  const starts: number[] = [];
  const ranks: number[] = [];
  let firstLines = version === 6 ? headLines + 1 : headLines;
  let outside = 0;
  for (const r of resources ?? []) {
    starts.push(r.inline ? firstLines : -1);
    ranks.push(r.inline ? -1 : outside);
    if (r.inline) firstLines += r.records;
    else outside++;
  }
  let taskSource: { text: string } | { member: Buffer };
  let member: (rank: number) => { member: Buffer } = () => {
    throw new Error("no member: every resource is in the text");
  };
  if (sized) {
    const parts = sizedParts(sized, outside, lazy);
    if (!parts.success) return parts;
    if (lines.length !== firstLines)
      return invalid(`${lines.length} lines of the first member: expected ${firstLines}`);
    ({ taskSource, resource: member } = parts.data);
  } else {
    const records = (resources ?? []).reduce((n, r) => n + (r.inline ? 0 : r.records), 0);
    if (lines.length !== firstLines + 1 + records)
      return invalid(`${lines.length} lines: expected ${firstLines + 1 + records}`);
    taskSource = { text: lines.text(firstLines) as string };
    let at = firstLines + 1;
    for (const [i, r] of (resources ?? []).entries()) {
      if (r.inline) continue;
      starts[i] = at;
      at += r.records;
    }
  }
  const resource = (i: number): { text: string } | { member: Buffer } => {
    const start = starts[i] as number;
    if (start < 0) return member(ranks[i] as number);
    return { text: lines.bytesFrom(start, start + (resources?.[i]?.records ?? 0)).toString("utf8") };
  };

  const events = head.events as StoredTrialLog["events"];
  let line = 1;
  for (let k = 0; k < events.length; k++) {
    const e = events[k] as StoredTrialLog["events"][number];
    if (e.type !== "exchange") continue;
    const at = line++;
    if (lazy) {
      // Where it is, in words, only for a body that does not parse.
      withLazy(e, "response_body", () => payload(lines.text(at) as string, `events.${k}.response_body`));
      continue;
    }
    const value = parseLine(lines.text(at) as string);
    if (value === undefined) return invalid(`events.${k}.response_body: not JSON`);
    e.response_body = value as JsonValue;
  }

  const task = knownPart(taskSource, TaskPartSchema, "task");
  if (!task.success) return task;
  let answerKey: StoredTrialLog["answer_key"] | undefined;
  if ("answer_key" in head) answerKey = head.answer_key;
  else if (!lazy) {
    const read = answerKeyOf(lines.text(headLines) as string);
    if (!read.success) return read;
    answerKey = read.data;
  }
  // A version 6 log read lazily: the answer key when first read (a re-grade never reads it).
  const keyed = <T extends object>(log: T) =>
    (answerKey !== undefined
      ? log
      : withLazy(log, "answer_key", () => {
          const read = answerKeyOf(lines.text(headLines) as string);
          if (!read.success) throw new TrialLogPayloadError(read.error.message);
          return read.data;
        })) as T & Pick<StoredTrialLog, "answer_key">;
  const log = logOf(head, task.data, events, answerKey);
  if (resources === null) return { success: true, data: keyed({ ...log, final_records: null }) };
  const records = () => {
    const out: Record<string, JsonObject[]> & RecordsHolding = {};
    const byName = new Map<string, ResourceLines>();
    resources.forEach(({ resource: name, records: count }, i) => {
      const lines = new ResourceLines(name, count, () => resourceText(resource(i), name));
      byName.set(name, lines);
      if (lazy) withLazy(out, name, () => lines.all());
      else out[name] = lines.all();
    });
    if (lazy)
      Object.defineProperty(out, RECORDS_HOLDING, {
        value: (name: string, texts: readonly string[]) => byName.get(name)?.holding(texts),
      });
    return out;
  };
  return withRecords(keyed(log), records, lazy);
}

/** A version 6 answer key's line: as JSON.parse made it when `isAnswerKey`, else as its schema reads it. */
function answerKeyOf(
  text: string,
): { success: true; data: StoredTrialLog["answer_key"] } | { success: false; error: TrialLogError } {
  const value = parseLine(text);
  if (value === undefined) return invalid("answer_key: not JSON");
  if (isAnswerKey(value)) return { success: true, data: value as StoredTrialLog["answer_key"] };
  const parsed = AnswerKeySchema.safeParse(value);
  return parsed.success ? parsed : invalid(prefixed("answer_key", parsed.error));
}

/**
 * A version 5 resource's records, one line each: the text read when first needed, each line parsed
 * when first read. `TrialLogPayloadError` when the text cannot be read, holds another number of
 * lines than the head says, or a line read is no JSON object.
 */
class ResourceLines {
  #text: string | undefined;
  /** Whether the text holds an escape (see `holding`). */
  #escaped = false;
  /** Where each line ends (its line break, or the end of the text). */
  #ends: number[] = [];
  readonly #parsed: Array<JsonObject | undefined>;
  #all: JsonObject[] | undefined;

  constructor(
    readonly name: string,
    readonly count: number,
    private readonly read: () => string,
  ) {
    this.#parsed = new Array<JsonObject | undefined>(count);
  }

  /** Every record, in order. */
  all(): JsonObject[] {
    if (!this.#all) {
      this.#text ?? this.#load();
      const all: JsonObject[] = [];
      for (let i = 0; i < this.count; i++) all.push(this.#record(i));
      this.#all = all;
    }
    return this.#all;
  }

  /**
   * The records whose line holds every one of `texts` (see `RECORDS_HOLDING`); undefined when the
   * text holds an escape: a string's JSON form may then be written otherwise, and only parsing tells.
   */
  holding(texts: readonly string[]): JsonObject[] | undefined {
    const text = this.#text ?? this.#load();
    if (this.#escaped) return undefined;
    const out: JsonObject[] = [];
    const [first, ...rest] = texts as [string, ...string[]];
    let i = 0;
    for (let at = text.indexOf(first); at >= 0; ) {
      while ((this.#ends[i] as number) < at) i++;
      const start = i === 0 ? 0 : (this.#ends[i - 1] as number) + 1;
      const end = this.#ends[i] as number;
      const line = rest.length > 0 ? text.slice(start, end) : "";
      if (rest.every((t) => line.includes(t))) out.push(this.#record(i));
      at = text.indexOf(first, end + 1);
      i++;
    }
    return out;
  }

  #load(): string {
    const text = this.read();
    const ends: number[] = [];
    if (text !== "") {
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", nl + 1)) ends.push(nl);
      ends.push(text.length);
    }
    if (ends.length !== this.count)
      throw new TrialLogPayloadError(
        `final_records.${this.name}: ${ends.length} records, the head says ${this.count}`,
      );
    this.#ends = ends;
    this.#text = text;
    // Once per text, not per selector (a trial's selectors ask one resource 3 times on average).
    this.#escaped = text.includes("\\");
    return text;
  }

  #record(i: number): JsonObject {
    let r = this.#parsed[i];
    if (r === undefined) {
      const start = i === 0 ? 0 : (this.#ends[i - 1] as number) + 1;
      const where = `final_records.${this.name}.${i}`;
      const value = payload((this.#text as string).slice(start, this.#ends[i]), where);
      if (value === null || typeof value !== "object" || Array.isArray(value))
        throw new TrialLogPayloadError(`${where}: expected a JSON object`);
      r = value;
      this.#parsed[i] = r;
    }
    return r;
  }
}

/** A resource's line of version 4's final records, inflated from its member; `TrialLogPayloadError` when it does not. */
function resourceText(source: { text: string } | { member: Buffer }, name: string): string {
  if ("text" in source) return source.text;
  try {
    return inflateMember(source.member).replace(/\n$/, "");
  } catch (e) {
    throw new TrialLogPayloadError(`final_records.${name}: ${(e as Error).message}`);
  }
}

/**
 * A part every trial of a task stores alike (a version 2 or 3 log's grader, a version 4 log's task
 * part): each distinct one is inflated and validated once, known after by its compressed bytes
 * (the same bytes always inflate to the same text) or its text, and shared.
 */
function knownPart<T>(
  source: { text: string } | { member: Buffer },
  schema: z.ZodType<T>,
  where: string,
): { success: true; data: T } | { success: false; error: TrialLogError } {
  if ("member" in source) {
    const known = memberPart(source.member, schema);
    if (known) return { success: true, data: known.value as T };
  }
  const key = "member" in source ? undefined : `${where}:${source.text}`;
  const known = key === undefined ? undefined : internedParts.get(key);
  if (known) return { success: true, data: known as T };
  let text: string;
  try {
    text = "member" in source ? inflateMember(source.member).replace(/\n$/, "") : source.text;
  } catch (e) {
    return invalid(`${where}: ${(e as Error).message}`);
  }
  const parsed = schema.safeParse(parseLine(text));
  if (!parsed.success) return invalid(prefixed(where, parsed.error));
  if (key === undefined) internMember(source as { member: Buffer }, schema, parsed.data);
  else intern(key, parsed.data);
  return { success: true, data: parsed.data };
}

/**
 * Parts known by their gzip member, looked up by the member's CRC-32 (its trailer's first four
 * bytes) and then compared byte for byte: no key string is made of a member's bytes per trial.
 */
const memberParts = new Map<number, Array<{ member: Buffer; schema: z.ZodType; value: unknown }>>();
let memberPartCount = 0;

function memberPart(member: Buffer, schema: z.ZodType): { value: unknown } | undefined {
  const same = memberParts.get(member.readUInt32LE(member.length - 8));
  if (same)
    for (const known of same) if (known.schema === schema && known.member.equals(member)) return known;
  return undefined;
}

function internMember({ member }: { member: Buffer }, schema: z.ZodType, value: unknown): void {
  if (memberPartCount >= 10_000) {
    memberParts.clear();
    memberPartCount = 0;
  }
  const crc = member.readUInt32LE(member.length - 8);
  // A copy: the member is a view of the whole file's bytes.
  memberParts.set(crc, [...(memberParts.get(crc) ?? []), { member: Buffer.from(member), schema, value }]);
  memberPartCount++;
}

/** The final records; `TrialLogPayloadError` when they do not inflate, parse or validate. */
function finalRecords(source: V2Parts["finalRecords"]): StoredTrialLog["final_records"] {
  let text: string;
  try {
    text = ("member" in source ? gunzipSync(source.member) : source.bytes).toString("utf8");
  } catch (e) {
    throw new TrialLogPayloadError(`final_records: ${(e as Error).message}`);
  }
  const parsed = FinalRecordsSchema.safeParse(payload(text, "final_records"));
  if (!parsed.success) throw new TrialLogPayloadError(prefixed("final_records", parsed.error));
  return parsed.data;
}

/**
 * Version 3's final records: `null`, or the resources' names then one line of records each. With
 * `lazy`, each resource's line is parsed and checked when first read. `TrialLogPayloadError` when
 * they do not inflate, parse or validate.
 */
function finalRecordsV3(source: V2Parts["finalRecords"], lazy: boolean): StoredTrialLog["final_records"] {
  let lines: ByteLines;
  try {
    lines = new ByteLines("member" in source ? gunzipSync(source.member) : source.bytes);
  } catch (e) {
    throw new TrialLogPayloadError(`final_records: ${(e as Error).message}`);
  }
  const names = payload(lines.text(0) as string, "final_records");
  if (names === null) {
    if (lines.length !== 1)
      throw new TrialLogPayloadError(`final_records: ${lines.length - 1} lines after null`);
    return null;
  }
  const parsedNames = ResourceNamesSchema.safeParse(names);
  if (!parsedNames.success) throw new TrialLogPayloadError(prefixed("final_records", parsedNames.error));
  if (lines.length !== parsedNames.data.length + 1)
    throw new TrialLogPayloadError(
      `final_records: ${parsedNames.data.length} resources on ${lines.length - 1} lines`,
    );
  const records: Record<string, JsonObject[]> = {};
  parsedNames.data.forEach((name, i) => {
    const read = () => resourceRecords(lines.text(i + 1) as string, name);
    if (lazy) withLazy(records, name, read);
    else records[name] = read();
  });
  return records;
}

const ResourceRecordsSchema = z.array(ParsedJsonObject);

function resourceRecords(text: string, name: string): JsonObject[] {
  const where = `final_records.${name}`;
  const value = payload(text, where);
  // Checked in place (an array of objects), not copied; the schema names what is wrong.
  if (Array.isArray(value) && value.every((r) => r !== null && typeof r === "object" && !Array.isArray(r)))
    return value as JsonObject[];
  const parsed = ResourceRecordsSchema.safeParse(value);
  if (!parsed.success) throw new TrialLogPayloadError(prefixed(where, parsed.error));
  return parsed.data;
}

/** A line's JSON; undefined when it is not JSON. */
function parseLine(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A payload's JSON, or `TrialLogPayloadError`. */
function payload(text: string, where: string): JsonValue {
  const value = parseLine(text);
  if (value === undefined) throw new TrialLogPayloadError(`${where}: not JSON`);
  return value as JsonValue;
}

function prefixed(where: string, error: z.ZodError): string {
  const issue = error.issues[0];
  return `${[where, ...(issue?.path ?? [])].join(".")}: ${issue?.message ?? "invalid"}`;
}

/** Where a lazily read property keeps how to read it, then its value (a symbol-keyed slot per key). */
interface LazySlot {
  read: () => unknown;
  value?: unknown;
}
const lazySlots = new Map<string, { slot: symbol; getter: PropertyDescriptor }>();

/**
 * `obj` with `key` added last, made by `read` on first access and then kept: a plain enumerable
 * property to every reader (spread, JSON.stringify). One getter per key, shared by every object,
 * with `read` in a slot keyed by a symbol, and the key new to `obj`: a getter closed over each
 * object's data, or one replacing an existing property, gives each object its own hidden class or
 * a slow one, which V8's garbage collector and every property read then pay for. The slot is set
 * by assignment, not defined: half the cost (a re-grade makes one per response body), and a
 * symbol-keyed property is still no key to `Object.keys`, `for…in` or JSON.stringify (a spread
 * copies it with the value it read, which is harmless).
 */
function withLazy<T extends object, K extends string, V>(obj: T, key: K, read: () => V): T & Record<K, V> {
  let lazy = lazySlots.get(key);
  if (!lazy) {
    const slot = Symbol(`lazy ${key}`);
    const get = function (this: Record<symbol, LazySlot>) {
      const s = this[slot] as LazySlot;
      if (!("value" in s)) s.value = s.read();
      return s.value;
    };
    lazy = { slot, getter: { get, enumerable: true, configurable: true } };
    lazySlots.set(key, lazy);
  }
  (obj as Record<symbol, LazySlot>)[lazy.slot] = { read };
  Object.defineProperty(obj, key, lazy.getter);
  return obj as T & Record<K, V>;
}

// Validated graders and task parts by their stored form (bank data: never mutated once parsed).
// The graders of a run repeat (one per task): each distinct one is validated once and then
// shared, which also lets the grader reuse what it prepared for it. Holds nothing of any trial,
// so a decoded log never carries another trial's findings.
const internedParts = new Map<string, unknown>();

function intern<T>(key: string, part: T): T {
  if (internedParts.size >= 10_000) internedParts.clear();
  internedParts.set(key, part);
  return part;
}

/**
 * Read a stored log file.
 *
 * @example const res = readTrialLog(trialLogPath("runs/x/transcripts/golden/harbor-sub01-t1.json"));
 */
export function readTrialLog(path: string, options: DecodeTrialLogOptions = {}): Decoded {
  let bytes: Buffer;
  try {
    bytes = readFileReused(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT")
      return { success: false, error: { code: "missing", message: `no stored event log at ${path}` } };
    return { success: false, error: { code: "unreadable", message: `${path}: ${(e as Error).message}` } };
  }
  const res = decodeTrialLog(bytes, options);
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
