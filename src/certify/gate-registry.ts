import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { AXIS_NECESSITY_HARD, AXIS_NECESSITY_VERSION, axisNecessityFindings } from "./axis-necessity.js";
import type { CertifyOptions, TaskFindings } from "./certify-bank.js";
import { type GateFailure, type GateName, type GateReport, gateReport } from "./certify-schema.js";
import { CHAIN_REPLAY_VERSION, chainReplayFindings } from "./chain-replay.js";
import { DISCOVERABILITY_VERSION, discoverabilityFindings } from "./discoverability.js";
import {
  EXPLOIT_AUDIT_VERSION,
  type ExploitFindings,
  exploitAuditReport,
  exploitFindings,
} from "./exploit-audit.js";
import { EXPLOITS } from "./exploits/index.js";
import { HINT_GRADING_VERSION, hintGradingFindings } from "./hint-grading.js";
import { LEAK_VERSION, leakFindings } from "./leak.js";
import { PREMISES_VERSION, premiseFindings } from "./premises.js";
import {
  LEGITIMATE_VARIANTS_VERSION,
  legitimateVariantFindings,
  type MutantCount,
  REQUIREMENT_MUTANTS_VERSION,
  requirementMutantFindings,
} from "./requirement-gates.js";
import { SOLVABILITY_VERSION, solvabilityFindings } from "./solvability.js";
import { TRIAD_VERSION, triadFindings } from "./triad.js";
import type { TrialRunner } from "./trial-tree.js";

/** What a gate is handed for one task. */
export interface GateTaskContext {
  bank: Bank;
  task: Task;
  options: CertifyOptions;
  runner: TrialRunner;
}

/** What a gate found on one task: its failures, notes for the report, or the exploit audit's scores. */
export interface GateOutcome {
  failures?: GateFailure[];
  notes?: string[];
  exploits?: ExploitFindings;
  /** Requirement mutants: generated and killed on this task. */
  mutants?: MutantCount;
}

/** What a gate is handed to write its report: the certified tasks and every task's findings, in task order. */
export interface GateReportContext {
  tasks: readonly Task[];
  findings: readonly TaskFindings[];
  options: CertifyOptions;
}

/**
 * One certification gate: its name (the key of `gates.*` in `apiflow verify --json` and in the
 * manifest), its version, its work on one task, and its report over all tasks.
 */
export interface Gate {
  name: GateName;
  version: string;
  /**
   * Whether the gate's failures fail certification (`ok`, dropped tasks, `apiflow generate`'s
   * re-draws). A gate that is not hard (soft) still runs and reports (`hard: false` in its report);
   * `CertifyOptions.hardGates` makes it hard for one certification.
   */
  hard: boolean;
  run(ctx: GateTaskContext): Promise<GateOutcome> | GateOutcome;
  report(ctx: GateReportContext): GateReport;
}

const ids = (tasks: readonly Task[]) => tasks.map((t) => t.id);
const failuresOf = (name: GateName, findings: readonly TaskFindings[]) =>
  findings.flatMap((f) => f.failures[name] ?? []);

/** A gate whose findings are failures only, checked on every task; `hard: false` reports without failing. */
function perTaskGate(
  name: GateName,
  version: string,
  run: (ctx: GateTaskContext) => Promise<GateFailure[]> | GateFailure[],
  hard = true,
): Gate {
  return {
    name,
    version,
    hard,
    run: async (ctx) => ({ failures: await run(ctx) }),
    report: ({ tasks, findings }) => gateReport(version, ids(tasks), failuresOf(name, findings)),
  };
}

/**
 * The gates of issues 8, 15 and 16, in the order they run on each task (the order of
 * `GATE_NAMES`). `certifyBank` iterates this list; a new gate is one entry here.
 *
 * @example GATES.map((g) => g.name) // ["triad", "solvability", "discoverability", "leak", "requirement_mutants", …, "axis_necessity", "hint_grading"]
 */
export const GATES: readonly Gate[] = [
  perTaskGate("triad", TRIAD_VERSION, ({ bank, task, runner }) => triadFindings(bank, task, runner)),
  perTaskGate("solvability", SOLVABILITY_VERSION, ({ task, options, runner }) =>
    solvabilityFindings(
      task,
      {
        ...(options.oracle ? { oracle: options.oracle } : {}),
        ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
        ...(options.minPasses !== undefined ? { minPasses: options.minPasses } : {}),
      },
      runner,
    ),
  ),
  perTaskGate("discoverability", DISCOVERABILITY_VERSION, ({ bank, task, runner }) =>
    discoverabilityFindings(bank, task, runner),
  ),
  perTaskGate("leak", LEAK_VERSION, ({ bank, task }) => leakFindings(bank, task)),
  // Requirement mutants hold the default bank at a 100% mutation score: hard.
  {
    name: "requirement_mutants",
    version: REQUIREMENT_MUTANTS_VERSION,
    hard: true,
    run: async ({ bank, task, runner }) => {
      const { failures, count } = await requirementMutantFindings(bank, task, runner);
      return { failures, mutants: count };
    },
    report: ({ tasks, findings }) =>
      gateReport(REQUIREMENT_MUTANTS_VERSION, ids(tasks), failuresOf("requirement_mutants", findings), {
        mutants: findings.reduce(
          (m, f) => ({
            generated: m.generated + (f.mutants?.generated ?? 0),
            killed: m.killed + (f.mutants?.killed ?? 0),
          }),
          { generated: 0, killed: 0 },
        ),
      }),
  },
  {
    name: "legitimate_variants",
    version: LEGITIMATE_VARIANTS_VERSION,
    // Hard: every data flow accepts the record's value from any canonical route serving it, and a
    // variant re-mints an expired token; the default bank has 0 false fails.
    hard: true,
    run: async ({ bank, task, runner }) => ({
      failures: await legitimateVariantFindings(bank, task, runner),
    }),
    report: ({ tasks, findings }) =>
      gateReport(LEGITIMATE_VARIANTS_VERSION, ids(tasks), failuresOf("legitimate_variants", findings)),
  },
  {
    name: "chain_replay",
    version: CHAIN_REPLAY_VERSION,
    hard: true,
    run: ({ bank, task, runner }) => chainReplayFindings(bank, task, runner),
    report: ({ tasks, findings }) =>
      gateReport(
        CHAIN_REPLAY_VERSION,
        ids(tasks.filter((t) => t.kind === "chain")),
        failuresOf("chain_replay", findings),
        { notes: findings.flatMap((f) => f.notes) },
      ),
  },
  {
    name: "exploit_audit",
    version: EXPLOIT_AUDIT_VERSION,
    hard: true,
    run: async ({ bank, task, options, runner }) => ({
      exploits: await exploitFindings(bank, task, options.exploits ?? EXPLOITS, runner),
    }),
    report: ({ tasks, findings, options }) =>
      exploitAuditReport(
        tasks,
        options.exploits ?? EXPLOITS,
        findings.flatMap((f) => (f.exploits ? [f.exploits] : [])),
      ),
  },
  perTaskGate("premises", PREMISES_VERSION, ({ bank, task, runner }) => premiseFindings(bank, task, runner)),
  {
    name: "axis_necessity",
    version: AXIS_NECESSITY_VERSION,
    hard: AXIS_NECESSITY_HARD,
    run: ({ bank, task, runner }) => axisNecessityFindings(bank, task, runner),
    report: ({ tasks, findings }) =>
      gateReport(AXIS_NECESSITY_VERSION, ids(tasks), failuresOf("axis_necessity", findings)),
  },
  // A hard task's errors never name their fix (issue 16 item 4); easy and medium tasks pass.
  perTaskGate("hint_grading", HINT_GRADING_VERSION, ({ bank, task, runner }) =>
    hintGradingFindings(bank, task, runner),
  ),
];
