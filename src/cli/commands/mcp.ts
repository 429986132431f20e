import type { Command } from "commander";
import { DEFAULT_IDLE_SECONDS } from "../../mcp/mcp-bridge-agent.js";
import { agentNameProblem } from "../../mcp/mcp-external-agent.js";
import { runMcpTrial } from "../../run/run-mcp-trial.js";
import type { TrialLimits } from "../../trial/stop-conditions.js";
import {
  bankOption,
  epochOption,
  maxSecondsOption,
  maxTokensOption,
  maxToolCallsOption,
  parsedOption,
  portOption,
  positiveNumber,
  trialLimitsOf,
} from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

interface McpFlags extends TrialLimits {
  bank?: string;
  task: string;
  epoch: number;
  http?: boolean;
  port: number;
  idleSeconds: number;
  agentName?: string;
  salt?: string;
  out?: string;
  force?: boolean;
}

/**
 * `apiflow mcp`: one trial's seven tools and `deliver` served over MCP for an agent outside our
 * loop — stdio by default (stdout is the protocol channel, so everything else goes to stderr), or
 * Streamable HTTP on 127.0.0.1 with `--http` (the endpoint URL is stdout's first line). The trial
 * has the limits of `apiflow run`, is graded when the agent delivers, abstains, hits a limit or
 * disconnects, and is stored in the run directory under the agent's name. It draws the run's salt
 * like `apiflow run` (`--salt` to reproduce one), so another run's transcript is no answer key.
 */
export function registerMcp(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("mcp")
    .description("serve one trial's tools over MCP (stdio, or Streamable HTTP with --http) and grade it")
    .addOption(bankOption())
    .requiredOption("--task <id>", "the task to attempt")
    .addOption(epochOption())
    .option("--http", "serve Streamable HTTP on 127.0.0.1 instead of stdio")
    .addOption(portOption(0, "HTTP port; 0 picks a free one"))
    .addOption(
      parsedOption(
        "--idle-seconds <s>",
        "HTTP: a session with no request for this long has left (the trial ends as disconnected)",
        positiveNumber,
        DEFAULT_IDLE_SECONDS,
      ),
    )
    .option(
      "--agent-name <name>",
      "the agent's name in the store and the reports (default: the client's clientInfo.name)",
    )
    .addOption(maxToolCallsOption())
    .addOption(maxTokensOption())
    .addOption(maxSecondsOption())
    .option(
      "--salt <salt>",
      "the run's salt, which enters every canary (default: the run directory's, else random); the same salt reproduces a run",
    )
    .option("--out <dir>", "run directory (default: .apiflow/runs/mcp-<bank>-<hash>)")
    .option("--force", "store even if the run directory's manifest pins other settings")
    .action(async (opts: McpFlags) => {
      const bank = bankFromOption(opts.bank, io.cwd);
      const task = bank.tasks.find((t) => t.id === opts.task);
      if (!task) throw new UsageError(`no task "${opts.task}" in the bank`);
      const problem = opts.agentName === undefined ? null : agentNameProblem(opts.agentName);
      if (problem) throw new UsageError(`--agent-name: ${problem}`);
      const { epoch, port, idleSeconds } = opts;
      const runDir =
        opts.out ?? `.apiflow/runs/mcp-${bank.manifest.name}-${bank.manifest.content_hash.slice(0, 12)}`;
      const res = await runMcpTrial({
        bank,
        task,
        epoch,
        runDir,
        limits: trialLimitsOf(opts),
        ...(opts.agentName ? { agentName: opts.agentName } : {}),
        ...(opts.salt !== undefined ? { salt: opts.salt } : {}),
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
      const { record, salt } = res.data;
      const line = `${record.task_id} epoch ${record.epoch}: ${record.agent} ${record.outcome}${record.outcome === "pass" ? "" : ` — ${record.failure_reason}`} (stored in ${runDir}; salt ${salt})\n`;
      if (opts.http) io.stdout(line);
      else io.stderr(line);
      setExit(record.outcome === "pass" ? 0 : 1);
    });
}
