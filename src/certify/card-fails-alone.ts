import type { Task } from "../bank/task-schema.js";
import { extractAnswerCard } from "../grade/answer-card.js";
import { isRecordRef } from "../grade/final-state.js";
import { gradeAnswerField } from "../grade/grade-answer-field.js";
import { declaredFields } from "../grade/grade-trial.js";
import { gradedSegmentsOf } from "../run/stored-trial-log.js";
import { resolveCanaries } from "../world/canary.js";

/**
 * Whether a trial of `task` at `trialSeed` that ends with `finalMessage` fails its grade whatever
 * calls it made: a graded answer field whose expected value depends on the seed alone (not a
 * record reference, which the world's final records resolve) fails on the card the message holds.
 * `gradeTrial` grades such a field exactly so (the card found among the declared fields' blocks,
 * canaries minted from the seed), and one failing field fails the trial; a trial that ends before
 * it can send the message has no card, and fails too.
 *
 * @example cardFailsAlone(task, seed, "Done.") // true when the task asks for any field: no card
 */
export function cardFailsAlone(task: Task, trialSeed: string, finalMessage: string): boolean {
  const found = extractAnswerCard(finalMessage, declaredFields(task.grader));
  const card = found.success ? (found.data as Record<string, unknown>) : null;
  const graded = gradedSegmentsOf(task);
  return task.grader.answer.some(
    (field) =>
      (graded === undefined || field.segment === undefined || graded.includes(field.segment)) &&
      !isRecordRef(field.expected) &&
      !gradeAnswerField(
        {
          field: field.field,
          comparator: field.comparator,
          expected: resolveCanaries(field.expected, trialSeed),
          ...(field.tolerance !== undefined ? { tolerance: field.tolerance } : {}),
        },
        card,
      ).passed,
  );
}
