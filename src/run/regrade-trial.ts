import type { GraderSpec } from "../bank/task-schema.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import { type GradeInput, gradeTrial, type RequirementNote } from "../grade/grade-trial.js";
import { outcomeOf } from "./run-trial.js";
import type { GradedVerdict } from "./store-gradings.js";
import { gradeInputOf, readTrialLog, TrialLogPayloadError } from "./stored-trial-log.js";
import { trialFailureReason } from "./transcript-writer.js";

/**
 * One stored trial to re-grade: its key, as the store holds it, and where its event log is. Plain
 * data, so a worker thread can take it (see `regrade-workers.ts`).
 */
export interface RegradeJob {
  bank_hash: string;
  agent: string;
  task_id: string;
  epoch: number;
  /** The event log's path (absolute, or relative to the working directory). */
  path: string;
}

/** A bank's grader for a task, as a re-grade with `--bank` applies it. */
export interface BankGrader {
  grader: GraderSpec;
  gradedSegments: readonly number[] | undefined;
  /** The task's requirements: the new failure reason quotes the failed one's sentence. */
  requirements?: readonly RequirementNote[] | undefined;
}

/** What re-grading one job gave: its new verdict, or why it could not be re-graded. */
export type RegradeOutcome = { verdict: GradedVerdict } | { refused: { code: string; message: string } };

/**
 * Re-grade one stored trial from its event log: read and check the log, grade it (with the bank's
 * grader when `graders` is given, else the one stored with the trial) and make its verdict as the
 * runner would have recorded it. Pure but for reading the file: the same log and grader give the
 * same outcome, in whichever thread it runs.
 *
 * @example const out = regradeJob({ bank_hash, agent: "golden", task_id: "harbor-sub01", epoch: 1, path });
 */
export function regradeJob(
  job: RegradeJob,
  graders?: ReadonlyMap<string, BankGrader> | null,
  grade: (input: GradeInput) => TrialGrade = gradeTrial,
): RegradeOutcome {
  const refused = (code: string, message: string): RegradeOutcome => ({ refused: { code, message } });
  const { path } = job;
  const read = readTrialLog(path, { lazy: true });
  if (!read.success) return refused(read.error.code, read.error.message);
  const log = read.data;
  if (log.agent !== job.agent || log.task_id !== job.task_id || log.epoch !== job.epoch)
    return refused("invalid", `${path} is the log of ${log.agent}/${log.task_id}/t${log.epoch}`);
  let bankGrader: BankGrader | undefined;
  if (graders) {
    bankGrader = graders.get(job.task_id);
    if (!bankGrader) return refused("unknown_task", `the bank has no task ${job.task_id}`);
  }
  let g: TrialGrade;
  try {
    g = grade(gradeInputOf(log, bankGrader));
  } catch (e) {
    // A payload the grader read first here (the log is read lazily) that does not parse.
    if (!(e instanceof TrialLogPayloadError)) throw e;
    return refused(e.code, `${path}: ${e.message}`);
  }
  return { verdict: verdictOf(job, g, log.stop_reason, log.stop_detail) };
}

/** A trial's verdict under a new grade: the outcome as the runner would have recorded it. */
function verdictOf(
  job: RegradeJob,
  grade: TrialGrade,
  stopReason: Parameters<typeof outcomeOf>[0],
  stopDetail: string,
): GradedVerdict {
  const outcome = outcomeOf(stopReason, grade.passed);
  return {
    bank_hash: job.bank_hash,
    agent: job.agent,
    task_id: job.task_id,
    epoch: job.epoch,
    outcome,
    passed: outcome === "pass",
    g1_passed: grade.g1_passed,
    g2_passed: grade.g2_passed,
    failure_reason: trialFailureReason({ outcome, stop_reason: stopReason, stop_detail: stopDetail, grade }),
    partial_score: grade.partial_score,
  };
}
