import type { Command } from "commander";
import { DEFAULT_IDLE_SECONDS } from "../../mcp/mcp-bridge-agent.js";
import { agentNameProblem } from "../../mcp/mcp-external-agent.js";
import { runMcpTrial } from "../../run/run-mcp-trial.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import { addTrialLimitFlags, type TrialLimitFlags, trialLimitsFromFlags } from "../trial-limit-flags.js";
import type { SetExit } from "./index.js";

interface McpFlags extends TrialLimitFlags {
  bank?: string;
  task: string;
  epoch: string;
  http?: boolean;
  port: string;
  idleSeconds: string;
  agentName?: string;
  out?: string;
  force?: boolean;
}

/**
 * `apiflow mcp`: one trial's seven tools and `deliver` served over MCP for an agent outside our
 * loop — stdio by default (stdout is the protocol channel, so everything else goes to stderr), or
 * Streamable HTTP on 127.0.0.1 with `--http` (the endpoint URL is stdout's first line). The trial
 * has the limits of `apiflow run`, is graded when the agent delivers, abstains, hits a limit or
 * disconnects, and is stored in the run directory under the client's name.
 */
export function registerMcp(program: Command, io: CliIo, setExit: SetExit): void {
  const mcp = program
    .command("mcp")
    .description("serve one trial's tools over MCP (stdio, or Streamable HTTP with --http) and grade it")
    .option("--bank <dir>", "bank folder (default: the built-in bank)")
    .requiredOption("--task <id>", "the task to attempt")
    .option("--epoch <n>", "trial epoch (canaries differ per epoch)", "1")
    .option("--http", "serve Streamable HTTP on 127.0.0.1 instead of stdio")
    .option("--port <n>", "HTTP port; 0 picks a free one", "0")
    .option(
      "--idle-seconds <s>",
      "HTTP: a session with no request for this long has left (the trial ends as disconnected)",
      String(DEFAULT_IDLE_SECONDS),
    )
    .option(
      "--agent-name <name>",
      "the agent's name in the store and the reports (default: the client's clientInfo.name)",
    );
  addTrialLimitFlags(mcp)
    .option("--out <dir>", "run directory (default: .apiflow/runs/mcp-<bank>-<hash>)")
    .option("--force", "store even if the run directory's manifest pins other settings")
    .action(async (opts: McpFlags) => {
      const bank = bankFromOption(opts.bank, io.cwd);
      const task = bank.tasks.find((t) => t.id === opts.task);
      if (!task) throw new UsageError(`no task "${opts.task}" in the bank`);
      const epoch = Number(opts.epoch);
      if (!Number.isInteger(epoch) || epoch < 1)
        throw new UsageError(`--epoch must be a whole number ≥ 1, got ${opts.epoch}`);
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port must be 0..65535, got ${opts.port}`);
      const idleSeconds = Number(opts.idleSeconds);
      if (!Number.isFinite(idleSeconds) || idleSeconds <= 0)
        throw new UsageError(
          `--idle-seconds must be a positive number, got ${JSON.stringify(opts.idleSeconds)}`,
        );
      const problem = opts.agentName === undefined ? null : agentNameProblem(opts.agentName);
      if (problem) throw new UsageError(`--agent-name: ${problem}`);
      const limits = trialLimitsFromFlags(opts);
      const runDir =
        opts.out ?? `.apiflow/runs/mcp-${bank.manifest.name}-${bank.manifest.content_hash.slice(0, 12)}`;
      const res = await runMcpTrial({
        bank,
        task,
        epoch,
        runDir,
        limits,
        ...(opts.agentName ? { agentName: opts.agentName } : {}),
        ...(opts.force ? { force: true } : {}),
        mode: opts.http
          ? {
              kind: "http",
              port,
              idleSeconds,
              onListening: (url) => {
                io.stdout(`${url}\n`);
                io.stderr(
                  `serving task ${task.id} (epoch ${epoch}) over MCP at ${url}; the trial ends when the agent calls deliver\n`,
                );
              },
            }
          : { kind: "stdio" },
      });
      if (!res.success) throw new UsageError(res.error.message);
      const { record } = res.data;
      const line = `${record.task_id} epoch ${record.epoch}: ${record.agent} ${record.outcome}${record.outcome === "pass" ? "" : ` — ${record.failure_reason}`} (stored in ${runDir})\n`;
      if (opts.http) io.stdout(line);
      else io.stderr(line);
      setExit(record.outcome === "pass" ? 0 : 1);
    });
}
