import type { JsonValue } from "../bank/json.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { resolveCanaries } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { extractAnswerCard } from "./answer-card.js";
import { type FieldGrade, gradeAnswerField } from "./grade-answer-field.js";
import { checkpointHit, gradeConstraint, gradeG1Predicate } from "./grade-g1.js";
import type { G1Result, TrialGrade } from "./grade-schema.js";

export const GRADER_VERSION = "1.0.0";

export interface GradeInput {
  grader: GraderSpec;
  /** Chains: the segments the `selective` mode grades; undefined grades every predicate. */
  gradedSegments?: readonly number[];
  trialSeed: string;
  events: readonly TrialEvent[];
  /** The final assistant message; null when the trial ended without one. */
  finalMessage: string | null;
}

/**
 * Grade a trial: G1 (labour) over the event log, G2 (delivery) over the answer card, constraints,
 * checkpoints. Pass iff every gating G1 predicate and every G2 field pass and no constraint is
 * violated. Pure and deterministic: it reads only its input.
 *
 * @example const grade = gradeTrial({ grader: task.grader, trialSeed, events: log.events, finalMessage });
 */
export function gradeTrial(input: GradeInput): TrialGrade {
  const { grader, trialSeed, events } = input;
  const graded = (segment: number | undefined) =>
    input.gradedSegments === undefined || segment === undefined || input.gradedSegments.includes(segment);

  const cardResult = extractAnswerCard(input.finalMessage ?? "");
  const card = cardResult.success ? (cardResult.data as Record<string, unknown>) : null;

  const g2: Array<FieldGrade & { segment?: number }> = grader.answer
    .filter((f) => graded(f.segment))
    .map((f) => ({
      ...gradeAnswerField(
        {
          field: f.field,
          comparator: f.comparator,
          expected: resolveCanaries(f.expected, trialSeed) as JsonValue,
          ...(f.tolerance !== undefined ? { tolerance: f.tolerance } : {}),
        },
        card,
      ),
      ...(f.segment ? { segment: f.segment } : {}),
    }));
  const g1All = grader.g1.map((p) => gradeG1Predicate(p, events, card, trialSeed));
  const g1 = g1All.filter((r) => graded(r.segment));
  const constraints = grader.constraints.map((c) => gradeConstraint(c, events));
  const checkpoints = grader.checkpoints.map((c) => ({
    id: c.id,
    hit: checkpointHit(c, events),
    explain: c.explain,
    ...(c.segment ? { segment: c.segment } : {}),
  }));

  const violated = constraints.filter((c) => c.violated);
  const g1Passed = g1.every((r) => r.passed) && violated.length === 0;
  const g2Passed = g2.every((f) => f.passed);
  const total = g1.length + g2.length;
  const passedCount = g1.filter((r) => r.passed).length + g2.filter((f) => f.passed).length;
  const passed = g1Passed && g2Passed;

  const grade: TrialGrade = {
    grader_version: GRADER_VERSION,
    passed,
    g1_passed: g1Passed,
    g2_passed: g2Passed,
    card_found: cardResult.success,
    g1: g1All,
    g2: g2.map(({ segment: _s, ...f }) => f),
    constraints,
    checkpoints,
    predicates_passed: passedCount,
    predicates_total: total,
    partial_score: total === 0 ? 0 : passedCount / total,
    failure_reason: passed ? "" : failureReason(passedCount, total, g1, g2, violated),
    ...(grader.chain_mode ? { chain_mode: grader.chain_mode } : {}),
  };
  const segmentIds = [
    ...new Set([...g1.map((r) => r.segment), ...g2.map((f) => f.segment)].filter((s) => s !== undefined)),
  ];
  if (segmentIds.length > 0) {
    const per: NonNullable<TrialGrade["segments"]>["per_segment"] = {};
    let failureStage: number | null = null;
    for (const s of segmentIds.sort((a, b) => a - b)) {
      const sg1 = g1.filter((r) => r.segment === s);
      const sg2 = g2.filter((f) => f.segment === s);
      const sViolated = violated.some((c) => c.segment === s);
      const entry = {
        passed: sg1.filter((r) => r.passed).length + sg2.filter((f) => f.passed).length,
        total: sg1.length + sg2.length,
        g1_passed: sg1.every((r) => r.passed) && !sViolated,
        g2_passed: sg2.every((f) => f.passed),
      };
      per[String(s)] = entry;
      if (failureStage === null && !(entry.g1_passed && entry.g2_passed)) failureStage = s;
    }
    grade.segments = { per_segment: per, failure_stage: failureStage };
  }
  return grade;
}

function failureReason(
  passed: number,
  total: number,
  g1: readonly G1Result[],
  g2: readonly FieldGrade[],
  violated: ReadonlyArray<{ id: string; detail: string }>,
): string {
  const failedGroups: string[] = [];
  if (g1.some((r) => !r.passed) || violated.length) failedGroups.push("G1 labour");
  if (g2.some((f) => !f.passed)) failedGroups.push("G2 answer");
  const firstConstraint = violated[0];
  const firstG1 = g1.find((r) => !r.passed);
  const firstG2 = g2.find((f) => !f.passed);
  const first = firstConstraint
    ? `constraint ${firstConstraint.id} violated by ${firstConstraint.detail}`
    : firstG1
      ? `${firstG1.kind} ${firstG1.id}: ${firstG1.reason ?? "failed"}`
      : firstG2
        ? `answer field '${firstG2.field}': ${firstG2.reason ?? "failed"}`
        : "unknown";
  return `${passed}/${total} predicates matched; failed: ${failedGroups.join(", ")}; first failure: ${first}`;
}
