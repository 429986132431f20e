import type { JsonValue } from "../bank/json.js";
import type { AnswerField, CanaryRef, GraderSpec, RecordRef } from "../bank/task-schema.js";
import { isCanaryRef, mintCanary, resolveCanaries } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { extractAnswerCard } from "./answer-card.js";
import { type FinalRecords, isRecordRef, meantRecord, TrialFinalState } from "./final-state.js";
import { type AnswerFieldSpec, type FieldGrade, gradeAnswerField } from "./grade-answer-field.js";
import { gradeLabour, labourFailsVerdict } from "./grade-g1.js";
import type { G1Result, TrialGrade } from "./grade-schema.js";

/**
 * Bumped whenever a change can move a verdict, so a manifest and each stored grading say which
 * grader made them. 1.1.0: requirement predicates (exact target, value written, end state, call
 * counts, ordering), canonical request forms, values in their slot, identity-based expectations,
 * delivery-first failure attribution. The published 1.0 sample re-grades unchanged under it.
 */
export const GRADER_VERSION = "1.2.0";

/**
 * A failing grade whose predicates and card were not graded: a trial that never ran (a harness
 * error), or one only its verdict is read from. `reason` says why; `constraints` are any results
 * already known.
 *
 * @example ungradedFail("harness error: the world did not start")
 */
export function ungradedFail(reason: string, constraints: TrialGrade["constraints"] = []): TrialGrade {
  return {
    grader_version: GRADER_VERSION,
    passed: false,
    g1_passed: false,
    g2_passed: false,
    card_found: false,
    g1: [],
    g2: [],
    constraints,
    checkpoints: [],
    predicates_passed: 0,
    predicates_total: 0,
    partial_score: 0,
    failure_reason: reason,
  };
}

export interface GradeInput {
  grader: GraderSpec;
  /** Chains: the segments the `selective` mode grades; undefined grades every predicate. */
  gradedSegments?: readonly number[];
  trialSeed: string;
  events: readonly TrialEvent[];
  /** The final assistant message; null when the trial ended without one. */
  finalMessage: string | null;
  /**
   * The world's records when the trial ended: end-state predicates and record references read them.
   * Without them (a log stored before they were kept) those predicates and fields fail, saying so.
   */
  finalRecords?: FinalRecords;
  /** Records deleted during the trial: a record reference falls back on them (see `resolveExpected`). */
  removedRecords?: FinalRecords;
  /**
   * The task's requirements (its `requirements`): the failure reason and the chain's failure stage
   * name a failed check's requirement by id and by the ticket's sentence stating it. Without them
   * (a stored log re-graded with its own grader) only the id is named.
   */
  requirements?: readonly RequirementNote[];
}

/** What a grade says of a ticket requirement: its id, its segment in a chain, its sentence. */
export interface RequirementNote {
  id: string;
  sentence?: string | undefined;
  segment?: number | undefined;
}

/**
 * Grade a trial: G1 (labour) over the event log, G2 (delivery) over the answer card, constraints,
 * checkpoints. Pass iff every gating G1 predicate and every G2 field pass and no constraint is
 * violated. Pure and deterministic: it reads only its input. What depends on the grader alone
 * (compiled URL patterns, fixed reasons, scalar answer specs) is prepared once per grader object,
 * so grading a run's stored trials against a loaded bank costs little more than scanning the logs.
 *
 * @example const grade = gradeTrial({ grader: task.grader, trialSeed, events: log.events, finalMessage });
 */
export function gradeTrial(input: GradeInput, options: GradeOptions = {}): TrialGrade {
  const { grader, trialSeed, events, gradedSegments } = input;

  const answer = prepareAnswer(grader);
  const cardResult = extractAnswerCard(input.finalMessage ?? "", answer.declared);
  const card = cardResult.success ? (cardResult.data as Record<string, unknown>) : null;
  // One final state for G2 and G1: a record both name is picked once.
  const finalState = new TrialFinalState(input, trialSeed, events);
  if (options.verdictOnly && failsVerdict(input, answer, card, finalState))
    return ungradedFail(VERDICT_ONLY_FAIL);

  const g2: FieldGrade[] = [];
  const g2Segments: Array<number | undefined> = [];
  const g2Requirements: Array<string | undefined> = [];
  for (const prepared of answer.fields) {
    const { field } = prepared;
    if (!isGraded(gradedSegments, field.segment)) continue;
    g2.push(gradePreparedField(prepared, card, trialSeed, finalState));
    g2Segments.push(field.segment);
    g2Requirements.push(field.requirement);
  }
  // The final records are read where a predicate needs them (the input may parse them on first read).
  const labour = gradeLabour(grader, events, card, trialSeed, finalState);
  const g1All = labour.g1;
  const g1 = gradedSegments === undefined ? g1All : g1All.filter((r) => isGraded(gradedSegments, r.segment));
  const { constraints, checkpoints } = labour;

  const violated = constraints.filter((c) => c.violated);
  // A predicate not evaluated (its card is missing: a delivery failure) is neither passed nor failed.
  let g1PassedCount = 0;
  let g1Evaluated = 0;
  for (const r of g1) {
    if (r.not_evaluated) continue;
    g1Evaluated++;
    if (r.passed) g1PassedCount++;
  }
  let g2PassedCount = 0;
  for (const f of g2) if (f.passed) g2PassedCount++;
  const g1Passed = g1PassedCount === g1Evaluated && violated.length === 0;
  const g2Passed = g2PassedCount === g2.length;
  const total = g1Evaluated + g2.length;
  const passedCount = g1PassedCount + g2PassedCount;
  const passed = g1Passed && g2Passed;

  const grade: TrialGrade = {
    grader_version: GRADER_VERSION,
    passed,
    g1_passed: g1Passed,
    g2_passed: g2Passed,
    card_found: cardResult.success,
    g1: g1All,
    g2,
    constraints,
    checkpoints,
    predicates_passed: passedCount,
    predicates_total: total,
    partial_score: total === 0 ? 0 : passedCount / total,
    failure_reason: passed
      ? ""
      : failureReason(
          passedCount,
          total,
          g1,
          g2,
          g2Requirements,
          g2Segments,
          violated,
          cardResult.success ? null : cardResult.error.message,
          new RequirementNamer(input.requirements),
        ),
  };
  if (grader.chain_mode) grade.chain_mode = grader.chain_mode;
  // A solo task's checks name no segment: it has no per-segment results to tally.
  if (g1.some(hasSegment) || g2Segments.some((s) => s !== undefined)) {
    const name = new RequirementNamer(input.requirements);
    const segments = segmentResults(g1, g2, g2Segments, g2Requirements, violated, name);
    if (segments) grade.segments = segments;
  }
  return grade;
}

/** How `gradeTrial` grades. */
export interface GradeOptions {
  /**
   * Only the verdict will be read: a failing trial gets `ungradedFail(VERDICT_ONLY_FAIL)` as soon
   * as one graded answer field, forbid constraint or predicate fails, without grading the rest or
   * writing a failure reason. A passing trial is graded in full. Certification's must-fail trials
   * (sabotaged exams, exploits, negative replays) read only whether they passed.
   */
  verdictOnly?: boolean;
}

/** The failure reason of a verdict-only grade (see `GradeOptions.verdictOnly`). */
export const VERDICT_ONLY_FAIL = "fails (only the verdict was graded)";

/** Whether the trial fails: a graded answer field, a forbid constraint or a graded G1 predicate fails. */
function failsVerdict(
  input: GradeInput,
  answer: PreparedAnswer,
  card: Record<string, unknown> | null,
  finalState: TrialFinalState,
): boolean {
  const { grader, trialSeed, gradedSegments } = input;
  for (const prepared of answer.fields) {
    if (!isGraded(gradedSegments, prepared.field.segment)) continue;
    if (!gradePreparedField(prepared, card, trialSeed, finalState).passed) return true;
  }
  return labourFailsVerdict(grader, input.events, card, trialSeed, finalState, (s) =>
    isGraded(gradedSegments, s),
  );
}

/** Chains: per-segment tallies over the graded predicates, and the first failing segment and requirement. */
function segmentResults(
  g1: readonly G1Result[],
  g2: readonly FieldGrade[],
  g2Segments: ReadonlyArray<number | undefined>,
  g2Requirements: ReadonlyArray<string | undefined>,
  violated: ReadonlyArray<{ segment?: number | undefined; requirement?: string | undefined }>,
  name: RequirementNamer,
): TrialGrade["segments"] {
  const tally = new Map<number, SegmentTally>();
  for (const r of g1) {
    if (r.segment === undefined || r.not_evaluated) continue;
    const t = tallyOf(tally, r.segment);
    t.total++;
    if (r.passed) t.passed++;
    else {
      t.g1_passed = false;
      failedIn(t, r.requirement);
    }
  }
  for (let i = 0; i < g2.length; i++) {
    const s = g2Segments[i];
    if (s === undefined) continue;
    const t = tallyOf(tally, s);
    t.total++;
    if ((g2[i] as FieldGrade).passed) t.passed++;
    else {
      t.g2_passed = false;
      failedIn(t, g2Requirements[i]);
    }
  }
  if (tally.size === 0) return undefined;
  // A violated constraint comes first, as in the failure reason.
  for (let i = violated.length - 1; i >= 0; i--) {
    const c = violated[i] as (typeof violated)[number];
    const t = c.segment === undefined ? undefined : tally.get(c.segment);
    if (!t) continue;
    t.g1_passed = false;
    if (c.requirement !== undefined)
      t.failed = [c.requirement, ...t.failed.filter((r) => r !== c.requirement)];
  }
  const per: NonNullable<TrialGrade["segments"]>["per_segment"] = {};
  let failureStage: number | null = null;
  for (const s of [...tally.keys()].sort((a, b) => a - b)) {
    // Written as literals in the result's key order (a rest copy per segment cost more).
    const { passed, total, g1_passed, g2_passed, failed } = tally.get(s) as SegmentTally;
    per[String(s)] =
      failed.length > 0
        ? { passed, total, g1_passed, g2_passed, failed_requirements: failed }
        : { passed, total, g1_passed, g2_passed };
    if (failureStage === null && !(g1_passed && g2_passed)) failureStage = s;
  }
  const first = failureStage === null ? undefined : tally.get(failureStage)?.failed[0];
  return {
    per_segment: per,
    failure_stage: failureStage,
    ...(first !== undefined && failureStage !== null
      ? { failure_requirement: name.note(first, failureStage) }
      : {}),
  };
}

/** One segment's checks so far. */
interface SegmentTally {
  passed: number;
  total: number;
  g1_passed: boolean;
  g2_passed: boolean;
  failed: string[];
}

function tallyOf(tally: Map<number, SegmentTally>, segment: number): SegmentTally {
  let t = tally.get(segment);
  if (!t) {
    t = { passed: 0, total: 0, g1_passed: true, g2_passed: true, failed: [] };
    tally.set(segment, t);
  }
  return t;
}

function failedIn(t: SegmentTally, requirement: string | undefined): void {
  if (requirement !== undefined && !t.failed.includes(requirement)) t.failed.push(requirement);
}

function hasSegment(r: G1Result): boolean {
  return r.segment !== undefined && !r.not_evaluated;
}

function isGraded(gradedSegments: readonly number[] | undefined, segment: number | undefined): boolean {
  return gradedSegments === undefined || segment === undefined || gradedSegments.includes(segment);
}

/**
 * What grading a task's answer needs from its grader alone: the fields its ticket declares, and
 * each answer field with its grading spec ready when its expected value is a plain scalar (most
 * are: nothing to mint per trial, and a scalar can be shared by every grade). Canary references,
 * record references, lists and objects are resolved per trial, so every grade gets its own copy.
 */
interface PreparedAnswer {
  declared: string[];
  fields: PreparedField[];
}

interface PreparedField {
  field: AnswerField;
  spec: AnswerFieldSpec | undefined;
  /** The expected value when it is one canary reference: the trial's canary is all it needs. */
  canary: CanaryRef | undefined;
  /** The expected value when it is a record reference, read from the final state. */
  record: RecordRef | undefined;
}

// Keyed by the grader object, which bank data never mutates; holds nothing of any trial.
const preparedAnswers = new WeakMap<GraderSpec, PreparedAnswer>();

function prepareAnswer(grader: GraderSpec): PreparedAnswer {
  let prepared = preparedAnswers.get(grader);
  if (!prepared) {
    prepared = {
      declared: [...new Set(grader.answer.map((f) => f.field))],
      fields: grader.answer.map((field) => {
        const { expected } = field;
        const scalar = expected === null || typeof expected !== "object";
        return {
          field,
          spec: scalar ? specOf(field, expected) : undefined,
          canary: isCanaryRef(expected) ? expected : undefined,
          record: isRecordRef(expected) ? expected : undefined,
        };
      }),
    };
    preparedAnswers.set(grader, prepared);
  }
  return prepared;
}

/**
 * The answer-card fields a task's ticket declares (every segment's, graded or not): they pick the
 * card among several ```json blocks (`extractAnswerCard`). Computed once per grader object.
 *
 * @example declaredFields(task.grader) // → ["run_id", "status"]
 */
export function declaredFields(grader: GraderSpec): string[] {
  return prepareAnswer(grader).declared;
}

/**
 * One answer field for one trial: a scalar by its prepared spec; else its expected value resolved,
 * canaries minted, a record reference read from the final state. An unresolved record fails the
 * field, naming the record meant; a wrong value compared with a record's says which record it was.
 */
function gradePreparedField(
  prepared: PreparedField,
  card: Record<string, unknown> | null,
  trialSeed: string,
  finalState: TrialFinalState,
): FieldGrade {
  const { field, spec, canary, record } = prepared;
  if (spec) return gradeAnswerField(spec, card);
  if (canary) return gradeAnswerField(specOf(field, mintCanary(trialSeed, canary)), card);
  if (!record) return gradeAnswerField(specOf(field, resolveCanaries(field.expected, trialSeed)), card);
  const resolved = finalState.resolve(record);
  // Each grade below is the field's own new object: its verdict and reason are set in place.
  if (!resolved.ok) {
    // The reference's own canaries are never minted: its value is unknown (null) here.
    const graded = gradeAnswerField(specOf(field, null), card);
    graded.passed = false;
    graded.reason = `expected ${resolved.reason}`;
    return graded;
  }
  const graded = gradeAnswerField(specOf(field, resolved.value), card);
  if (!graded.passed) graded.reason = `${graded.reason} (expected ${meantRecord(record, trialSeed)})`;
  return graded;
}

function specOf(field: AnswerField, expected: JsonValue): AnswerFieldSpec {
  const { tolerance } = field;
  return tolerance === undefined
    ? { field: field.field, comparator: field.comparator, expected }
    : { field: field.field, comparator: field.comparator, expected, tolerance };
}

function failureReason(
  passed: number,
  total: number,
  g1: readonly G1Result[],
  g2: readonly FieldGrade[],
  g2Requirements: ReadonlyArray<string | undefined>,
  g2Segments: ReadonlyArray<number | undefined>,
  violated: ReadonlyArray<{
    id: string;
    detail: string;
    requirement?: string | undefined;
    segment?: number | undefined;
  }>,
  cardError: string | null,
  name: RequirementNamer,
): string {
  // A predicate not evaluated (its card is missing) is no failure.
  const firstG1 = g1.find((r) => !r.passed && !r.not_evaluated);
  const failedGroups: string[] = [];
  if (firstG1 || violated.length) failedGroups.push("G1 labour");
  if (g2.some((f) => !f.passed)) failedGroups.push("G2 answer");
  const firstConstraint = violated[0];
  const firstG2At = g2.findIndex((f) => !f.passed);
  const firstG2 = g2[firstG2At];
  const first = firstConstraint
    ? `constraint ${firstConstraint.id}${name.words(firstConstraint.requirement, firstConstraint.segment)} violated by ${firstConstraint.detail}`
    : firstG1
      ? `${firstG1.kind} ${firstG1.id}${name.words(firstG1.requirement, firstG1.segment)}: ${firstG1.reason ?? "failed"}`
      : cardError !== null
        ? `no readable answer card (${cardError})`
        : firstG2
          ? `answer field '${firstG2.field}'${name.words(g2Requirements[firstG2At], g2Segments[firstG2At])}: ${firstG2.reason ?? "failed"}`
          : "unknown";
  return `${passed}/${total} predicates matched; failed: ${failedGroups.join(", ")}; first failure: ${first}`;
}

/** Names requirements by id and, when the task's requirements are given, by their sentence. */
class RequirementNamer {
  constructor(private readonly requirements: readonly RequirementNote[] | undefined) {}

  /** ` (requirement status_settled: “Move CN-12 to `settled`.”)`, or nothing for a check that names none. */
  words(requirement: string | undefined, segment: number | undefined): string {
    return requirement ? formatRequirement(requirement, this.sentence(requirement, segment)) : "";
  }

  /** The requirement as the failure stage names it: its id, and its sentence when it has one. */
  note(id: string, segment: number | undefined): { id: string; sentence?: string } {
    const s = this.sentence(id, segment);
    return s === undefined ? { id } : { id, sentence: s };
  }

  private sentence(id: string, segment: number | undefined): string | undefined {
    return this.requirements?.find(
      (r) => r.id === id && (segment === undefined || r.segment === undefined || r.segment === segment),
    )?.sentence;
  }
}

/**
 * How a failure reason names a requirement: ` (requirement <id>)`, or with its sentence
 * ` (requirement <id>: “<sentence>”)`. `failedRequirementOf` reads it back.
 *
 * @example formatRequirement("status_settled", "Move CN-12 to `settled`.") // " (requirement status_settled: “Move CN-12 to `settled`.”)"
 */
export function formatRequirement(id: string, sentence?: string): string {
  return sentence ? ` (requirement ${id}: “${sentence.replaceAll("”", '"')}”)` : ` (requirement ${id})`;
}

/**
 * The requirement a failure reason names as its first failure (see `formatRequirement`), or null
 * when it names none: what reports read from a stored trial's reason.
 *
 * @example failedRequirementOf("…; first failure: call status_moved (requirement status_settled: “Move CN-12 to `settled`.”): …") // { id: "status_settled", sentence: "Move CN-12 to `settled`." }
 */
export function failedRequirementOf(reason: string): { id: string; sentence: string | null } | null {
  const at = reason.indexOf("first failure: ");
  if (at < 0) return null;
  const m = /\(requirement ([^\s:)]+)(?:: “([^”]*)”)?\)/.exec(reason.slice(at));
  if (!m) return null;
  return { id: m[1] as string, sentence: m[2] ?? null };
}
