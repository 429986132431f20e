import { existsSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { explainVerdict, formatExplanation } from "../../grade/explain-verdict.js";
import { transcriptRelPath } from "../../run/store.js";
import {
  gradedSegmentsOf,
  gradeInputOf,
  readTrialLog,
  TRIAL_LOG_SUFFIX,
  trialLogPath,
} from "../../run/stored-trial-log.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

/**
 * `apiflow explain <transcript-or-trial> [trial] [--bank DIR] [--json FILE]`: a trial's verdict
 * predicate by predicate, with the events of its stored log that satisfied or broke each one. The
 * trial is a transcript file, its `.events.json.gz` log, or a run directory and `agent/task_id/tN`.
 *
 * @example apiflow explain .apiflow/runs/x golden/harbor-telemetry-sub02/t1
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("explain")
    .description("explain a stored trial's verdict predicate by predicate, with evidence from its event log")
    .argument("<transcript-or-trial>", "a transcript file, its .events.json.gz log, or a run directory")
    .argument("[trial]", "with a run directory: agent/task_id/tN")
    .option(
      "--bank <dir>",
      "explain with this bank's grader for the task (default: the grader stored with the trial)",
    )
    .option("--json <file>", "also write the explanation as JSON")
    .action(async (target: string, trial: string | undefined, flags: { bank?: string; json?: string }) => {
      const logPath = logPathOf(resolve(io.cwd, target), trial);
      const read = readTrialLog(logPath);
      if (!read.success) {
        throw new UsageError(
          read.error.code === "missing"
            ? `explain: no stored event log at ${logPath} (a trial run before event logs were kept cannot be explained)`
            : `explain: ${read.error.message}`,
        );
      }
      const log = read.data;
      let input = gradeInputOf(log);
      if (flags.bank !== undefined) {
        const task = bankFromOption(flags.bank, io.cwd).tasks.find((t) => t.id === log.task_id);
        if (!task) throw new UsageError(`explain: the bank has no task ${log.task_id}`);
        input = gradeInputOf(log, {
          grader: task.grader,
          gradedSegments: gradedSegmentsOf(task),
          requirements: task.requirements,
        });
      }
      const explanation = explainVerdict(input);
      io.stdout(formatExplanation(explanation, `${log.agent}/${log.task_id}/t${log.epoch}`));
      if (flags.json !== undefined) {
        try {
          await writeFile(resolve(io.cwd, flags.json), `${JSON.stringify(explanation, null, 2)}\n`);
        } catch (e) {
          throw new UsageError(`explain: cannot write ${flags.json}: ${(e as Error).message}`);
        }
        io.stdout(`wrote ${flags.json}\n`);
      }
      setExit(0);
    });
}

function logPathOf(target: string, trial: string | undefined): string {
  if (!existsSync(target)) throw new UsageError(`explain: no such file or directory: ${target}`);
  if (statSync(target).isDirectory()) {
    const m = /^([^/]+)\/([^/]+)\/t(\d+)$/.exec(trial ?? "");
    if (!m) throw new UsageError("explain: with a run directory, name the trial as agent/task_id/tN");
    return resolve(target, trialLogPath(transcriptRelPath(m[1] as string, m[2] as string, Number(m[3]))));
  }
  if (trial !== undefined)
    throw new UsageError("explain: a trial name goes with a run directory, not a file");
  return target.endsWith(TRIAL_LOG_SUFFIX) ? target : trialLogPath(target);
}
