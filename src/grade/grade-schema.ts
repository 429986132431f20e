import { z } from "zod";
import { JsonValueSchema } from "../bank/json.js";
import { G1_PREDICATE_KINDS } from "../bank/task-schema.js";
import { FieldGradeSchema } from "./grade-answer-field.js";

/** One G1 predicate's result. `reason` says why it failed, in a sentence. */
export const G1ResultSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(G1_PREDICATE_KINDS),
  /** The ticket requirement the predicate holds, when it names one. */
  requirement: z.string().optional(),
  segment: z.number().int().positive().optional(),
  passed: z.boolean(),
  /**
   * True when the predicate could not be evaluated: its value must reach the answer card and there
   * is no readable card, or the card lacks the field (a delivery failure, graded by G2). Its labour part held; it is then
   * neither passed nor failed, and G1's verdict, tallies and partial score leave it out.
   */
  not_evaluated: z.literal(true).optional(),
  reason: z.string().optional(),
  /** The value that travelled, when a data-flow predicate found one. */
  value: JsonValueSchema.optional(),
  explain: z.string(),
});
export type G1Result = z.infer<typeof G1ResultSchema>;

export const ConstraintResultSchema = z.strictObject({
  id: z.string(),
  kind: z.literal("forbid"),
  violated: z.boolean(),
  /** The first offending call, `GET /v2/...`. */
  detail: z.string(),
  explain: z.string(),
  segment: z.number().int().positive().optional(),
  /** The ticket requirement the constraint holds, when it names one. */
  requirement: z.string().optional(),
});
export type ConstraintResult = z.infer<typeof ConstraintResultSchema>;

export const CheckpointResultSchema = z.strictObject({
  id: z.string(),
  hit: z.boolean(),
  explain: z.string(),
  segment: z.number().int().positive().optional(),
});
export type CheckpointResult = z.infer<typeof CheckpointResultSchema>;

export const SegmentResultSchema = z.strictObject({
  passed: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  g1_passed: z.boolean(),
  g2_passed: z.boolean(),
  /** The ticket requirements whose checks failed in this segment (ids, first failure first). */
  failed_requirements: z.array(z.string()).optional(),
});

/** A requirement a grade names: its id and, when the task states one, the ticket's sentence. */
export const RequirementRefSchema = z.strictObject({ id: z.string(), sentence: z.string().optional() });

/**
 * A trial's grade: the verdict, G1 and G2 apart, every predicate's result, the partial score and a
 * one-line failure reason naming the first failure. Chains add per-segment results.
 */
export const TrialGradeSchema = z.strictObject({
  grader_version: z.string(),
  passed: z.boolean(),
  g1_passed: z.boolean(),
  g2_passed: z.boolean(),
  card_found: z.boolean(),
  g1: z.array(G1ResultSchema),
  g2: z.array(FieldGradeSchema),
  constraints: z.array(ConstraintResultSchema),
  checkpoints: z.array(CheckpointResultSchema),
  predicates_passed: z.number().int().nonnegative(),
  predicates_total: z.number().int().nonnegative(),
  partial_score: z.number().min(0).max(1),
  /** Empty when the trial passed. */
  failure_reason: z.string(),
  chain_mode: z.enum(["selective", "full"]).optional(),
  segments: z
    .strictObject({
      per_segment: z.record(z.string(), SegmentResultSchema),
      /** The first segment whose gating predicates fail; null when none does. */
      failure_stage: z.number().int().positive().nullable(),
      /** The first requirement that failed in the failure stage, when its checks name one. */
      failure_requirement: RequirementRefSchema.optional(),
    })
    .optional(),
});
export type TrialGrade = z.infer<typeof TrialGradeSchema>;
