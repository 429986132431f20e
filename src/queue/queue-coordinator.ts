import { type Job, Queue } from "bullmq";
import { Redis } from "ioredis";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../agents/model-call-retry.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { AuthRefusalWatch } from "../run/auth-refusal.js";
import { DEFAULT_REDO } from "../run/redo-outcomes.js";
import { openRunDirectory } from "../run/run-directory.js";
import { gridCells } from "../run/run-grid.js";
import {
  authRefusalThreshold,
  countProgress,
  keepTrial,
  type RunAgent,
  type RunIntoDirError,
  type RunIntoDirOptions,
  type RunIntoDirSummary,
} from "../run/run-into-dir.js";
import { runSalt } from "../run/run-manifest.js";
import { harnessErrorResult, type TrialResult } from "../run/run-trial.js";
import { type ResultsStore, readRunManifest } from "../run/store.js";
import { redactor } from "../run/transcript-writer.js";
import type { TrialRecord } from "../run/trial-record.js";
import { DEFAULT_LIMITS, type TrialLimits } from "../trial/stop-conditions.js";
import { trialSeed } from "../world/canary.js";
import { QUEUE_PREFIX, queueSideKeys } from "./queue-keys.js";
import { checkRedis, type QueueAddress, type QueueUrlError } from "./queue-url.js";
import { RateLimitNoticeSchema } from "./shared-rate-limit.js";
import {
  DEFAULT_QUEUE_NAME,
  fromJobResult,
  jobResultLogJson,
  TRIAL_JOB_VERSION,
  type TrialJob,
  TrialJobResultSchema,
  trialJobId,
} from "./trial-job.js";

export interface RunViaQueueOptions extends RunIntoDirOptions {
  address: QueueAddress;
  queueName?: string;
  /** The retry policy workers use for model calls (keys are never sent: workers read their own). */
  retry?: RetryPolicy;
  /** How often to look for finished trials when none came in (ms). */
  pollMs?: number;
  /** One line for the user when something needs their attention (a worker refusing trials). */
  onNotice?: (line: string) => void;
}

export type RunViaQueueError = RunIntoDirError | QueueUrlError;

interface Cell {
  agent: RunAgent;
  index: number;
  task: Task;
  epoch: number;
}

/**
 * `apiflow run --queue`: the same grid, run directory, manifest, store and transcripts as
 * `runIntoDir`, but each trial is a BullMQ job that any `apiflow worker` with the same bank runs.
 * Job ids are a pure function of (bank, agent, task, epoch), so enqueueing twice adds nothing;
 * results stay in Redis until this coordinator has written them to the store, then their jobs are
 * removed, so a coordinator killed at any instant and restarted loses and duplicates nothing.
 *
 * @example
 * const res = await runViaQueue({ address, runDir, bank, agents: [{ factory: goldenAgentFactory, settings: { kind: "scripted" } }], epochs: 5, concurrency: 8, priceTable: DEFAULT_PRICE_TABLE });
 */
export async function runViaQueue(
  options: RunViaQueueOptions,
): Promise<{ success: true; data: RunIntoDirSummary } | { success: false; error: RunViaQueueError }> {
  const { bank, runDir } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const bankHash = bank.manifest.content_hash;
  const reachable = await checkRedis(options.address);
  if (!reachable.success) return reachable;
  // The run directory is pinned exactly as the local runner pins it.
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
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const connection = { ...options.address.connection, maxRetriesPerRequest: null };
  const queue = new Queue(queueName, { connection, prefix: QUEUE_PREFIX });
  const side = new Redis(connection);
  side.on("error", () => {});
  const notices = await watchRateLimits(connection, queueName, options);
  try {
    return {
      success: true,
      data: await enqueueAndCollect(options, { store, queue, side, queueName, limits, bankHash, salt }),
    };
  } finally {
    store.close();
    side.disconnect();
    notices?.disconnect();
    await queue.close();
  }
}

async function enqueueAndCollect(
  options: RunViaQueueOptions,
  ctx: {
    store: ResultsStore;
    queue: Queue;
    side: Redis;
    queueName: string;
    limits: TrialLimits;
    bankHash: string;
    salt: string;
  },
): Promise<RunIntoDirSummary> {
  const { bank } = options;
  const { store, queue, bankHash } = ctx;
  const tasks = options.tasks ?? bank.tasks;
  const indexOf = new Map(options.agents.map((a, i) => [a.factory.name, i]));
  const redact = redactor(options.secrets ?? []);
  const keyOf = (agent: string, taskId: string, epoch: number) => ({
    bank_hash: bankHash,
    agent,
    task_id: taskId,
    epoch,
  });
  const cells: Cell[] = gridCells(
    options.agents.map((a) => a.factory),
    tasks,
    options.epochs,
  ).map((c) => {
    const index = indexOf.get(c.agent.name) as number;
    return { agent: options.agents[index] as RunAgent, index, task: c.task, epoch: c.epoch };
  });

  const redo = options.redo ?? DEFAULT_REDO;
  let spent = 0;
  let resumed = 0;
  let redone = 0;
  let ran = 0;
  /** Job id → cell, for trials not yet in the store. */
  const pending = new Map<string, Cell>();
  /** Job ids of trials already in the store: a job left behind by a crash is removed on sight. */
  const collected = new Set<string>();
  for (const cell of cells) {
    const key = keyOf(cell.agent.factory.name, cell.task.id, cell.epoch);
    const id = trialJobId(key);
    const rec = store.get(key);
    if (!rec || redo.has(rec.outcome)) {
      if (rec) redone++;
      pending.set(id, cell);
      continue;
    }
    collected.add(id);
    resumed++;
    spent += rec.cost_usd ?? 0;
    countProgress(options.progress?.[cell.index], rec, false);
  }
  const limitReached = () => options.costLimitUsd !== undefined && spent >= options.costLimitUsd;

  const jobs = trialJobs(pending, bank, ctx.limits, options.retry ?? DEFAULT_RETRY_POLICY, ctx.salt);
  if (!limitReached()) {
    for (let i = 0; i < jobs.length; i += 500) await queue.addBulk(jobs.slice(i, i + 500));
  }

  const watch = new AuthRefusalWatch((agent) =>
    authRefusalThreshold(cells.filter((c) => c.agent.factory.name === agent).length, options.concurrency),
  );
  const record = (result: TrialResult, cell: Cell, storedLog: string | null): TrialRecord => {
    watch.note(result);
    const rec = keepTrial(result, cell.task, cell.agent, { ...options, bank, store, redact, storedLog });
    ran++;
    spent += rec.cost_usd ?? 0;
    countProgress(options.progress?.[cell.index], rec, true);
    options.onRecord?.(rec, result);
    return rec;
  };

  const noticed = new Set<string>();
  let withdrawn = false;
  const withdrawnAgents = new Set<string>();
  const pollMs = options.pollMs ?? 200;
  while (pending.size > 0) {
    if (limitReached() && !withdrawn) {
      withdrawn = true;
      await withdrawWaiting(queue, pending);
      if (pending.size === 0) break;
    }
    for (const agent of watch.refusedAgents()) {
      if (withdrawnAgents.has(agent)) continue;
      withdrawnAgents.add(agent);
      await withdrawWaiting(queue, pending, (cell) => cell.agent.factory.name === agent);
    }
    if (pending.size === 0) break;
    let got = 0;
    const finished = await queue.getRanges(["completed", "failed"], 0, -1, true);
    for (const id of finished) {
      const cell = pending.get(id);
      if (!cell) {
        if (collected.has(id)) await queue.remove(id);
        continue;
      }
      const job = await queue.getJob(id);
      if (!job) continue;
      const finished = resultOfJob(job, await job.getState(), cell, bank, ctx.salt);
      if (finished === null) continue;
      const { result, storedLog } = finished;
      // Store first, then forget the job: a crash in between leaves a job we remove next time.
      record(result, cell, storedLog);
      pending.delete(id);
      collected.add(id);
      await job.remove();
      got++;
    }
    if (got === 0 && pending.size > 0) {
      await noticeRefusals(ctx.side, ctx.queueName, noticed, options.onNotice);
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  const records: TrialRecord[] = [];
  for (const cell of cells) {
    const rec = store.get(keyOf(cell.agent.factory.name, cell.task.id, cell.epoch));
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
    salt: ctx.salt,
  };
}

/**
 * The workers' retries, for the progress display: every notice a worker publishes on the queue's
 * rate-limit channel counts as a retry of its model, and a `rate_limited` one as a 429 too. (The
 * workers' windows stay theirs.)
 */
async function watchRateLimits(
  connection: QueueAddress["connection"] & { maxRetriesPerRequest: null },
  queueName: string,
  options: RunViaQueueOptions,
): Promise<Redis | undefined> {
  if (!options.progress?.length) return undefined;
  const sub = new Redis(connection);
  sub.on("error", () => {});
  const channel = queueSideKeys(queueName).rateLimits;
  sub.on("message", (ch: string, text: string) => {
    if (ch !== channel) return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return;
    }
    const notice = RateLimitNoticeSchema.safeParse(raw);
    if (!notice.success) return;
    for (const [i, a] of options.agents.entries()) {
      if (a.settings.model_api !== notice.data.model) continue;
      const p = options.progress?.[i];
      if (!p) continue;
      p.retries++;
      if (p.limiter && notice.data.kind === "rate_limited") p.limiter.rateLimited++;
    }
  });
  await sub.subscribe(channel).catch(() => {});
  return sub;
}

/** The queue jobs of the trials not yet in the store (kept in Redis until the coordinator stores them). */
function trialJobs(
  pending: ReadonlyMap<string, Cell>,
  bank: Bank,
  limits: TrialLimits,
  retry: RetryPolicy,
  salt: string,
) {
  return [...pending].map(([jobId, cell]) => {
    const data: TrialJob = {
      v: TRIAL_JOB_VERSION,
      bank_hash: bank.manifest.content_hash,
      bank_name: bank.manifest.name,
      agent: cell.agent.factory.name,
      settings: cell.agent.settings,
      task_id: cell.task.id,
      epoch: cell.epoch,
      limits: { ...limits },
      retry,
      salt,
    };
    // Kept in Redis after they finish: the coordinator removes each once it is in the store.
    return {
      name: "trial",
      data,
      opts: { jobId, removeOnComplete: false, removeOnFail: false, attempts: 1 },
    };
  });
}

/**
 * A finished job's trial result with its stored event log (an unreadable or failed job is a harness
 * error, with no log); null while it runs.
 */
function resultOfJob(
  job: Job,
  state: string,
  cell: Cell,
  bank: Bank,
  salt: string,
): { result: TrialResult; storedLog: string | null } | null {
  const seed = trialSeed(bank.manifest.seed, cell.task.id, cell.epoch, salt);
  if (state === "completed") {
    const parsed = TrialJobResultSchema.safeParse(job.returnvalue);
    if (parsed.success)
      return { result: fromJobResult(parsed.data), storedLog: jobResultLogJson(parsed.data) };
    return {
      storedLog: null,
      result: harnessErrorResult(
        cell.task,
        cell.epoch,
        cell.agent.factory.name,
        seed,
        new Error(`worker returned an unreadable result (${parsed.error.issues[0]?.message ?? "invalid"})`),
      ),
    };
  }
  if (state === "failed") {
    return {
      storedLog: null,
      result: harnessErrorResult(
        cell.task,
        cell.epoch,
        cell.agent.factory.name,
        seed,
        new Error(`worker failed: ${job.failedReason}`),
      ),
    };
  }
  return null;
}

/** Tell the user once about each worker that refuses trials (another bank, an agent it cannot run). */
async function noticeRefusals(
  side: Redis,
  queueName: string,
  noticed: Set<string>,
  onNotice: ((line: string) => void) | undefined,
): Promise<void> {
  const refusals = await side.hgetall(queueSideKeys(queueName).refusals).catch(() => ({}));
  for (const [worker, message] of Object.entries(refusals)) {
    const line = `worker ${worker} refuses trials: ${message}`;
    if (!noticed.has(line)) {
      noticed.add(line);
      onNotice?.(line);
    }
  }
}

/**
 * The cost limit was reached (or a model's key was refused): take back every trial (of `which`) no
 * worker has started; those in flight finish.
 */
async function withdrawWaiting(
  queue: Queue,
  pending: Map<string, Cell>,
  which: (cell: Cell) => boolean = () => true,
): Promise<void> {
  for (const [id, cell] of [...pending]) {
    if (!which(cell)) continue;
    const job = await queue.getJob(id);
    if (!job) {
      pending.delete(id);
      continue;
    }
    const state = await job.getState();
    if (state === "waiting" || state === "delayed" || state === "prioritized" || state === "unknown") {
      // A job a worker takes in the meantime is locked; remove then fails and the trial is collected.
      const removed = await job.remove().then(
        () => true,
        () => false,
      );
      if (removed) pending.delete(id);
    }
  }
}
