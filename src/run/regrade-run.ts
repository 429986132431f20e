import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import type { Bank } from "../bank/bank.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import { GRADER_VERSION, type GradeInput } from "../grade/grade-trial.js";
import { type BankGrader, type RegradeJob, type RegradeOutcome, regradeJob } from "./regrade-trial.js";
import { defaultRegradeWorkers, regradeInParallel } from "./regrade-workers.js";
import { RunPinsSchema, withGradings } from "./run-manifest.js";
import { RUN_LAYOUT, readRunManifest, type TrialVerdict, tryOpenStore, writeRunManifest } from "./store.js";
import { type GradedVerdict, GradingSchema } from "./store-gradings.js";
import { gradedSegmentsOf, trialLogPath } from "./stored-trial-log.js";
import { isScored, OutcomeSchema } from "./trial-record.js";

/** A trial whose verdict changed between the latest grading and this one. */
export const RegradeChangeSchema = z.strictObject({
  agent: z.string(),
  task_id: z.string(),
  epoch: z.number().int().positive(),
  direction: z.enum(["passed_to_failed", "failed_to_passed"]),
  from: OutcomeSchema,
  to: OutcomeSchema,
  /** The first failure that decided it: the new one for passed→failed, the old one for failed→passed. */
  reason: z.string(),
  before: z.string(),
  after: z.string(),
});
export type RegradeChange = z.infer<typeof RegradeChangeSchema>;

/**
 * What `apiflow regrade` did to a run, and its `--json` file.
 *
 * @example RegradeSummarySchema.parse(JSON.parse(readFileSync("regrade.json", "utf8"))).changed
 */
export const RegradeSummarySchema = z.strictObject({
  /** Trials in the run's store. */
  trials: z.number().int().nonnegative(),
  /** Trials graded again from their stored logs. */
  regraded: z.number().int().nonnegative(),
  changed: z.number().int().nonnegative(),
  passed_to_failed: z.number().int().nonnegative(),
  failed_to_passed: z.number().int().nonnegative(),
  /** Provider and harness errors: never scored, so never re-graded. */
  unscored: z.number().int().nonnegative(),
  /** Trials with no readable stored log (runs made before logs were kept): listed, never guessed. */
  not_regradable: z.array(
    z.strictObject({
      agent: z.string(),
      task_id: z.string(),
      epoch: z.number().int().positive(),
      code: z.string(),
      message: z.string(),
    }),
  ),
  changes: z.array(RegradeChangeSchema),
  /** The grading this re-grade stored; null when nothing was stored (`dryRun`, or no trial re-gradable). */
  grading: GradingSchema.nullable(),
});
export type RegradeSummary = z.infer<typeof RegradeSummarySchema>;

export interface RegradeOptions {
  runDir: string;
  /** Take each task's grader from this bank (by task id); default: the grader stored with each trial. */
  bank?: Bank;
  /** The grader; default `gradeTrial` (tests pass a variant to stand for a grader change). */
  grade?: (input: GradeInput) => TrialGrade;
  /** The version the stored grading records; default `GRADER_VERSION`. */
  graderVersion?: string;
  /**
   * Worker threads beside the calling one (each re-grades a share of the trials; the outcome is the
   * same as on one thread); default: one per spare core for a run of `PARALLEL_MIN_JOBS` trials or
   * more, else none. Always none with `grade`.
   */
  workers?: number;
  /** Compute the changes without storing a grading. */
  dryRun?: boolean;
  /** Creation time of the grading (ISO); default now. It is metadata only, never graded. */
  created?: string;
}

export interface RegradeError {
  code: "store_unreadable" | "store_version" | "empty";
  message: string;
}

/**
 * Re-grade every stored trial of a run from its stored event log with the current grader (no
 * agent, no model), store the verdicts as a new grading (the old ones are kept; the trials'
 * current verdicts become the new ones, so `report` and `compare` read them), record the grading
 * in the run manifest, and return what changed.
 *
 * @example const res = regradeRun({ runDir: ".apiflow/runs/x" }); if (res.success) console.log(res.data.changed);
 */
export function regradeRun(
  options: RegradeOptions,
): { success: true; data: RegradeSummary } | { success: false; error: RegradeError } {
  const { runDir } = options;
  if (!existsSync(join(runDir, RUN_LAYOUT.store))) {
    return {
      success: false,
      error: { code: "store_unreadable", message: `no ${RUN_LAYOUT.store} in ${runDir}` },
    };
  }
  const opened = tryOpenStore(runDir, { readonly: Boolean(options.dryRun) });
  if (!opened.success) return opened;
  const store = opened.data;
  try {
    const records = store.verdicts();
    if (records.length === 0) {
      return { success: false, error: { code: "empty", message: `${runDir} holds no trials` } };
    }
    const graders = options.bank
      ? new Map(
          options.bank.tasks.map((t): [string, BankGrader] => [
            t.id,
            { grader: t.grader, gradedSegments: gradedSegmentsOf(t), requirements: t.requirements },
          ]),
        )
      : null;
    const verdicts: GradedVerdict[] = [];
    const summary: RegradeSummary = {
      trials: records.length,
      regraded: 0,
      changed: 0,
      passed_to_failed: 0,
      failed_to_passed: 0,
      unscored: 0,
      not_regradable: [],
      changes: [],
      grading: null,
    };
    // The trials to re-grade, in store order; a trial without a transcript has no log to read.
    const jobs: RegradeJob[] = [];
    const slots: Array<{ rec: TrialVerdict; job: number } | { rec: TrialVerdict; refused: string }> = [];
    for (const rec of records) {
      if (!isScored(rec)) {
        summary.unscored++;
        continue;
      }
      if (!rec.transcript) {
        slots.push({ rec, refused: "the trial has no transcript, so no stored event log" });
        continue;
      }
      const transcript = isAbsolute(rec.transcript) ? rec.transcript : join(runDir, rec.transcript);
      slots.push({ rec, job: jobs.length });
      jobs.push({
        bank_hash: rec.bank_hash,
        agent: rec.agent,
        task_id: rec.task_id,
        epoch: rec.epoch,
        path: trialLogPath(transcript),
      });
    }
    // A grader passed as a function cannot cross to another thread: it grades here.
    const workers = options.grade ? 0 : (options.workers ?? defaultRegradeWorkers(jobs.length));
    // Graded task by task (a task's trials one after another, in one thread): what a task's grader
    // prepared is then still in the processor's caches for its next trial. Outcomes by job index.
    const order = byTask(jobs);
    const inOrder = order.map((i) => jobs[i] as RegradeJob);
    const graded =
      workers > 0
        ? regradeInParallel(inOrder, graders, workers)
        : inOrder.map((job) => regradeJob(job, graders, options.grade));
    const outcomes = new Array<RegradeOutcome>(jobs.length);
    order.forEach((job, k) => {
      outcomes[job] = graded[k] as RegradeOutcome;
    });
    for (const slot of slots) {
      const { rec } = slot;
      const outcome: RegradeOutcome =
        "refused" in slot
          ? { refused: { code: "missing", message: slot.refused } }
          : (outcomes[slot.job] as RegradeOutcome);
      if ("refused" in outcome) {
        summary.not_regradable.push({
          agent: rec.agent,
          task_id: rec.task_id,
          epoch: rec.epoch,
          ...outcome.refused,
        });
        continue;
      }
      const { verdict } = outcome;
      verdicts.push(verdict);
      summary.regraded++;
      if (verdict.passed !== rec.passed) {
        const down = rec.passed === true;
        const change: RegradeChange = {
          agent: rec.agent,
          task_id: rec.task_id,
          epoch: rec.epoch,
          direction: down ? "passed_to_failed" : "failed_to_passed",
          from: rec.outcome,
          to: verdict.outcome,
          reason: firstFailure(down ? verdict.failure_reason : rec.failure_reason),
          before: rec.failure_reason,
          after: verdict.failure_reason,
        };
        summary.changes.push(change);
        summary.changed++;
        summary[change.direction]++;
      }
    }
    if (!options.dryRun && verdicts.length > 0) {
      const manifest = readRunManifest(runDir);
      const pins = RunPinsSchema.partial().safeParse(manifest ?? {});
      const created = options.created ?? new Date().toISOString();
      summary.grading = store.gradings.add(
        {
          source: "regrade",
          grader_version: options.graderVersion ?? GRADER_VERSION,
          grader_bank_hash: options.bank?.manifest.content_hash ?? null,
          created,
        },
        verdicts,
        {
          source: "run",
          grader_version: (pins.success ? pins.data.grader_version : undefined) ?? "unknown",
          grader_bank_hash: manifest?.bank_hash ?? null,
          created: manifest?.created ?? created,
        },
      );
      if (manifest) writeRunManifest(runDir, withGradings(manifest, store.gradings.list()));
    }
    return { success: true, data: summary };
  } finally {
    store.close();
  }
}

/** Job indices with each task's jobs together (tasks in id order, a task's jobs in store order). */
function byTask(jobs: readonly RegradeJob[]): number[] {
  return jobs
    .map((_, i) => i)
    .sort((a, b) => {
      const ta = (jobs[a] as RegradeJob).task_id;
      const tb = (jobs[b] as RegradeJob).task_id;
      return ta < tb ? -1 : ta > tb ? 1 : a - b;
    });
}

/** The "first failure" clause of a failure reason (the whole reason when it has none). */
export function firstFailure(reason: string): string {
  const at = reason.lastIndexOf("first failure: ");
  return at < 0 ? reason : reason.slice(at + "first failure: ".length);
}

/**
 * The terminal summary: counts, then the changes grouped by direction and reason.
 *
 * @example io.stdout(formatRegradeRun(summary));
 */
export function formatRegradeRun(s: RegradeSummary, shownPerReason = 5): string {
  const lines: string[] = [];
  const g = s.grading;
  lines.push(
    `re-graded ${s.regraded} of ${s.trials} trials${g ? ` as grading ${g.id} (grader ${g.grader_version}${g.grader_bank_hash ? `, bank ${g.grader_bank_hash.slice(0, 12)}` : ", graders as stored"})` : " (not stored)"}`,
  );
  lines.push(
    `changed ${s.changed}: passed→failed ${s.passed_to_failed}, failed→passed ${s.failed_to_passed}`,
  );
  if (s.unscored > 0) lines.push(`unscored (provider/harness errors, not re-graded): ${s.unscored}`);
  if (s.not_regradable.length > 0) {
    lines.push(`not re-gradable (no usable stored event log): ${s.not_regradable.length}`);
    for (const n of s.not_regradable.slice(0, 10))
      lines.push(`  ${n.agent}/${n.task_id}/t${n.epoch}: ${n.code}: ${n.message}`);
    if (s.not_regradable.length > 10) lines.push(`  … ${s.not_regradable.length - 10} more`);
  }
  for (const direction of ["passed_to_failed", "failed_to_passed"] as const) {
    const changes = s.changes.filter((c) => c.direction === direction);
    if (changes.length === 0) continue;
    lines.push(
      `${direction === "passed_to_failed" ? "passed→failed" : "failed→passed"} (${changes.length}), by reason:`,
    );
    const byReason = new Map<string, RegradeChange[]>();
    for (const c of changes) byReason.set(c.reason, [...(byReason.get(c.reason) ?? []), c]);
    const groups = [...byReason].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    for (const [reason, list] of groups) {
      lines.push(`  ${list.length}× ${reason}`);
      const shown = list.slice(0, shownPerReason).map((c) => `${c.agent}/${c.task_id}/t${c.epoch}`);
      lines.push(
        `     ${shown.join(", ")}${list.length > shownPerReason ? `, … ${list.length - shownPerReason} more` : ""}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
