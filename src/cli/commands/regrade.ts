import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { formatRegradeRun, regradeRun } from "../../run/regrade-run.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

/**
 * `apiflow regrade <run-dir> [--bank DIR] [--json FILE]`: re-grade every stored trial of a run from
 * its stored event log with this apiflow's grader (no agent, no model), store the verdicts as a new
 * grading and print what changed. Exit code 0 when it ran (changes are findings, not errors).
 *
 * @example apiflow regrade .apiflow/runs/x --bank my-bank-fixed --json regrade.json
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("regrade")
    .description("re-grade a run's stored trials from their event logs with the current grader")
    .argument("<run-dir>", "a run directory written by apiflow run")
    .option(
      "--bank <dir>",
      "take each task's grader from this bank (default: the grader stored with each trial)",
    )
    .option(
      "--json <file>",
      "also write {trials, changed, passed_to_failed, failed_to_passed, changes, …} as JSON",
    )
    .option("--dry-run", "print the changes without storing a grading")
    .action(async (runDir: string, flags: { bank?: string; json?: string; dryRun?: boolean }) => {
      const bank = flags.bank === undefined ? undefined : bankFromOption(flags.bank, io.cwd);
      const res = regradeRun({
        runDir: resolve(io.cwd, runDir),
        ...(bank ? { bank } : {}),
        ...(flags.dryRun ? { dryRun: true } : {}),
      });
      if (!res.success) throw new UsageError(`regrade: ${res.error.message}`);
      io.stdout(formatRegradeRun(res.data));
      if (flags.json !== undefined) {
        try {
          await writeFile(resolve(io.cwd, flags.json), `${JSON.stringify(res.data, null, 2)}\n`);
        } catch (e) {
          throw new UsageError(`regrade: cannot write ${flags.json}: ${(e as Error).message}`);
        }
        io.stdout(`wrote ${flags.json}\n`);
      }
      setExit(0);
    });
}
