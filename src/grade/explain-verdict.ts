import { z } from "zod";
import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import type { G1Predicate } from "../bank/task-schema.js";
import type { ExchangeEvent, TrialEvent } from "../world/event-log.js";
import { extractAnswerCard } from "./answer-card.js";
import { checkpointHit, gradeConstraint, gradeG1Predicate, urlMatchesPattern } from "./grade-g1.js";
import type { TrialGrade } from "./grade-schema.js";
import { declaredFields, type GradeInput, gradeTrial } from "./grade-trial.js";
import { valuesEqual } from "./values-equal.js";

/** One event of the log cited as evidence, and what it shows for the predicate. */
export const EvidenceSchema = z.strictObject({
  /** The event's `seq` in the trial's log; null for evidence that is not an event (the answer card). */
  seq: z.number().int().nonnegative().nullable(),
  role: z.enum([
    "satisfied_by",
    "broken_by",
    "source",
    "stored_in",
    "used_in",
    "violated_by",
    "reached_by",
    "near_miss",
    "seen_in",
  ]),
  /** `#12 POST /v3/work-orders → 201` or `#13 local:order_id = "wo-81f2"`. */
  summary: z.string(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

/** One predicate of the verdict with its result and the events that decided it. */
export const ExplainedPredicateSchema = z.strictObject({
  group: z.enum(["G1", "G2", "constraint", "checkpoint"]),
  id: z.string(),
  kind: z.string(),
  segment: z.number().int().positive().nullable(),
  /** False for a selective chain's segments that are not graded (shown, never gating). */
  graded: z.boolean(),
  passed: z.boolean(),
  explain: z.string(),
  reason: z.string().nullable(),
  /** The ticket requirement it holds, when the task states its requirements as data. */
  requirement: z.string().optional(),
  /** G2: what the field had to hold and what the card held; G1: the value that travelled. */
  expected: z.unknown().optional(),
  got: z.unknown().optional(),
  evidence: z.array(EvidenceSchema),
});
export type ExplainedPredicate = z.infer<typeof ExplainedPredicateSchema>;

/**
 * A verdict explained predicate by predicate, from the event log. The verdict and each result are
 * the grader's own (`gradeTrial`); the evidence is found by asking the grader again on prefixes
 * of the log (the event after which a predicate holds, or stops holding), so it follows the
 * grader's matching rules whatever they are.
 */
export const ExplanationSchema = z.strictObject({
  passed: z.boolean(),
  g1_passed: z.boolean(),
  g2_passed: z.boolean(),
  card_found: z.boolean(),
  partial_score: z.number(),
  failure_reason: z.string(),
  events: z.number().int().nonnegative(),
  predicates: z.array(ExplainedPredicateSchema),
});
export type Explanation = z.infer<typeof ExplanationSchema>;

const NEAR_MISSES = 3;

/**
 * Explain a trial's verdict: every G2 field, G1 predicate, constraint and checkpoint with the
 * events that satisfied or broke it, and for answer fields where in the log the card's value was
 * seen. Pure: the same input gives the same explanation.
 *
 * @example const ex = explainVerdict(gradeInputOf(storedLog)); ex.predicates.filter((p) => !p.passed)
 */
export function explainVerdict(input: GradeInput, grade: TrialGrade = gradeTrial(input)): Explanation {
  const { events, grader, trialSeed } = input;
  const cardResult = extractAnswerCard(input.finalMessage ?? "", declaredFields(grader));
  const card = cardResult.success ? (cardResult.data as Record<string, unknown>) : null;
  const graded = (segment: number | undefined) =>
    input.gradedSegments === undefined || segment === undefined || input.gradedSegments.includes(segment);
  const predicates: ExplainedPredicate[] = [];

  // `grade.g2` holds the graded answer fields only, in the grader's order.
  const answered = grader.answer.filter((f) => graded(f.segment));
  grade.g2.forEach((f, i) => {
    const segment = answered[i]?.segment;
    const evidence: Evidence[] = [];
    if (f.got !== undefined && f.got !== null && typeof f.got !== "object") {
      const seen = firstResponseCarrying(events, f.got as JsonValue);
      evidence.push(
        seen
          ? { seq: seen.seq, role: "seen_in", summary: `${summarize(seen)} carries ${short(f.got)}` }
          : { seq: null, role: "seen_in", summary: `no response of the trial carries ${short(f.got)}` },
      );
    }
    predicates.push({
      group: "G2",
      id: f.field,
      kind: `answer.${f.comparator}`,
      segment: segment ?? null,
      graded: graded(segment),
      passed: f.passed,
      explain: `answer field '${f.field}' (${f.comparator}) must equal ${short(f.expected)}`,
      reason: f.reason ?? null,
      ...(answered[i]?.requirement ? { requirement: answered[i]?.requirement } : {}),
      expected: f.expected,
      got: f.got ?? null,
      evidence,
    });
  });

  grader.g1.forEach((predicate, i) => {
    const result = grade.g1[i];
    if (!result) return;
    const holds = (k: number) =>
      gradeG1Predicate(
        predicate,
        events.slice(0, k),
        card,
        trialSeed,
        input.finalRecords,
        input.removedRecords,
      ).passed;
    const evidence = turningPoint(events, result.passed, holds);
    evidence.push(...predicateDetail(predicate, events, result.value, result.passed));
    predicates.push({
      group: "G1",
      id: result.id,
      kind: result.kind,
      segment: result.segment ?? null,
      graded: graded(result.segment),
      passed: result.passed,
      explain: result.explain,
      reason: result.reason ?? null,
      ...(result.requirement ? { requirement: result.requirement } : {}),
      ...(result.value !== undefined ? { got: result.value } : {}),
      evidence,
    });
  });

  grader.constraints.forEach((constraint, i) => {
    const result = grade.constraints[i];
    if (!result) return;
    const evidence: Evidence[] = [];
    if (result.violated) {
      const k = firstPrefix(events.length, (n) => gradeConstraint(constraint, events.slice(0, n)).violated);
      const e = k === null ? undefined : events[k - 1];
      if (e) evidence.push({ seq: e.seq, role: "violated_by", summary: summarize(e) });
    }
    predicates.push({
      group: "constraint",
      id: result.id,
      kind: result.kind,
      segment: result.segment ?? null,
      graded: graded(result.segment),
      passed: !result.violated,
      explain: result.explain,
      reason: result.violated ? `violated by ${result.detail}` : null,
      evidence,
    });
  });

  grader.checkpoints.forEach((checkpoint, i) => {
    const result = grade.checkpoints[i];
    if (!result) return;
    const evidence: Evidence[] = [];
    if (result.hit) {
      const k = firstPrefix(events.length, (n) => checkpointHit(checkpoint, events.slice(0, n)));
      const e = k === null ? undefined : events[k - 1];
      if (e) evidence.push({ seq: e.seq, role: "reached_by", summary: summarize(e) });
    }
    predicates.push({
      group: "checkpoint",
      id: result.id,
      kind: "checkpoint",
      segment: result.segment ?? null,
      graded: false,
      passed: result.hit,
      explain: result.explain,
      reason: result.hit ? null : "not reached (diagnostic only, never gating)",
      evidence,
    });
  });

  return {
    passed: grade.passed,
    g1_passed: grade.g1_passed,
    g2_passed: grade.g2_passed,
    card_found: grade.card_found,
    partial_score: grade.partial_score,
    failure_reason: grade.failure_reason,
    events: events.length,
    predicates,
  };
}

/**
 * The event that decided a predicate, asking the grader on prefixes of the log: for one that
 * holds, the event after which it holds to the end; for one that fails but held on some prefix
 * (a later event broke it), the event that broke it.
 */
function turningPoint(
  events: readonly TrialEvent[],
  passed: boolean,
  holds: (k: number) => boolean,
): Evidence[] {
  const n = events.length;
  if (passed) {
    // Predicates are mostly monotone (once a call happened, it happened): search, then confirm.
    let k = firstPrefix(n, holds);
    if (k !== null && k > 0 && holds(k - 1)) k = null;
    if (k === null) {
      k = n;
      while (k > 0 && holds(k - 1)) k--;
    }
    if (k === 0)
      return [{ seq: null, role: "satisfied_by", summary: "holds without any event of the trial" }];
    const e = events[k - 1] as TrialEvent;
    return [{ seq: e.seq, role: "satisfied_by", summary: summarize(e) }];
  }
  for (let k = n - 1; k >= 0; k--) {
    if (!holds(k)) continue;
    const e = events[k] as TrialEvent;
    return [{ seq: e.seq, role: "broken_by", summary: `${summarize(e)} (it held before this event)` }];
  }
  return [];
}

/** Smallest prefix length for which `holds` is true, by binary search (assumes monotone). */
function firstPrefix(n: number, holds: (k: number) => boolean): number | null {
  if (!holds(n)) return null;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Where a G1 predicate's value came from and went, or the nearest calls when it failed. */
function predicateDetail(
  predicate: G1Predicate,
  events: readonly TrialEvent[],
  value: JsonValue | undefined,
  passed: boolean,
): Evidence[] {
  const out: Evidence[] = [];
  const exchanges = events.filter((e): e is ExchangeEvent => e.type === "exchange");
  if (predicate.kind === "data_flow") {
    const from = new RegExp(predicate.from_response_url_pattern);
    const sources = exchanges.filter((e) => urlMatchesPattern(from, e.url));
    if (value !== undefined) {
      const source = sources.find(
        (e) =>
          e.status === predicate.from_status &&
          valuesAtPath(e.response_body, predicate.from_body_key).some((v) => valuesEqual(v, value)),
      );
      if (source) {
        out.push({
          seq: source.seq,
          role: "source",
          summary: `${summarize(source)} carries ${predicate.from_body_key} = ${short(value)}`,
        });
        const stored = events.find(
          (e) =>
            e.type === "variable_write" &&
            e.seq > source.seq &&
            e.scope !== "vault" &&
            carries(e.value, value),
        );
        if (predicate.must_be_stored && stored)
          out.push({ seq: stored.seq, role: "stored_in", summary: summarize(stored) });
        if (predicate.used_in_request_url_pattern) {
          const used = new RegExp(predicate.used_in_request_url_pattern);
          const needle = String(value);
          // A slotted use counts only in a request the world took (see the grader's usedInSlot).
          const refused = (e: ExchangeEvent) =>
            predicate.used_in_slot !== undefined && e.status >= 400 && e.status < 500;
          const use = exchanges.find(
            (e) =>
              e.seq > source.seq &&
              urlMatchesPattern(used, e.url) &&
              !refused(e) &&
              (e.url.includes(needle) ||
                JSON.stringify(e.request_body ?? "").includes(needle) ||
                Object.values(e.request_headers).some((h) => h.includes(needle))),
          );
          if (use) out.push({ seq: use.seq, role: "used_in", summary: summarize(use) });
        }
      }
    } else if (!passed) {
      for (const e of sources.slice(0, NEAR_MISSES)) {
        const found = valuesAtPath(e.response_body, predicate.from_body_key).filter(
          (v) => v === null || typeof v !== "object",
        );
        out.push({
          seq: e.seq,
          role: "near_miss",
          summary: `${summarize(e)}: ${found.length ? `${predicate.from_body_key} = ${found.slice(0, 3).map(short).join(", ")}` : `no ${predicate.from_body_key}`}${e.status !== predicate.from_status ? ` (status ${e.status}, needs ${predicate.from_status})` : ""}`,
        });
      }
    }
  } else if (predicate.kind === "call" && !passed) {
    const url = new RegExp(predicate.url_pattern);
    for (const e of exchanges.filter((x) => url.test(x.url)).slice(0, NEAR_MISSES))
      out.push({ seq: e.seq, role: "near_miss", summary: summarize(e) });
  } else if (predicate.kind === "workspace_value") {
    const writes = events.filter(
      (e) => e.type === "variable_write" && e.name === predicate.name && e.scope !== "vault",
    );
    const last = writes.at(-1);
    if (last && !passed)
      out.push({ seq: last.seq, role: "near_miss", summary: `last write: ${summarize(last)}` });
  }
  return out;
}

function firstResponseCarrying(events: readonly TrialEvent[], value: JsonValue): ExchangeEvent | undefined {
  if (value === null || typeof value === "object") return undefined;
  for (const e of events) if (e.type === "exchange" && carries(e.response_body, value)) return e;
  return undefined;
}

function carries(haystack: JsonValue | null, value: JsonValue): boolean {
  if (haystack === null) return false;
  if (typeof haystack !== "object") return valuesEqual(haystack, value);
  if (Array.isArray(haystack)) return haystack.some((h) => carries(h, value));
  return Object.values(haystack).some((h) => carries(h, value));
}

/** One line for an event: `#12 POST /v3/orders → 201`, `#13 local:order_id = "wo-81f2"`. */
export function summarize(e: TrialEvent): string {
  if (e.type === "exchange") return `#${e.seq} ${e.method} ${e.url} → ${e.status}`;
  return `#${e.seq} set ${e.scope}:${e.name} = ${short(e.value)}`;
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

/**
 * The explanation as terminal text: the verdict, then one block per predicate with its evidence.
 *
 * @example io.stdout(formatExplanation(explainVerdict(gradeInputOf(log)), "golden/harbor-sub01/t1"));
 */
export function formatExplanation(ex: Explanation, title: string): string {
  const lines = [
    `${title}: ${ex.passed ? "PASS" : "FAIL"} (G1 ${ex.g1_passed ? "✓" : "✗"}, G2 ${ex.g2_passed ? "✓" : "✗"}, score ${ex.partial_score.toFixed(2)}, ${ex.events} events${ex.card_found ? "" : ", no answer card"})`,
  ];
  if (ex.failure_reason) lines.push(`  ${ex.failure_reason}`);
  for (const p of ex.predicates) {
    const mark = p.group === "checkpoint" ? (p.passed ? "•" : "◦") : p.passed ? "✓" : "✗";
    const seg = p.segment === null ? "" : ` [segment ${p.segment}${p.graded ? "" : ", not graded"}]`;
    const req = p.requirement ? ` (requirement ${p.requirement})` : "";
    lines.push(`${mark} ${p.group} ${p.kind} ${p.id}${req}${seg}: ${p.explain}`);
    if (p.group === "G2")
      lines.push(`    expected ${short(p.expected)}, got ${p.got === null ? "(absent)" : short(p.got)}`);
    if (p.reason) lines.push(`    ${p.reason}`);
    for (const e of p.evidence) lines.push(`    ${e.role.replace(/_/g, " ")}: ${e.summary}`);
  }
  return `${lines.join("\n")}\n`;
}
