import type { Outcome, TrialRecord } from "../run/trial-record.js";
import type { TaskIdParts } from "./task-id.js";
import type { TranscriptHeader } from "./transcript-header.js";

/** The bank hash given to imported 1.0 data: its content hash is not published, its version is. */
export function officialBankHash(bankPrefix: string): string {
  return `official-1.0:${bankPrefix}`;
}

const ABSTAINED = /^agent abstained \((\w+)\)/;
const CONTEXT_OVERFLOW = /context[ _-]?(length|window|overflow)|maximum context|prompt is too long/i;
const LIMIT = /\b(message|token|step|time|turn|working)[ _-]?limit\b/i;

/**
 * The outcome of a published trial. The 1.0 verifier writes `C`/`I`/`""`; an `I` is split by its
 * failure reason into abstentions, loop limits and context overflows (all still scored failures).
 *
 * @example outcomeOfTranscript({ verdict: "I", failure_reason: "agent abstained (clarify): …" }) // "abstained"
 */
export function outcomeOfTranscript(t: Pick<TranscriptHeader, "verdict" | "failure_reason">): Outcome {
  if (t.verdict === "") return "unscored";
  if (t.verdict === "C") return "pass";
  const reason = t.failure_reason ?? "";
  if (ABSTAINED.test(reason)) return "abstained";
  if (reason.startsWith("agent error:")) return "agent_error";
  if (CONTEXT_OVERFLOW.test(reason)) return "context_overflow";
  if (LIMIT.test(reason)) return "limit";
  return "fail";
}

const boolOrNull = (v: unknown): boolean | null => (typeof v === "boolean" ? v : null);

/**
 * Map one published transcript (its header: the messages are not needed) onto a store row.
 *
 * @example transcriptToRecord(t, parseTaskId(t.task_id)!, "claude-sonnet-4-6", "transcripts/…json")
 */
export function transcriptToRecord(
  t: TranscriptHeader,
  task: TaskIdParts,
  agent: string,
  transcriptPath: string | null,
): TrialRecord {
  const outcome = outcomeOfTranscript(t);
  const sub = t.verifier?.metadata.sub_predicates;
  const reason = t.failure_reason ?? "";
  return {
    bank_hash: officialBankHash(task.bank),
    agent,
    task_id: t.task_id,
    epoch: t.trial,
    world: task.world,
    kind: task.kind,
    position: task.position,
    length: task.length,
    axis: null,
    outcome,
    passed: outcome === "unscored" ? null : outcome === "pass",
    g1_passed: boolOrNull(sub?.g1_passed),
    g2_passed: boolOrNull(sub?.g2_passed),
    failure_reason: reason,
    partial_score: t.verifier?.metadata.partial_score ?? null,
    tokens: {
      input: t.tokens.input,
      output: t.tokens.output,
      // 1.0 records one cache figure, the tokens read from the provider's prompt cache.
      cache_read: t.tokens.cache,
      cache_write: 0,
      total: t.tokens.total,
    },
    cost_usd: null,
    duration_s: t.duration_s,
    stop_reason: ABSTAINED.exec(reason)?.[1] ?? null,
    transcript: transcriptPath,
  };
}
