import { resolve } from "node:path";
import type { Command } from "commander";
import { agentRequest, modelRequest, NAMED_AGENTS, resolveAgent } from "../../agents/agent-registry.js";
import { AimdLimiter } from "../../agents/aimd-limiter.js";
import { baselineAgentFactory } from "../../agents/baseline-agent.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../agents/model-call-retry.js";
import { PROVIDERS, parseModelId } from "../../agents/providers.js";
import type { Bank } from "../../bank/bank.js";
import type { Task } from "../../bank/task-schema.js";
import { agentNameProblem } from "../../mcp/mcp-external-agent.js";
import type { runViaQueue } from "../../queue/queue-coordinator.js";
import { DEFAULT_QUEUE_NAME } from "../../queue/trial-job.js";
import { DEFAULT_PRICE_TABLE, loadPriceTable, type PriceTable } from "../../run/price-table.js";
import { DEFAULT_REDO, parseRedo } from "../../run/redo-outcomes.js";
import { taskGlob } from "../../run/run-grid.js";
import { type RunAgent, type RunIntoDirSummary, runIntoDir } from "../../run/run-into-dir.js";
import { type AgentProgress, RunProgress } from "../../run/run-progress.js";
import { type TrialRecord, trialKeyString } from "../../run/trial-record.js";
import type { TrialLimits } from "../../trial/stop-conditions.js";
import {
  bankOption,
  baseUrlOption,
  concurrencyOption,
  maxSecondsOption,
  maxTokensOption,
  maxToolCallsOption,
  nonNegativeInt,
  nonNegativeNumber,
  parsedOption,
  positiveInt,
  positiveNumber,
  trialLimitsOf,
} from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import { queueFromOption } from "../queue-option.js";
import type { SetExit } from "./index.js";

/**
 * `apiflow run`: run agents (models, scripted agents, user modules) over a bank's tasks into a run
 * directory (results store, transcripts, manifest), resuming what is already there.
 */
export function registerRun(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("run")
    .description("run agents over the bank's tasks, grade every trial, store results and transcripts")
    .addHelpText("after", RUN_HELP_AFTER)
    .addOption(bankOption())
    .option(
      "--model <id...>",
      "model(s) to run: provider/model, e.g. openai/gpt-5-mini, openai-compatible/llama3",
    )
    .option(
      "--agent <name...>",
      `agent(s) to run: ${Object.keys(NAMED_AGENTS).join(", ")}, a module path (./my-agent.js), or mcp:"<command>" (an external MCP agent launched per trial; {url} {ticket_file} {ticket})`,
    )
    .addOption(parsedOption("--epochs <n>", "trials per task and agent", positiveInt, 5))
    .option("--tasks <glob>", "only tasks whose id matches (* and ?)")
    .addOption(concurrencyOption("trials in flight (model calls shrink below it on 429s)"))
    .option("--out <dir>", "run directory (default: .apiflow/runs/<bank>-<hash>); rerunning resumes it")
    .addOption(baseUrlOption())
    .addOption(
      parsedOption("--temperature <t>", "sampling temperature of model agents", nonNegativeNumber, 1),
    )
    .addOption(parsedOption("--max-output-tokens <n>", "per model call", positiveInt))
    .addOption(maxToolCallsOption())
    .addOption(maxTokensOption())
    .addOption(maxSecondsOption())
    .addOption(
      parsedOption(
        "--max-retries <n>",
        "retries of a failing model call",
        nonNegativeInt,
        DEFAULT_RETRY_POLICY.maxRetries,
      ),
    )
    .addOption(
      parsedOption(
        "--retry-delay-ms <n>",
        "first retry delay (doubles each time)",
        nonNegativeInt,
        DEFAULT_RETRY_POLICY.baseDelayMs,
      ),
    )
    .addOption(
      parsedOption(
        "--call-timeout <s>",
        "seconds before a model call is retried as a time-out",
        positiveNumber,
        300,
      ),
    )
    .addOption(
      parsedOption(
        "--cost-limit <usd>",
        "stop starting trials once the run has cost this many dollars",
        positiveNumber,
      ),
    )
    .option(
      "--price-table <file>",
      "price table JSON (version, models: {id: {input, output, cache_read, cache_write}})",
    )
    .option(
      "--redo <outcomes>",
      'outcomes found in the run directory to run again: comma-separated, or "none"',
      [...DEFAULT_REDO].join(","),
    )
    .option(
      "--salt <salt>",
      "the run's salt, which enters every canary (default: the run directory's, else random); the same salt reproduces a run",
    )
    .option(
      "--agent-name <name>",
      'the name of the mcp:"<command>" agent in the store and the reports (default mcp-<digest of the command>)',
    )
    .option("--force", "run even if the run directory's manifest pins other versions or settings")
    .option("--json", "print one JSON object instead of lines")
    .addOption(
      parsedOption(
        "--progress-every <s>",
        "seconds between progress lines on stderr when it is not a terminal (a terminal redraws 4×/s)",
        positiveNumber,
        10,
      ),
    )
    .option("--queue <url>", "enqueue the trials on Redis (redis://HOST:PORT) for `apiflow worker`s to run")
    .option("--queue-name <name>", "BullMQ queue name shared with the workers", DEFAULT_QUEUE_NAME)
    .action(async (opts: RunFlags, command: Command) => {
      setExit(await runCommand(opts, command.getOptionValueSource("epochs") === "default", io));
    });
}

interface RunFlags {
  bank?: string;
  model?: string[];
  agent?: string[];
  epochs: number;
  tasks?: string;
  concurrency: number;
  out?: string;
  baseUrl?: string;
  temperature: number;
  maxOutputTokens?: number;
  maxToolCalls: number;
  maxTokens: number;
  maxSeconds: number;
  maxRetries: number;
  retryDelayMs: number;
  callTimeout: number;
  costLimit?: number;
  priceTable?: string;
  agentName?: string;
  force?: boolean;
  redo: string;
  salt?: string;
  json?: boolean;
  progressEvery: number;
  queue?: string;
  queueName: string;
}

/** The grid `apiflow run` runs: bank, tasks, epochs, limits, retries, prices and agents. */
interface RunPlan {
  bank: Bank;
  tasks: Task[];
  epochs: number;
  limits: TrialLimits;
  retry: RetryPolicy;
  priceTable: PriceTable;
  agents: RunAgent[];
  secrets: string[];
  progress: AgentProgress[];
  runDir: string;
}

/** Runs the grid; returns the exit code (see `runExitCode`). */
async function runCommand(opts: RunFlags, defaultEpochs: boolean, io: CliIo): Promise<number> {
  const plan = await planRun(opts, defaultEpochs, io);
  const redo = parseRedo(opts.redo);
  if (!redo.success) throw new UsageError(redo.error.message);
  // --queue: the same run directory, filled by workers through Redis (src/queue).
  const queue = opts.queue === undefined ? undefined : queueFromOption(opts.queue);
  // Loaded only for --queue: the local path never loads BullMQ.
  const viaQueue = queue ? (await import("../../queue/queue-coordinator.js")).runViaQueue : undefined;
  const display = new RunProgress(plan.progress, {
    write: io.stderr,
    tty: io.isTty,
    ...(io.isTty ? {} : { intervalMs: opts.progressEvery * 1000 }),
  });
  display.start();
  const ranNow = new Set<string>();
  let result: Awaited<ReturnType<typeof runViaQueue>> | undefined;
  try {
    result = await (queue && viaQueue
      ? (o: Parameters<typeof runIntoDir>[0]) =>
          viaQueue({
            ...o,
            address: queue,
            queueName: opts.queueName,
            retry: plan.retry,
            onNotice: (line) => display.log(`apiflow: ${line}\n`, io.stderr),
          })
      : runIntoDir)({
      runDir: plan.runDir,
      bank: plan.bank,
      agents: plan.agents,
      tasks: plan.tasks,
      epochs: plan.epochs,
      concurrency: opts.concurrency,
      limits: plan.limits,
      priceTable: plan.priceTable,
      ...(opts.costLimit !== undefined ? { costLimitUsd: opts.costLimit } : {}),
      ...(opts.force ? { force: true } : {}),
      redo: redo.data,
      ...(opts.salt !== undefined ? { salt: opts.salt } : {}),
      progress: plan.progress,
      secrets: plan.secrets,
      onRecord: (rec) => {
        ranNow.add(trialKeyString(rec));
        if (!opts.json) display.log(`${formatTrialLine(rec)}\n`, io.stdout);
      },
    });
  } finally {
    // A run refused before its first trial (a pinned directory) has no progress to report.
    display.stop(result?.success === true);
  }
  if (!result.success) throw new UsageError(result.error.message);
  printRun(result.data, plan, { json: opts.json === true, ranNow, redo: opts.redo }, io);
  // One clear line per model whose key was refused, on stderr whatever the output mode.
  for (const name of result.data.refused) io.stderr(`apiflow: ${refusalLine(plan.agents, name)}\n`);
  return runExitCode(result.data);
}

async function planRun(opts: RunFlags, defaultEpochs: boolean, io: CliIo): Promise<RunPlan> {
  const bank = bankFromOption(opts.bank, io.cwd);
  // The bare `apiflow run` (the README's first command) runs the deterministic baseline once per
  // task, so it finishes in seconds offline; an explicit --epochs is always honoured.
  const bareBaseline =
    !opts.model?.length && !opts.agent?.length && !io.env.APIFLOW_MODEL?.trim() && defaultEpochs;
  const epochs = bareBaseline ? 1 : opts.epochs;
  const limits = trialLimitsOf(opts);
  const retry: RetryPolicy = {
    maxRetries: opts.maxRetries,
    baseDelayMs: opts.retryDelayMs,
    maxDelayMs: Math.max(DEFAULT_RETRY_POLICY.maxDelayMs, opts.retryDelayMs),
    callTimeoutMs: opts.callTimeout * 1000,
  };
  const tasks = opts.tasks ? bank.tasks.filter((t) => taskGlob(opts.tasks as string)(t.id)) : bank.tasks;
  if (tasks.length === 0) throw new UsageError(`no task matches --tasks ${opts.tasks}`);
  const priceTable = readPriceTable(opts.priceTable, io.cwd);
  const progress: AgentProgress[] = [];
  const { agents, secrets } = await resolveAgents(opts, io, {
    concurrency: opts.concurrency,
    retry,
    progress,
  });
  const external = agents.find((a) => a.settings.kind === "mcp");
  if (opts.queue !== undefined && external)
    throw new UsageError(
      `--queue cannot run ${external.factory.name} (an external MCP agent): workers do not launch commands from the queue; run it without --queue`,
    );
  const total = tasks.length * epochs;
  for (const [i, a] of agents.entries()) {
    progress[i] = {
      name: a.factory.name,
      total,
      done: 0,
      passed: 0,
      doneHere: 0,
      retries: 0,
      costUsd: 0,
      costUnknown: false,
      ...(a.limiter ? { limiter: a.limiter } : {}),
    };
  }
  const runDir = resolve(
    io.cwd,
    opts.out ?? `.apiflow/runs/${bank.manifest.name}-${bank.manifest.content_hash.slice(0, 12)}`,
  );
  return { bank, tasks, epochs, limits, retry, priceTable, agents, secrets, progress, runDir };
}

function printRun(
  summary: RunIntoDirSummary,
  plan: RunPlan,
  how: { json: boolean; ranNow: ReadonlySet<string>; redo: string },
  io: CliIo,
): void {
  const { bank, runDir, agents } = plan;
  const { records, resumed, redone, notRun, costLimitReached, refused, salt } = summary;
  const passed = records.filter((r) => r.outcome === "pass").length;
  const unscored = records.filter((r) => r.passed === null).length;
  const cost = records.reduce((s, r) => s + (r.cost_usd ?? 0), 0);
  // Trials of a model the price table does not know: their cost is unknown, never $0.00.
  const unpriced = records.filter((r) => r.cost_usd === null).length;
  if (how.json) {
    io.stdout(
      `${JSON.stringify({
        trials: records.map((r) => ({
          task_id: r.task_id,
          epoch: r.epoch,
          agent: r.agent,
          passed: r.outcome === "pass",
          g1: r.g1_passed ?? false,
          g2: r.g2_passed ?? false,
          failure_reason: r.outcome === "pass" ? "" : r.failure_reason,
          outcome: r.outcome,
        })),
        summary: {
          total: records.length,
          passed,
          unscored,
          resumed,
          redone,
          not_run: notRun,
          refused,
          cost_limit_reached: costLimitReached,
          cost_usd: cost,
          unpriced_trials: unpriced,
          bank: bank.manifest.content_hash,
          salt,
          out: runDir,
        },
      })}\n`,
    );
    return;
  }
  // Resumed trials are listed too, so the listing is the whole grid whatever was redone.
  for (const r of records) if (!how.ranNow.has(trialKeyString(r))) io.stdout(`${formatTrialLine(r)}\n`);
  const lines: string[] = [];
  if (resumed > 0) lines.push(`(${resumed} trials resumed from ${runDir}, not redone)`);
  if (redone > 0)
    lines.push(`(${redone} unscored trials found in ${runDir} were run again: --redo ${how.redo})`);
  if (costLimitReached)
    lines.push(`cost limit reached: ${notRun} trials not run; rerun with a higher --cost-limit to continue`);
  lines.push(
    `${passed}/${records.length} trials passed${unscored ? ` (${unscored} unscored: provider or harness errors)` : ""} (${agents.map((a) => a.factory.name).join(", ")}; bank ${bank.manifest.name} ${bank.manifest.content_hash.slice(0, 12)}; salt ${salt}; ${costText(cost, unpriced)}; ${runDir})`,
  );
  io.stdout(`\n${lines.join("\n")}\n`);
}

async function resolveAgents(
  opts: RunFlags,
  io: CliIo,
  ctx: { concurrency: number; retry: RetryPolicy; progress: AgentProgress[] },
): Promise<{ agents: RunAgent[]; secrets: string[] }> {
  let models = opts.model ?? [];
  const names = opts.agent ?? [];
  if (models.length === 0 && names.length === 0) {
    const fromEnv = io.env.APIFLOW_MODEL?.trim();
    if (fromEnv) {
      io.stderr(`apiflow: no --model or --agent given; running APIFLOW_MODEL=${fromEnv}\n`);
      models = [fromEnv];
    } else {
      io.stderr(
        "apiflow: no --model or --agent given; running the scripted baseline (set APIFLOW_MODEL or pass --model provider/model)\n",
      );
      return { agents: [{ factory: baselineAgentFactory, settings: { kind: "scripted" } }], secrets: [] };
    }
  }
  const agents: RunAgent[] = [];
  const secrets: string[] = [];
  const { temperature, maxOutputTokens } = opts;
  const requests = [
    ...models.map((id) => modelRequest(id, { temperature, ...(maxOutputTokens ? { maxOutputTokens } : {}) })),
    ...names.map((name) => {
      const request = agentRequest(name);
      if (!request.success) throw new UsageError(request.error.message);
      return request.data.settings.kind === "mcp" && opts.agentName !== undefined
        ? { ...request.data, name: opts.agentName }
        : request.data;
    }),
  ];
  if (opts.agentName !== undefined) {
    const external = requests.filter((r) => r.settings.kind === "mcp").length;
    if (external !== 1)
      throw new UsageError(
        `--agent-name names the one mcp:"<command>" agent of a run; this run has ${external}`,
      );
    const problem = agentNameProblem(opts.agentName);
    if (problem) throw new UsageError(`--agent-name: ${problem}`);
  }
  for (const request of requests) {
    const index = agents.length;
    let limiter: AimdLimiter | undefined;
    const resolved = await resolveAgent(request, {
      cwd: io.cwd,
      env: io.env,
      ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      // --queue: the workers build the model with their own keys; the coordinator only describes it.
      describeOnly: opts.queue !== undefined,
      calls: () => {
        limiter = new AimdLimiter({ max: ctx.concurrency });
        return {
          retry: ctx.retry,
          limiter,
          onEvent: (e) => {
            if (e.type !== "retry") return;
            // The progress entries are filled in before the first trial starts.
            const p = ctx.progress[index];
            if (p) p.retries++;
          },
        };
      },
    });
    if (!resolved.success) throw new UsageError(resolved.error.message);
    const { factory, settings, modelApi } = resolved.data;
    secrets.push(...resolved.data.secrets);
    agents.push({ factory, settings, ...(modelApi ? { modelApi } : {}), ...(limiter ? { limiter } : {}) });
  }
  const seen = new Set<string>();
  for (const a of agents) {
    if (seen.has(a.factory.name)) throw new UsageError(`agent "${a.factory.name}" is given twice`);
    seen.add(a.factory.name);
  }
  return { agents, secrets };
}

function readPriceTable(path: string | undefined, cwd: string): PriceTable {
  if (path === undefined) return DEFAULT_PRICE_TABLE;
  const loaded = loadPriceTable(resolve(cwd, path));
  if (!loaded.success) throw new UsageError(loaded.error.message);
  return loaded.data;
}

/**
 * Exit codes of `apiflow run` (also in `--help` and the README): 0 when every trial of the grid
 * ran and was scored; 1 when some trial ended unscored (provider or harness error) or a model's key
 * was refused, so a rerun has work to redo; 2 for a usage error (bad flag, unreadable bank, a run
 * directory pinned to other settings, from `UsageError`); 3 when `--cost-limit` stopped the run
 * with trials not run, every trial that ran scored (1 wins when both hold: errors come first);
 * 70 for an internal error (`main.ts`).
 */
export const EXIT_UNSCORED = 1;
/** `apiflow run` stopped at `--cost-limit`: trials of the grid were not run (see `runExitCode`). */
export const EXIT_COST_LIMIT = 3;

/**
 * The exit code of a finished run.
 *
 * @example runExitCode({ records, refused: [], costLimitReached: true }) // → 3 when all were scored
 */
export function runExitCode(
  summary: Pick<RunIntoDirSummary, "records" | "refused" | "costLimitReached">,
): number {
  if (summary.records.some((r) => r.passed === null) || summary.refused.length > 0) return EXIT_UNSCORED;
  return summary.costLimitReached ? EXIT_COST_LIMIT : 0;
}

/** `apiflow run --help`, after the flags: where keys come from, and what the exit code says. */
const RUN_HELP_AFTER = `
API keys (read from the environment, never stored or written):
${Object.entries(PROVIDERS)
  .map(
    ([name, p]) =>
      `  ${`${name}/…`.padEnd(22)}${p.keyEnv}${p.keyRequired ? "" : " (optional: sent when set)"}`,
  )
  .join("\n")}

Rerunning into the same --out resumes: scored trials are kept, trials whose outcome is in --redo
(default ${[...DEFAULT_REDO].join(",")}) run again.

Exit codes:
  0  every trial of the grid ran and was scored
  1  some trial ended unscored (provider or harness error), or a model's key was refused (401/403)
  2  usage error: a bad flag, an unreadable bank, a run directory pinned to other settings
  3  --cost-limit stopped the run: some trials were not run (rerun with a higher limit to go on)
 70  internal error (a bug in apiflow)`;

/** `$1.23`, or `unpriced` when no trial's price is known, or `$1.23 + 4 unpriced trials`. */
function costText(cost: number, unpriced: number): string {
  if (unpriced === 0) return `$${cost.toFixed(2)}`;
  return cost === 0 ? "unpriced" : `$${cost.toFixed(2)} + ${unpriced} unpriced trials`;
}

/** The line for a model whose first trials were all refused with 401/403. */
function refusalLine(agents: readonly RunAgent[], name: string): string {
  const api = agents.find((a) => a.factory.name === name)?.modelApi;
  const parsed = api ? parseModelId(api) : null;
  const key = parsed?.success ? ` (check ${PROVIDERS[parsed.data.provider].keyEnv})` : "";
  return `${api ?? name}: the provider refused the key (401/403) on its first trials${key}; its other trials were not started. Rerun with the right key: refused trials are redone.`;
}

/** `PASS harbor-telemetry-sub01 t1 golden G1 ok G2 ok` or with the failure reason. */
export function formatTrialLine(r: TrialRecord): string {
  const pass = r.outcome === "pass";
  const verdict = pass ? "PASS" : r.passed === null ? "ERR " : "FAIL";
  const g = (ok: boolean | null) => (ok === null ? "-  " : ok ? "ok " : "bad");
  const reason = pass ? "" : `  ${r.outcome === "fail" ? "" : `[${r.outcome}] `}${r.failure_reason}`;
  return `${verdict} ${r.task_id.padEnd(32)} t${r.epoch} ${r.agent.padEnd(8)} G1 ${g(r.g1_passed)} G2 ${g(r.g2_passed)}${reason}`;
}
