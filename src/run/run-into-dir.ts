import type { AgentSettings } from "../agents/agent-registry.js";
import type { AimdLimiter } from "../agents/aimd-limiter.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_LIMITS, type TrialLimits } from "../trial/stop-conditions.js";
import { AuthRefusalWatch } from "./auth-refusal.js";
import { type PriceTable, priceTokens } from "./price-table.js";
import { DEFAULT_REDO } from "./redo-outcomes.js";
import { openRunDirectory, type RunDirectoryError } from "./run-directory.js";
import { gridCells, runGrid } from "./run-grid.js";
import { runSalt } from "./run-manifest.js";
import type { AgentProgress } from "./run-progress.js";
import type { TrialResult } from "./run-trial.js";
import { type ResultsStore, readRunManifest, transcriptRelPath } from "./store.js";
import { storedTrialLogOf, writeTrialLog } from "./stored-trial-log.js";
import { buildTranscript, redactor, trialFailureReason, writeTranscript } from "./transcript-writer.js";
import { type Outcome, type TrialRecord, UNSCORED_OUTCOMES } from "./trial-record.js";

/** One agent of a run, with what the manifest and the pricing need to know about it. */
export interface RunAgent {
  factory: AgentFactory;
  settings: AgentSettings;
  /** `provider/model` for models (priced); absent for scripted agents (cost 0). */
  modelApi?: string;
  /** The model's AIMD gate, shown in the progress display. */
  limiter?: AimdLimiter;
}

export interface RunIntoDirOptions {
  runDir: string;
  bank: Bank;
  agents: readonly RunAgent[];
  tasks?: readonly Task[];
  epochs: number;
  concurrency: number;
  limits?: TrialLimits;
  priceTable: PriceTable;
  /** Stop starting trials once the run's recorded cost reaches this many dollars. */
  costLimitUsd?: number;
  /** Run even if the directory's manifest pins other versions or settings. */
  force?: boolean;
  /** Keys in use: redacted from everything written. */
  secrets?: readonly string[];
  /** Called after each trial is recorded (in completion order). */
  onRecord?: (record: TrialRecord, result: TrialResult) => void;
  /** Counters kept up to date for a progress display (one per agent, in `agents` order). */
  progress?: AgentProgress[];
  /** Outcomes found in the store that are run again (default: provider and harness errors). */
  redo?: ReadonlySet<Outcome>;
  /** The run's salt (`--salt`); default the run directory's, or a fresh random one (`runSalt`). */
  salt?: string;
}

export interface RunIntoDirSummary {
  /** Every trial of the grid found in the store after the run, in grid order. */
  records: TrialRecord[];
  /** Trials run by this call. */
  ran: number;
  /** Trials found finished in the store and not redone. */
  resumed: number;
  /** Trials found in the store with an outcome in `redo`, run again by this call. */
  redone: number;
  /** Grid cells left unrun (the cost limit, or a model whose key was refused). */
  notRun: number;
  costLimitReached: boolean;
  /** Agents whose first trials were all refused with 401/403: their other trials were not started. */
  refused: string[];
  /** The salt every trial's canaries were minted with (recorded in the manifest). */
  salt: string;
}

/** An agent's first trials that must all be refused (401/403) before its others are not started. */
export function authRefusalThreshold(trialsOfAgent: number, concurrency: number): number {
  return Math.max(1, Math.min(3, concurrency, trialsOfAgent));
}

export type RunIntoDirError = RunDirectoryError;

/**
 * Run a grid into a run directory: results store, transcripts and manifest. Re-running the same
 * call resumes: a trial already in the store is not redone, and a process killed at any instant
 * loses at most the trials in flight (each trial is one store transaction, written after its
 * transcript).
 *
 * @example
 * const res = await runIntoDir({ runDir: ".apiflow/runs/x", bank, agents: [{ factory: goldenAgentFactory, settings: { kind: "scripted" } }], epochs: 5, concurrency: 8, priceTable: DEFAULT_PRICE_TABLE });
 */
export async function runIntoDir(
  options: RunIntoDirOptions,
): Promise<{ success: true; data: RunIntoDirSummary } | { success: false; error: RunIntoDirError }> {
  const { bank, runDir } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const bankHash = bank.manifest.content_hash;
  const salt = runSalt(options.salt, readRunManifest(runDir));
  const opened = openRunDirectory({
    runDir,
    bank,
    agents: Object.fromEntries(options.agents.map((a) => [a.factory.name, a.settings])),
    limits,
    priceTableVersion: options.priceTable.version,
    salt,
    taskIds: (options.tasks ?? bank.tasks).map((t) => t.id),
    ...(options.force !== undefined ? { force: options.force } : {}),
  });
  if (!opened.success) return opened;
  const store = opened.data;
  try {
    return { success: true, data: await runWithStore({ ...options, salt }, store, limits, bankHash) };
  } finally {
    store.close();
  }
}

async function runWithStore(
  options: RunIntoDirOptions & { salt: string },
  store: ResultsStore,
  limits: TrialLimits,
  bankHash: string,
): Promise<RunIntoDirSummary> {
  const { bank } = options;
  const tasks = options.tasks ?? bank.tasks;
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  const byName = new Map(options.agents.map((a, i) => [a.factory.name, { agent: a, index: i }]));
  const redact = redactor(options.secrets ?? []);
  const cells = gridCells(
    options.agents.map((a) => a.factory),
    tasks,
    options.epochs,
  );
  const keyOf = (agent: string, taskId: string, epoch: number) => ({
    bank_hash: bankHash,
    agent,
    task_id: taskId,
    epoch,
  });
  const redo = options.redo ?? DEFAULT_REDO;
  let spent = 0;
  let resumed = 0;
  let redone = 0;
  /** Cells whose stored trial is kept (not redone). */
  const kept = new Set<string>();
  for (const cell of cells) {
    const rec = store.get(keyOf(cell.agent.name, cell.task.id, cell.epoch));
    if (!rec) continue;
    if (redo.has(rec.outcome)) {
      redone++;
      continue;
    }
    kept.add(`${cell.agent.name}\u0000${cell.task.id}\u0000${cell.epoch}`);
    resumed++;
    spent += rec.cost_usd ?? 0;
    countProgress(options.progress?.[byName.get(cell.agent.name)?.index ?? -1], rec, false);
  }
  const limitReached = () => options.costLimitUsd !== undefined && spent >= options.costLimitUsd;
  const watch = new AuthRefusalWatch((agent) =>
    authRefusalThreshold(cells.filter((c) => c.agent.name === agent).length, options.concurrency),
  );
  let ran = 0;
  await runGrid({
    bank,
    agents: options.agents.map((a) => a.factory),
    tasks,
    epochs: options.epochs,
    salt: options.salt,
    concurrency: options.concurrency,
    limits,
    skip: (cell) => kept.has(`${cell.agent.name}\u0000${cell.task.id}\u0000${cell.epoch}`),
    shouldStop: (cell) => limitReached() || watch.refused(cell.agent.name),
    onTrial: (result) => {
      watch.note(result);
      const entry = byName.get(result.agent);
      const task = taskById.get(result.task_id);
      if (!entry || !task)
        throw new Error(`bug: trial of unknown agent or task ${result.agent}/${result.task_id}`);
      const record = keepTrial(result, task, entry.agent, { ...options, store, redact });
      ran++;
      spent += record.cost_usd ?? 0;
      countProgress(options.progress?.[entry.index], record, true);
      options.onRecord?.(record, result);
    },
  });
  const records: TrialRecord[] = [];
  for (const cell of cells) {
    const rec = store.get(keyOf(cell.agent.name, cell.task.id, cell.epoch));
    if (rec) records.push(rec);
  }
  return {
    records,
    ran,
    resumed,
    redone,
    notRun: cells.length - records.length,
    costLimitReached: records.length < cells.length && limitReached(),
    refused: watch.refusedAgents(),
    salt: options.salt,
  };
}

/**
 * Keep a finished trial in a run directory: its transcript and its stored event log first, then
 * its store row, so a row never points at a transcript that is not there. Secrets are redacted
 * from all three. `storedLog` is the log's JSON when it was built elsewhere (a queue worker's);
 * null when there is none to keep; by default it is built from the result.
 *
 * @example const rec = keepTrial(result, task, agent, { runDir, bank, priceTable, store, redact });
 */
export function keepTrial(
  result: TrialResult,
  task: Task,
  agent: RunAgent,
  into: {
    runDir: string;
    bank: Bank;
    priceTable: PriceTable;
    store: ResultsStore;
    redact: (text: string) => string;
    storedLog?: string | null;
  },
): TrialRecord {
  const { bank, redact } = into;
  const bankHash = bank.manifest.content_hash;
  const rel = transcriptRelPath(agent.factory.name, result.task_id, result.epoch);
  writeTranscript(
    into.runDir,
    rel,
    buildTranscript(result, {
      model: agent.factory.name,
      ...(agent.modelApi ? { modelApi: agent.modelApi } : {}),
      provenance: { bench: "APIFlow-Bench", bank_hash: bankHash, bank_name: bank.manifest.name },
    }),
    redact,
  );
  const log = into.storedLog === undefined ? storedTrialLogOf(result, task, bankHash) : into.storedLog;
  if (log !== null) writeTrialLog(into.runDir, rel, log, redact);
  const record = trialRecordOf(result, task, bankHash, into.priceTable, agent.modelApi ?? null, rel, redact);
  into.store.record(record);
  return record;
}

/**
 * Count a stored trial into its agent's progress counters: `ranHere` for a trial this process ran
 * (it counts towards the ETA), false for one resumed. An unknown cost marks the total.
 */
export function countProgress(p: AgentProgress | undefined, record: TrialRecord, ranHere: boolean): void {
  if (!p) return;
  p.done++;
  if (record.outcome === "pass") p.passed++;
  p.costUsd += record.cost_usd ?? 0;
  if (record.cost_usd === null) p.costUnknown = true;
  if (ranHere) p.doneHere++;
}

/**
 * A finished trial as a store row. Unscored outcomes (provider and harness errors) have null
 * verdict fields.
 *
 * @example trialRecordOf(result, task, bank.manifest.content_hash, DEFAULT_PRICE_TABLE, null, rel)
 */
export function trialRecordOf(
  result: TrialResult,
  task: Task,
  bankHash: string,
  priceTable: PriceTable,
  modelApi: string | null,
  transcript: string | null,
  redact: (text: string) => string = (t) => t,
): TrialRecord {
  const scored = !UNSCORED_OUTCOMES.has(result.outcome);
  const tokens = {
    input: result.tokens.input,
    output: result.tokens.output,
    cache_read: result.tokens.cache,
    cache_write: result.tokens.cache_write,
    total: result.tokens.total,
  };
  return {
    bank_hash: bankHash,
    agent: result.agent,
    task_id: result.task_id,
    epoch: result.epoch,
    world: task.world,
    kind: task.kind,
    position: task.kind === "solo" ? (task.positions[0] ?? 1) : null,
    length: task.kind === "chain" ? task.positions.length : null,
    axis: task.kind === "solo" ? (task.axes[0] ?? null) : null,
    outcome: result.outcome,
    passed: scored ? result.outcome === "pass" : null,
    g1_passed: scored ? result.grade.g1_passed : null,
    g2_passed: scored ? result.grade.g2_passed : null,
    failure_reason: redact(trialFailureReason(result)),
    partial_score: scored ? result.grade.partial_score : null,
    tokens,
    cost_usd: priceTokens(priceTable, modelApi, tokens),
    duration_s: result.duration_s,
    stop_reason: result.stop_reason,
    transcript,
  };
}
