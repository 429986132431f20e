import type { AgentFactory } from "../agents/agent.js";
import { type Bank, type BankContent, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import {
  type CertifyReport,
  CertifyReportSchema,
  GATE_NAMES,
  type GateName,
  type GateReport,
} from "./certify-schema.js";
import { CHAIN_REPLAY_VERSION, chainReplayGate } from "./chain-replay.js";
import { DISCOVERABILITY_VERSION, discoverabilityGate } from "./discoverability.js";
import { EXPLOIT_AUDIT_VERSION, exploitAuditGate } from "./exploit-audit.js";
import type { Exploit } from "./exploits/index.js";
import { LEAK_VERSION, leakGate } from "./leak.js";
import { SOLVABILITY_VERSION, solvabilityGate } from "./solvability.js";
import { TRIAD_VERSION, triadGate } from "./triad.js";

/** Each gate's version, recorded in the manifest with its counts. */
export const GATE_VERSIONS: Record<GateName, string> = {
  triad: TRIAD_VERSION,
  solvability: SOLVABILITY_VERSION,
  discoverability: DISCOVERABILITY_VERSION,
  leak: LEAK_VERSION,
  chain_replay: CHAIN_REPLAY_VERSION,
  exploit_audit: EXPLOIT_AUDIT_VERSION,
};

export interface CertifyOptions {
  /** Gates to run, in the order of `GATE_NAMES`; default all six. */
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
  /** Called as each gate finishes (progress for the CLI). */
  onGate?: (name: GateName, report: GateReport) => void;
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
  const bank = "manifest" in input ? input : bankFromContent(input);
  const tasks = options.tasks ? bank.tasks.filter(options.tasks) : bank.tasks;
  const wanted = new Set(options.gates ?? GATE_NAMES);
  const gates: CertifyReport["gates"] = {};
  const run: Record<GateName, () => Promise<GateReport>> = {
    triad: () => triadGate(bank, tasks),
    solvability: () =>
      solvabilityGate(bank, tasks, {
        ...(options.oracle ? { oracle: options.oracle } : {}),
        ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
        ...(options.minPasses !== undefined ? { minPasses: options.minPasses } : {}),
      }),
    discoverability: () => discoverabilityGate(bank, tasks),
    leak: () => leakGate(bank, tasks),
    chain_replay: () => chainReplayGate(bank, tasks),
    exploit_audit: () => exploitAuditGate(bank, tasks, options.exploits),
  };
  for (const name of GATE_NAMES) {
    if (!wanted.has(name)) continue;
    const report = await run[name]();
    gates[name] = report;
    options.onGate?.(name, report);
  }
  return CertifyReportSchema.parse({
    ok: Object.values(gates).every((g) => g.failed === 0),
    bank: { name: bank.manifest.name, seed: bank.manifest.seed, tasks: bank.tasks.length },
    oracle: options.oracle?.name ?? "golden",
    gates,
  });
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
    return g ? [{ name, version: g.version, checked: g.checked, passed: g.passed }] : [];
  });
  return { ...content, gates };
}

/** Ids of the tasks that failed any gate. */
export function failedTaskIds(report: CertifyReport): Set<string> {
  return new Set(Object.values(report.gates).flatMap((g) => g.failures.map((f) => f.task_id)));
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
