import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TrialGrade } from "../grade/grade-schema.js";
import {
  TRANSCRIPT_SCHEMA_VERSION,
  type Transcript,
  type Verifier,
  type VerifierPredicate,
} from "../trial/transcript-schema.js";
import type { TrialResult } from "./run-trial.js";
import { UNSCORED_OUTCOMES } from "./trial-record.js";

/**
 * The one-line failure reason of a trial, worded so that the 1.0 importer reads the same outcome
 * back (`agent abstained (clarify): …`, `step limit …`, `context overflow: …`).
 *
 * @example trialFailureReason(result) // "agent abstained (clarify): which vessel?; 0/4 predicates matched; …"
 */
export function trialFailureReason(
  r: Pick<TrialResult, "outcome" | "stop_reason" | "stop_detail" | "grade">,
): string {
  const grade = r.grade.failure_reason;
  switch (r.outcome) {
    case "pass":
      return "all predicates matched (G1 state ✓, G2 answer ✓)";
    case "fail":
      return r.stop_reason === "disconnected" ? `agent disconnected: ${r.stop_detail}; ${grade}` : grade;
    case "abstained":
      return `agent abstained (${r.stop_reason}): ${r.stop_detail}${grade ? `; ${grade}` : ""}`;
    case "limit": {
      const which = { tool_call_limit: "step", token_limit: "token", time_limit: "time" }[
        r.stop_reason as string
      ];
      return `${which ?? "step"} limit reached (${r.stop_reason}): ${r.stop_detail}`;
    }
    case "context_overflow":
      return `context overflow: ${r.stop_detail}`;
    case "agent_error":
      return `agent error: ${r.stop_detail}`;
    case "provider_error":
      return `provider error (not scored): ${r.stop_detail}`;
    case "harness_error":
      return `harness error (not scored): ${r.stop_detail}`;
  }
}

/** The 1.0 `verifier` block, built from our grade. */
export function verifierOf(grade: TrialGrade, toolCalls: number, explanation: string): Verifier {
  const predicates: VerifierPredicate[] = [
    ...grade.g2.map((f) => ({
      label: `answer.${f.field} == ${JSON.stringify(f.expected)}`,
      key: `answer_schema.${f.field}`,
      group: "G2",
      segment: null,
      passed: f.passed,
      detail: {
        field: f.field,
        expected: f.expected,
        comparator: f.comparator,
        ...(f.got !== undefined ? { got: f.got } : {}),
        ...(f.reason ? { reason: f.reason } : {}),
      },
    })),
    ...grade.g1.map((p) => ({
      label: `${p.kind}#${p.id}`,
      key: p.id,
      group: "G1",
      segment: p.segment ?? null,
      passed: p.passed,
      detail: {
        explain: p.explain,
        ...(p.reason ? { reason: p.reason } : {}),
        ...(p.value !== undefined ? { value: p.value } : {}),
      },
    })),
  ];
  return {
    scorer: "apiflow_grader",
    value: grade.passed ? "C" : "I",
    explanation,
    metadata: {
      sub_predicates: {
        grader_version: grade.grader_version,
        tool_call_count: toolCalls,
        card_found: grade.card_found,
        checkpoints: grade.checkpoints.map((c) => ({ ...c, applicable: true })),
        constraints: grade.constraints.map((c) => ({ ...c, applicable: true })),
        g1_passed: grade.g1_passed,
        g2_passed: grade.g2_passed,
        predicates_passed: grade.predicates_passed,
        predicates_total: grade.predicates_total,
        segment_diagnostics: {
          per_segment: grade.segments?.per_segment ?? {},
          failure_stage: grade.segments?.failure_stage ?? null,
          ...(grade.segments?.failure_requirement
            ? { failure_requirement: grade.segments.failure_requirement }
            : {}),
        },
      },
      partial_score: grade.partial_score,
      predicates,
    },
  };
}

export interface TranscriptContext {
  /** The slug: `gpt-5-mini`, or `golden` for a scripted agent. */
  model: string;
  /** `openai/gpt-5-mini`; absent for scripted agents. */
  modelApi?: string;
  provenance: Record<string, unknown>;
}

/**
 * A trial as a 1.0-layout transcript. Unscored trials (provider or harness errors) carry verdict
 * `""`, `passed: null` and no verifier, as the 1.0 export does.
 *
 * @example const t = buildTranscript(result, { model: "golden", provenance: { bench: "APIFlow-Bench" } });
 */
export function buildTranscript(r: TrialResult, ctx: TranscriptContext): Transcript {
  const scored = !UNSCORED_OUTCOMES.has(r.outcome);
  const reason = trialFailureReason(r);
  return {
    schema_version: TRANSCRIPT_SCHEMA_VERSION,
    model: ctx.model,
    ...(ctx.modelApi ? { model_api: ctx.modelApi } : {}),
    task_id: r.task_id,
    trial: r.epoch,
    verdict: scored ? (r.outcome === "pass" ? "C" : "I") : "",
    passed: scored ? r.outcome === "pass" : null,
    failure_reason: reason,
    tokens: { input: r.tokens.input, output: r.tokens.output, cache: r.tokens.cache, total: r.tokens.total },
    duration_s: Math.round(r.duration_s * 1000) / 1000,
    messages: r.messages,
    verifier: scored ? verifierOf(r.grade, r.tool_calls, reason) : null,
    provenance: {
      ...ctx.provenance,
      epoch: r.epoch,
      trial_seed: r.trial_seed,
      outcome: r.outcome,
      stop_reason: r.stop_reason,
      cache_write_tokens: r.tokens.cache_write,
    },
  };
}

/**
 * Replaces every known secret (API keys in use) in a text. Applied to everything a run writes.
 *
 * @example redactor(["sk-abc"])("Bearer sk-abc") // "Bearer [redacted]"
 */
export function redactor(secrets: readonly string[]): (text: string) => string {
  const live = secrets.filter((s) => s.length >= 4);
  if (live.length === 0) return (t) => t;
  return (text) => {
    let out = text;
    for (const s of live) out = out.split(s).join("[redacted]");
    return out;
  };
}

/** Write a transcript atomically (temp file then rename): a killed run never leaves half a file. */
export function writeTranscript(
  runDir: string,
  relPath: string,
  transcript: Transcript,
  redact: (text: string) => string = (t) => t,
): void {
  const path = join(runDir, relPath);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${redact(JSON.stringify(transcript, null, 1))}\n`);
  renameSync(`${path}.tmp`, path);
}
