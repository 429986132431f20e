import type { Command } from "commander";
import type { AgentFactory } from "../../agents/agent.js";
import { SCRIPTED_AGENTS } from "../../agents/scripted-agents.js";
import { runGrid, taskGlob } from "../../run/run-grid.js";
import type { TrialResult } from "../../run/run-trial.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import type { SetExit } from "./index.js";

/** `apiflow run`: run agents over a bank's tasks and print one line per trial and a summary. */
export function registerRun(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("run")
    .description("run agents over the bank's tasks and grade every trial")
    .option("--bank <dir>", "bank folder (default: the built-in bank)")
    .option("--agent <name...>", `agent(s) to run: ${Object.keys(SCRIPTED_AGENTS).join(", ")}`)
    .option("--epochs <n>", "trials per task and agent", "5")
    .option("--tasks <glob>", "only tasks whose id matches (* and ?)")
    .option("--concurrency <n>", "trials in flight", "8")
    .option("--json", "print one JSON object instead of lines")
    .action(async (opts: RunFlags) => {
      const epochs = positiveInt(opts.epochs, "--epochs");
      const concurrency = positiveInt(opts.concurrency, "--concurrency");
      const bank = bankFromOption(opts.bank, io.cwd);
      const tasks = opts.tasks ? bank.tasks.filter((t) => taskGlob(opts.tasks as string)(t.id)) : bank.tasks;
      if (tasks.length === 0) throw new UsageError(`no task matches --tasks ${opts.tasks}`);
      const agents = resolveAgents(opts.agent, io);
      const results = await runGrid({
        bank,
        agents,
        tasks,
        epochs,
        concurrency,
        onTrial: (r) => {
          if (!opts.json) io.stdout(`${formatTrialLine(r)}\n`);
        },
      });
      const passed = results.filter((r) => r.grade.passed).length;
      if (opts.json) {
        io.stdout(
          `${JSON.stringify({
            trials: results.map((r) => ({
              task_id: r.task_id,
              epoch: r.epoch,
              agent: r.agent,
              passed: r.grade.passed,
              g1: r.grade.g1_passed,
              g2: r.grade.g2_passed,
              failure_reason: r.grade.failure_reason,
              outcome: r.outcome,
            })),
            summary: { total: results.length, passed, bank: bank.manifest.content_hash },
          })}\n`,
        );
      } else {
        io.stdout(
          `\n${passed}/${results.length} trials passed (${agents.map((a) => a.name).join(", ")}; bank ${bank.manifest.name} ${bank.manifest.content_hash.slice(0, 12)})\n`,
        );
      }
      setExit(0);
    });
}

interface RunFlags {
  bank?: string;
  agent?: string[];
  epochs: string;
  tasks?: string;
  concurrency: string;
  json?: boolean;
}

function resolveAgents(names: string[] | undefined, io: CliIo): AgentFactory[] {
  if (!names || names.length === 0) {
    io.stderr("apiflow: no --agent given; running the golden agent (the answer key) on the built-in bank\n");
    return [SCRIPTED_AGENTS.golden as AgentFactory];
  }
  return names.map((name) => {
    const agent = SCRIPTED_AGENTS[name];
    if (!agent)
      throw new UsageError(
        `unknown agent "${name}"; known agents: ${Object.keys(SCRIPTED_AGENTS).join(", ")}`,
      );
    return agent;
  });
}

function positiveInt(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}

/** `PASS harbor-telemetry-sub01 t1 golden G1 ok G2 ok` or with the failure reason. */
export function formatTrialLine(r: TrialResult): string {
  const verdict = r.grade.passed ? "PASS" : "FAIL";
  const g = (ok: boolean) => (ok ? "ok " : "bad");
  const reason = r.grade.passed
    ? ""
    : `  ${r.outcome === "fail" ? "" : `[${r.outcome}] `}${r.grade.failure_reason}`;
  return `${verdict} ${r.task_id.padEnd(32)} t${r.epoch} ${r.agent.padEnd(8)} G1 ${g(r.grade.g1_passed)} G2 ${g(r.grade.g2_passed)}${reason}`;
}
