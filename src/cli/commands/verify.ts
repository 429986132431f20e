import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { modelRequest, resolveAgent } from "../../agents/agent-registry.js";
import { certifyBank } from "../../certify/certify-bank.js";
import { formatCertifyReport } from "../../certify/format-report.js";
import type { AgentFactory } from "../../trial/agent.js";
import { baseUrlOption, parsedOption, positiveInt } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

interface VerifyFlags {
  json?: string;
  oracleModel?: string;
  baseUrl?: string;
  attempts: number;
  minPasses: number;
}

/**
 * `apiflow verify <bank>`: certify a bank folder (every gate of issue 8) and print a table per
 * gate; exit 1 when any gate fails. `--json FILE` writes `{ok, gates: {<gate>: {checked, passed,
 * failed, first_failure, …}}}`; `--oracle-model` makes a model the solvability oracle.
 */
export function registerVerify(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("verify")
    .description(
      "certify a bank: grader triad, solvability, discoverability, leak, chain replays, exploit audit",
    )
    .argument("<bank>", "bank folder (with manifest.json)")
    .option("--json <file>", "also write the report as JSON to FILE")
    .option(
      "--oracle-model <model>",
      "solvability oracle: a model id provider/model (default: the golden agent)",
    )
    .addOption(baseUrlOption("API base URL for the oracle model (required for openai-compatible/…)"))
    .addOption(parsedOption("--attempts <n>", "oracle attempts per task (N)", positiveInt, 10))
    .addOption(parsedOption("--min-passes <k>", "oracle passes needed to admit a task (k)", positiveInt, 3))
    .action(async (dir: string, opts: VerifyFlags) => {
      const bank = bankFromOption(dir, io.cwd);
      const { attempts, minPasses } = opts;
      if (minPasses > attempts)
        throw new UsageError(`--min-passes ${minPasses} exceeds --attempts ${attempts}`);
      const oracle = opts.oracleModel ? await oracleModel(opts.oracleModel, opts.baseUrl, io) : undefined;
      const report = await certifyBank(bank, {
        attempts,
        minPasses,
        // Tasks spread over one worker thread per core; the report is the same whatever the number.
        workers: availableParallelism(),
        ...(oracle ? { oracle } : {}),
        onGate: (name, g) => {
          if (io.isTty) io.stderr(`${name}: ${g.passed}/${g.checked} passed\n`);
        },
      });
      io.stdout(formatCertifyReport(report));
      if (opts.json) writeFileSync(resolve(io.cwd, opts.json), `${JSON.stringify(report, null, 2)}\n`);
      setExit(report.ok ? 0 : 1);
    });
}

async function oracleModel(id: string, baseUrl: string | undefined, io: CliIo): Promise<AgentFactory> {
  const made = await resolveAgent(modelRequest(id), {
    cwd: io.cwd,
    env: io.env,
    ...(baseUrl ? { baseUrl } : {}),
  });
  if (!made.success) throw new UsageError(made.error.message);
  return made.data.factory;
}
