import { Worker } from "node:worker_threads";
import { type Bank, type BankContent, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { AgentFactory } from "../trial/agent.js";
import {
  type CertifyReport,
  CertifyReportSchema,
  GATE_NAMES,
  type GateFailure,
  type GateName,
  type GateReport,
} from "./certify-schema.js";
import type { ExploitFindings } from "./exploit-audit.js";
import type { Exploit } from "./exploits/index.js";
import { GATES } from "./gate-registry.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/** Each gate's version, recorded in the manifest with its counts. */
export const GATE_VERSIONS = Object.fromEntries(GATES.map((g) => [g.name, g.version])) as Record<
  GateName,
  string
>;

export interface CertifyOptions {
  /** Gates to run, in the order of `GATE_NAMES`; default all. */
  gates?: readonly GateName[];
  /** The solvability oracle; default the golden agent. */
  oracle?: AgentFactory;
  /** Oracle attempts per task (N, default 10) and passes needed (k, default 3). */
  attempts?: number;
  minPasses?: number;
  /** The exploit suite; default all of `EXPLOITS`. */
  exploits?: readonly Exploit[];
  /** Only these tasks (default all); the audit and chain replays still see the whole bank. */
  tasks?: (task: Task) => boolean;
  /**
   * Called for each gate once every task has been through it, with the time spent in that gate's
   * own work (wall and CPU seconds; trials shared between gates count for the first gate to run
   * them).
   */
  onGate?: (name: GateName, report: GateReport, time: GateTime) => void;
  /** How trials run; default `sharedTrials(bank)` (tests compare it with `freshTrials`). */
  runner?: (bank: Bank) => TrialRunner;
  /**
   * Threads to certify on (default 1: this thread only; n > 1 starts n workers, and this thread
   * only hands them tasks). The report is the same whatever the number. Used only with the default
   * oracle, exploit suite and runner (functions cannot cross to a worker); otherwise the tasks
   * run here.
   */
  workers?: number;
  /**
   * Gates to hold as hard in this certification even where the registry has them soft
   * (`hard: false`): their failures then fail `ok`, drop tasks and cause re-draws.
   */
  hardGates?: readonly GateName[];
}

/**
 * Seconds one gate took over all tasks: `seconds` of its thread's wall time (summed over workers),
 * `cpuSeconds` of the whole process's CPU meanwhile — exact on one thread, but with workers it
 * counts the other workers too (Node 20 has no per-thread CPU clock).
 */
export interface GateTime {
  seconds: number;
  cpuSeconds: number;
}

/** Everything the gates found on one task, gate by gate (what a worker sends back). */
export interface TaskFindings {
  task_id: string;
  failures: Partial<Record<GateName, GateFailure[]>>;
  notes: string[];
  exploits?: ExploitFindings;
  /** Requirement mutants generated and killed on the task. */
  mutants?: { generated: number; killed: number };
  time: Partial<Record<GateName, GateTime>>;
}

/**
 * Run every wanted gate on one task. Gates run task by task (not gate by gate) so the trials of a
 * task and trial seed are shared between gates and released when the task is done.
 *
 * @example const f = await certifyTask(bank, task, {}, sharedTrials(bank)); f.failures.triad // []
 */
export async function certifyTask(
  bank: Bank,
  task: Task,
  options: CertifyOptions,
  runner: TrialRunner,
): Promise<TaskFindings> {
  const wanted = new Set(options.gates ?? GATE_NAMES);
  const out: TaskFindings = { task_id: task.id, failures: {}, notes: [], time: {} };
  const timed = async <T>(name: GateName, work: () => Promise<T> | T): Promise<T> => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const result = await work();
    const used = process.cpuUsage(cpu);
    out.time[name] = {
      seconds: (performance.now() - wall) / 1000,
      cpuSeconds: (used.user + used.system) / 1e6,
    };
    return result;
  };
  for (const gate of GATES) {
    if (!wanted.has(gate.name)) continue;
    const found = await timed(gate.name, () => gate.run({ bank, task, options, runner }));
    if (found.failures) out.failures[gate.name] = found.failures;
    if (found.notes) out.notes.push(...found.notes);
    if (found.exploits) out.exploits = found.exploits;
    if (found.mutants) out.mutants = found.mutants;
  }
  runner.release(task);
  return out;
}

/**
 * The per-gate report from every task's findings (in task order).
 *
 * @example assembleReport(bank, tasks, findings, options)
 */
export function assembleReport(
  bank: Bank,
  tasks: readonly Task[],
  findings: readonly TaskFindings[],
  options: CertifyOptions = {},
): CertifyReport {
  const wanted = new Set(options.gates ?? GATE_NAMES);
  const gates: CertifyReport["gates"] = {};
  for (const gate of GATES) {
    const name = gate.name;
    if (!wanted.has(name)) continue;
    const made = gate.report({ tasks, findings, options });
    const report = { ...made, hard: isHard(gate, options) };
    gates[name] = report;
    const time = findings.reduce(
      (t, f) => ({
        seconds: t.seconds + (f.time[name]?.seconds ?? 0),
        cpuSeconds: t.cpuSeconds + (f.time[name]?.cpuSeconds ?? 0),
      }),
      { seconds: 0, cpuSeconds: 0 },
    );
    options.onGate?.(name, report, time);
  }
  return CertifyReportSchema.parse({
    ok: Object.values(gates).every((g) => !g.hard || g.failed === 0),
    bank: { name: bank.manifest.name, seed: bank.manifest.seed, tasks: bank.tasks.length },
    oracle: options.oracle?.name ?? "golden",
    gates,
  });
}

/** Whether a gate's failures fail this certification (see `Gate.hard` and `CertifyOptions.hardGates`). */
function isHard(gate: (typeof GATES)[number], options: CertifyOptions): boolean {
  return gate.hard || (options.hardGates?.includes(gate.name) ?? false);
}

/**
 * Certify a bank: run the gates of issue 8 over its tasks and return the per-gate report. Zero-LLM
 * unless a model is given as the oracle. Deterministic: every trial's seed derives from the bank
 * seed, the task and the epoch.
 *
 * @example
 * const report = await certifyBank(defaultBankContent());
 * if (!report.ok) console.error(report.gates.triad?.first_failure);
 */
export async function certifyBank(
  input: Bank | BankContent,
  options: CertifyOptions = {},
): Promise<CertifyReport> {
  const portable = !options.oracle && !options.exploits && !options.runner;
  // n threads are n workers, and this thread only hands out tasks: a worker's young generation can
  // be sized for certification (see `WORKER_LIMITS`), this thread's cannot. A worker costs about a
  // second of CPU to load its modules (more under tsx) and a copy of the bank; they load while
  // this thread builds the bank.
  const wanted = Math.min(options.workers ?? 1, input.tasks.length);
  const pool = wanted > 1 && portable ? Array.from({ length: wanted }, startWorker) : [];
  let bank: Bank;
  try {
    bank = "manifest" in input ? input : bankFromContent(input);
  } catch (e) {
    for (const worker of pool) void worker.terminate();
    throw e;
  }
  const tasks = options.tasks ? bank.tasks.filter(options.tasks) : bank.tasks;
  let findings: TaskFindings[];
  if (pool.length > 0) findings = await certifyInWorkers(bank, tasks, options, pool);
  else {
    const runner = (options.runner ?? sharedTrials)(bank);
    findings = [];
    for (const task of tasks) findings.push(await certifyTask(bank, task, options, runner));
  }
  return assembleReport(bank, tasks, findings, options);
}

/**
 * How to start a worker: the compiled module beside this one, or under tsx/vitest (this module is
 * TypeScript) a small ESM script that registers tsx's loader first — Node 20 does not apply
 * `--import tsx` from a worker's execArgv.
 */
function startWorker(): Worker {
  const resourceLimits = WORKER_LIMITS;
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./certify-worker.js", import.meta.url), { resourceLimits });
  const entry = new URL("./certify-worker.ts", import.meta.url).href;
  const script = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(script, { eval: true, resourceLimits });
}

/**
 * A worker's heap: certification allocates short-lived objects at a high rate (forked worlds,
 * logs, transcripts, grades), and with V8's default young generation a fifth of its CPU went to
 * the garbage collector. A larger one (semi-spaces of 64 MB) cuts the CPU of the default bank's
 * certification by about 15%; the old generation keeps V8's default.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 192 };

/**
 * Tasks a worker holds beyond the one it is certifying, so it never waits for its next one; few,
 * so that the last tasks go to whichever worker is free first.
 */
const WORKER_BACKLOG = 1;

/**
 * The tasks' findings computed by the started `workers`, from one queue (longest goldens first,
 * so a long chain does not start last), returned in task order. Each worker is handed the bank
 * first, then tasks as it finishes them, one ahead.
 */
async function certifyInWorkers(
  bank: Bank,
  tasks: readonly Task[],
  options: CertifyOptions,
  workers: readonly Worker[],
): Promise<TaskFindings[]> {
  const indexOf = new Map(bank.tasks.map((t, i) => [t, i]));
  const order = tasks
    .map((task, position) => ({
      position,
      index: indexOf.get(task) as number,
      task,
      cost: task.setup.length + task.golden.length,
    }))
    .sort((a, b) => b.cost - a.cost || a.position - b.position);
  const byIndex = new Map(order.map((o) => [o.index, o.position]));
  const results: TaskFindings[] = new Array(tasks.length);
  let next = 0;
  const data = {
    bank: { manifest: bank.manifest, worlds: bank.worlds, tasks: bank.tasks },
    options: {
      ...(options.gates ? { gates: [...options.gates] } : {}),
      ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
      ...(options.minPasses !== undefined ? { minPasses: options.minPasses } : {}),
    },
  };
  let failed: Error | null = null;
  const one = (worker: Worker) =>
    new Promise<void>((resolve, reject) => {
      let held = 0;
      const fail = (e: Error) => {
        failed ??= e;
        void worker.terminate();
        reject(e);
      };
      const feed = () => {
        while (held < 1 + WORKER_BACKLOG && !failed) {
          const item = order[next++];
          if (!item) break;
          held += 1;
          worker.postMessage({ index: item.index });
        }
        if (held === 0) worker.postMessage({ stop: true });
      };
      worker.postMessage({ setup: data });
      worker.on(
        "message",
        (m: { ready: true } | { index: number; findings?: TaskFindings; error?: string }) => {
          if ("index" in m) {
            held -= 1;
            if (m.error !== undefined || !m.findings) {
              fail(new Error(`certifying task ${bank.tasks[m.index]?.id} failed in a worker: ${m.error}`));
              return;
            }
            results[byIndex.get(m.index) as number] = m.findings;
          }
          feed();
        },
      );
      worker.on("error", fail);
      worker.on("exit", (code) =>
        code === 0 || failed ? resolve() : reject(new Error(`certify worker exited with ${code}`)),
      );
    });
  await Promise.all(workers.map(one));
  if (failed) throw failed;
  return results;
}

/**
 * The bank content with the gates that ran recorded in it (name, version, tasks checked and
 * passed), so the manifest written from it — and its content hash — covers them.
 *
 * @example writeBank(dir, recordGates(content, await certifyBank(content)))
 */
export function recordGates(content: BankContent, report: CertifyReport): BankContent {
  const gates = GATE_NAMES.flatMap((name) => {
    const g = report.gates[name];
    return g
      ? [
          {
            name,
            version: g.version,
            checked: g.checked,
            passed: g.passed,
            ...(g.mutants ? { mutants: g.mutants } : {}),
          },
        ]
      : [];
  });
  return { ...content, gates };
}

/** Ids of the tasks that failed any hard gate (a soft gate's failures are reported, not dropped). */
export function failedTaskIds(report: CertifyReport): Set<string> {
  return new Set(
    Object.values(report.gates)
      .filter((g) => g.hard)
      .flatMap((g) => g.failures.map((f) => f.task_id)),
  );
}

/**
 * The content without the tasks that failed a gate, chains truncated: a chain that covers the
 * position of a dropped solo subtask goes too (that subtask is not certified), so only the chains
 * shorter than the first dropped position stay. Returns what was dropped, for the report.
 *
 * @example const { content: kept, dropped } = dropUncertified(content, report);
 */
export function dropUncertified(
  content: BankContent,
  report: CertifyReport,
): { content: BankContent; dropped: string[] } {
  const failed = failedTaskIds(report);
  const droppedPositions = new Map<string, Set<number>>();
  for (const t of content.tasks) {
    if (t.kind !== "solo" || !failed.has(t.id)) continue;
    const set = droppedPositions.get(t.world) ?? new Set<number>();
    for (const p of t.positions) set.add(p);
    droppedPositions.set(t.world, set);
  }
  const keep = (t: Task) =>
    !failed.has(t.id) &&
    !(t.kind === "chain" && t.positions.some((p) => droppedPositions.get(t.world)?.has(p)));
  return {
    content: { ...content, tasks: content.tasks.filter(keep) },
    dropped: content.tasks.filter((t) => !keep(t)).map((t) => t.id),
  };
}
