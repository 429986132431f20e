import { hostname } from "node:os";
import { DelayedError, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { resolveAgent } from "../agents/agent-registry.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { harnessErrorResult, runTrial } from "../run/run-trial.js";
import { encodeTrialLog, storedTrialLogOf } from "../run/stored-trial-log.js";
import { redactor } from "../run/transcript-writer.js";
import type { AgentFactory } from "../trial/agent.js";
import { trialSeed } from "../world/canary.js";
import { QUEUE_PREFIX, queueSideKeys } from "./queue-keys.js";
import { checkRedis, type QueueAddress, type QueueUrlError } from "./queue-url.js";
import { SharedRateLimit } from "./shared-rate-limit.js";
import {
  DEFAULT_QUEUE_NAME,
  type TrialJob,
  type TrialJobResult,
  TrialJobSchema,
  toJobResult,
} from "./trial-job.js";

/** Why a worker handed a job back untouched; another worker (or this one, later) may take it. */
export type JobRefusal =
  | { code: "bank_mismatch"; message: string }
  | { code: "unknown_task"; message: string }
  | { code: "agent_unavailable"; message: string }
  | { code: "unreadable_job"; message: string };

export interface QueueWorkerOptions {
  address: QueueAddress;
  queueName?: string;
  /** The bank this machine holds; only jobs of its content hash are run. */
  bank: Bank;
  /** Trials in flight in this worker. */
  concurrency: number;
  /** Where model keys come from: this machine's environment, never the job. */
  env: Record<string, string | undefined>;
  /** Agent module paths in jobs are resolved from here. */
  cwd: string;
  /** Overrides the base URL a model job names (each machine may have its own local server). */
  baseUrl?: string;
  /** A worker silent this long is presumed dead and its trials go to another worker (BullMQ's lock). */
  lockDurationMs?: number;
  /** A refused job waits this long before any worker sees it again. */
  refuseDelayMs?: number;
  /** One line per event worth a human's attention (ready, refusals, errors). */
  log: (line: string) => void;
  /** Called after each trial this worker finished. */
  onTrial?: (result: TrialJobResult) => void;
}

export interface QueueWorkerHandle {
  readonly id: string;
  /** Stop taking jobs, let the trials in flight finish, disconnect. */
  close(): Promise<void>;
}

/**
 * Run trials from the queue on this machine until closed: each job is checked against this
 * machine's bank (by content hash), run with `runTrial` exactly as the local runner does, and its
 * result left in Redis for the coordinator. A job this worker cannot run (another bank, a missing
 * key, a module it does not have) is handed back with a one-line reason, never failed.
 *
 * @example
 * const w = await startQueueWorker({ address, bank, concurrency: 8, env: process.env, cwd: process.cwd(), log: console.error });
 * if (w.success) process.once("SIGTERM", () => void w.data.close());
 */
export async function startQueueWorker(
  options: QueueWorkerOptions,
): Promise<{ success: true; data: QueueWorkerHandle } | { success: false; error: QueueUrlError }> {
  const reachable = await checkRedis(options.address);
  if (!reachable.success) return reachable;
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const keys = queueSideKeys(queueName);
  const id = `${hostname()}-${process.pid}`;
  const connection = { ...options.address.connection, maxRetriesPerRequest: null };
  const { bank } = options;
  const bankHash = bank.manifest.content_hash;
  const taskById = new Map<string, Task>(bank.tasks.map((t) => [t.id, t]));
  const queue = new Queue(queueName, { connection, prefix: QUEUE_PREFIX });
  const side = new Redis(connection);
  side.on("error", () => {});
  const shared = await SharedRateLimit.open({ connection, channel: keys.rateLimits, queue });
  const secrets = new Set<string>();
  const logged = new Set<string>();
  const agentFor = workerAgents(options, shared, secrets);

  const refuse = async (job: Job, token: string | undefined, refusal: JobRefusal): Promise<never> => {
    const line = `apiflow worker ${id}: refusing trial ${job.id}: ${refusal.message}`;
    if (!logged.has(refusal.message)) {
      logged.add(refusal.message);
      options.log(line);
    }
    await side.hset(keys.refusals, id, refusal.message).catch(() => 0);
    await job.moveToDelayed(Date.now() + (options.refuseDelayMs ?? 2000), token);
    throw new DelayedError(refusal.message);
  };

  const processor = async (job: Job, token?: string): Promise<TrialJobResult> => {
    const parsed = TrialJobSchema.safeParse(job.data);
    if (!parsed.success) {
      return refuse(job, token, {
        code: "unreadable_job",
        message: `job ${job.id} is not a trial job this apiflow reads (${parsed.error.issues[0]?.message ?? "invalid"})`,
      });
    }
    const data = parsed.data;
    if (data.bank_hash !== bankHash) {
      return refuse(job, token, {
        code: "bank_mismatch",
        message: `bank hash mismatch: the job is for bank ${data.bank_name} ${data.bank_hash.slice(0, 12)}, this worker has ${bank.manifest.name} ${bankHash.slice(0, 12)} (start it with --bank pointing at that bank)`,
      });
    }
    const task = taskById.get(data.task_id);
    if (!task) {
      // Same hash, so the same tasks: a job naming another task was not made by apiflow.
      throw new UnrecoverableError(`bank ${bankHash.slice(0, 12)} has no task ${data.task_id}`);
    }
    const agent = await agentFor(data);
    if (!agent.success)
      return refuse(job, token, {
        code: "agent_unavailable",
        message: `cannot run agent ${data.agent}: ${agent.message}`,
      });
    const result = await runTrial({
      bank,
      task,
      agent: agent.factory,
      epoch: data.epoch,
      ...(data.salt ? { salt: data.salt } : {}),
      limits: data.limits,
    }).catch((e: unknown) =>
      harnessErrorResult(
        task,
        data.epoch,
        data.agent,
        trialSeed(bank.manifest.seed, task.id, data.epoch, data.salt),
        e,
      ),
    );
    const redact = redactor([...secrets]);
    const log = encodeTrialLog(storedTrialLogOf(result, task, bankHash), redact);
    const out = JSON.parse(redact(JSON.stringify(toJobResult(result, log)))) as TrialJobResult;
    options.onTrial?.(out);
    return out;
  };

  const lockDuration = options.lockDurationMs ?? 30_000;
  const worker = new Worker(queueName, processor, {
    connection,
    prefix: QUEUE_PREFIX,
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: Math.max(500, Math.floor(lockDuration / 2)),
    // A trial whose worker died is given to another worker; only a trial that kills worker after
    // worker fails (recorded as a harness error).
    maxStalledCount: 5,
    // Needed for the queue's global rate limit (`queue.rateLimit`) to hold workers back; the
    // ceiling itself is never the constraint.
    limiter: { max: 1_000_000, duration: 1000 },
    autorun: false,
  });
  worker.on("error", (e) => options.log(`apiflow worker ${id}: ${e.message.split("\n")[0]}`));
  worker.on("stalled", (jobId) =>
    options.log(`apiflow worker ${id}: trial ${jobId} stalled (its worker went silent); it runs again`),
  );
  void worker.run();
  await worker.waitUntilReady();
  return {
    success: true,
    data: {
      id,
      async close() {
        await worker.close();
        await side.hdel(keys.refusals, id).catch(() => 0);
        side.disconnect();
        await shared.close();
        await queue.close();
      },
    },
  };
}

type MadeAgent = { success: true; factory: AgentFactory } | { success: false; message: string };

/**
 * The worker's agents, built once per agent, settings and retry policy through the agent registry,
 * with this machine's keys (kept in `secrets` for redaction) and the queue-wide rate limit.
 */
function workerAgents(
  options: QueueWorkerOptions,
  shared: SharedRateLimit,
  secrets: Set<string>,
): (job: TrialJob) => Promise<MadeAgent> {
  const agents = new Map<string, MadeAgent>();
  const makeAgent = async (job: TrialJob): Promise<MadeAgent> => {
    const made = await resolveAgent(
      { settings: job.settings, name: job.agent },
      {
        cwd: options.cwd,
        env: options.env,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        refuseMcp: `agent ${job.agent} is an external MCP agent: workers do not launch commands from the queue (run it with apiflow run, without --queue)`,
        calls: (modelApi) => ({
          retry: job.retry,
          limiter: shared.limiter(modelApi, options.concurrency),
          onEvent: (e) => {
            if (e.type !== "retry") return;
            if (e.failure.kind === "rate_limited") void shared.report(modelApi, e.delayMs);
            else void shared.reportRetry(modelApi);
          },
        }),
      },
    );
    if (!made.success) return { success: false, message: made.error.message };
    for (const s of made.data.secrets) secrets.add(s);
    return { success: true, factory: made.data.factory };
  };
  return async (job) => {
    const cacheKey = JSON.stringify([job.agent, job.settings, job.retry]);
    const cached = agents.get(cacheKey);
    if (cached) return cached;
    const made = await makeAgent(job);
    agents.set(cacheKey, made);
    return made;
  };
}
