import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { type BankGrader, type RegradeJob, type RegradeOutcome, regradeJob } from "./regrade-trial.js";
import { CONTROL, claimRuns, claimsOf, type RegradeCall, type RegradeReply } from "./regrade-worker.js";

/**
 * Below this many trials a re-grade stays on the calling thread: a worker's start (loading the
 * grader's modules) costs more than it would take.
 */
export const PARALLEL_MIN_JOBS = 400;

/** How many worker threads a re-grade of `jobs` trials uses by default: one per spare core, or none. */
export function defaultRegradeWorkers(jobs: number): number {
  if (jobs < PARALLEL_MIN_JOBS) return 0;
  return Math.max(0, Math.min(availableParallelism(), 8) - 1);
}

interface PooledWorker {
  worker: Worker;
  port: MessagePort;
  /** Settles when the worker has loaded the grader and listens (rejects when it failed to start). */
  ready: Promise<void>;
}

// Started on the first parallel re-grade and kept for the next ones (unref'd: they never keep the
// process alive). They hold no trial's data between calls, only what any grading caches (prepared
// graders, interned stored graders), so a call's outcomes depend on its jobs alone.
const pool: PooledWorker[] = [];
let calls = 0;

/**
 * Re-grade jobs on this thread and `workers` worker threads at once, and return each job's outcome
 * at its index: the same outcomes, in the same order, as re-grading them one by one here. Every
 * thread claims the next run of adjacent jobs of one task (see `claimsOf`: the caller puts a task's
 * jobs together) from one shared counter, so a slow chain does not leave a thread idle,
 * and a worker still starting takes no job this thread has not already done. Synchronous (the
 * calling thread waits with `Atomics.wait` and reads the replies with `receiveMessageOnPort`), so
 * `regradeRun` stays a plain function.
 *
 * With `callerTakesPart: false` this thread only waits (tests: the workers then grade every job).
 *
 * @example const outcomes = regradeInParallel(jobs, null, 1);
 */
export function regradeInParallel(
  jobs: readonly RegradeJob[],
  graders: ReadonlyMap<string, BankGrader> | null,
  workers: number,
  options: { callerTakesPart?: boolean } = {},
): RegradeOutcome[] {
  const outcomes = new Array<RegradeOutcome | undefined>(jobs.length).fill(undefined);
  const started = startWorkers(workers);
  const control = new SharedArrayBuffer(CONTROL.slots * Int32Array.BYTES_PER_ELEMENT);
  const ctl = new Int32Array(control);
  const call = ++calls;
  const claims = claimsOf(jobs);
  const message: RegradeCall = {
    call,
    jobs: [...jobs],
    claims,
    graders: graders ? [...graders] : null,
    control,
  };
  for (const w of started) w.port.postMessage(message);
  // This thread's share: it claims like any worker (tests leave every job to the workers).
  if (options.callerTakesPart !== false)
    claimRuns(ctl, claims, (i) => {
      outcomes[i] = regradeJob(jobs[i] as RegradeJob, graders);
    });
  // Once every job is claimed and no worker is inside the call, every reply holding an outcome has
  // been posted: a worker joins the call before it claims and posts before it leaves. A worker that
  // joins later finds nothing to claim; its empty reply is dropped on the next call.
  let done = Atomics.load(ctl, CONTROL.done);
  let idle = 0;
  for (;;) {
    const claimed = Atomics.load(ctl, CONTROL.next) >= claims.length - 1;
    const active = Atomics.load(ctl, CONTROL.active);
    if (claimed && active === 0) break;
    // Leaving workers notify; one joining does not, hence the short wait while jobs are unclaimed.
    if (Atomics.wait(ctl, CONTROL.active, active, claimed ? 1000 : 10) !== "timed-out") continue;
    const now = Atomics.load(ctl, CONTROL.done);
    idle = now === done ? idle + (claimed ? 1000 : 10) : 0;
    done = now;
    if (idle >= 60_000) throw new Error("regrade: the worker threads made no progress for 60 s");
  }
  for (const w of started) {
    for (let m = receiveMessageOnPort(w.port); m; m = receiveMessageOnPort(w.port)) {
      const reply = m.message as RegradeReply;
      if (reply.call !== call) continue;
      if ("error" in reply) throw new Error(`regrade worker: ${reply.error}`);
      for (const [i, outcome] of reply.outcomes) outcomes[i] = outcome;
    }
  }
  const missing = outcomes.indexOf(undefined);
  if (missing >= 0) throw new Error(`regrade: no outcome for job ${missing}`);
  return outcomes as RegradeOutcome[];
}

/**
 * Stop the pooled workers (tests, and a long-lived host that wants its threads back).
 *
 * @example await closeRegradeWorkers();
 */
export async function closeRegradeWorkers(): Promise<void> {
  const all = pool.splice(0);
  await Promise.all(all.map((w) => w.worker.terminate()));
}

/**
 * Start the pooled workers a re-grade would use (`workers` of them) and wait until they listen: a
 * host that re-grades often (a service, the bench) pays their start once, before its first re-grade.
 *
 * @example await startRegradeWorkers(defaultRegradeWorkers(10_000));
 */
export async function startRegradeWorkers(workers: number): Promise<void> {
  await Promise.all(startWorkers(workers).map((w) => w.ready));
}

function startWorkers(n: number): PooledWorker[] {
  while (pool.length < n) {
    const started = startWorker();
    if (!started) break;
    pool.push(started);
  }
  return pool.slice(0, n);
}

/** A worker's first module: it registers tsx's loader when asked, then loads `regrade-worker`. */
const BOOT = `import { workerData } from "node:worker_threads";
if (workerData.tsx) (await import(workerData.tsx)).register();
await import(workerData.entry);`;

/**
 * A worker running `regrade-worker`: the compiled module next to this one, or, when this module
 * runs from its TypeScript source (tsx, vitest), the source through tsx's loader. Null when the
 * source cannot be loaded (no tsx): the re-grade then stays on this thread.
 */
function startWorker(): PooledWorker | null {
  const here = import.meta.url;
  const fromSource = here.endsWith(".ts");
  const entry = new URL(`./regrade-worker.${fromSource ? "ts" : "js"}`, here).href;
  let tsx: string | null = null;
  if (fromSource) {
    try {
      // tsx's ES module entry (its CommonJS one cannot register in a worker on Node 20).
      tsx = pathToFileURL(
        createRequire(here)
          .resolve("tsx/esm/api")
          .replace(/\.cjs$/, ".mjs"),
      ).href;
    } catch {
      return null;
    }
  }
  const { port1, port2 } = new MessageChannel();
  // A module by URL, not `eval` code: eval code is read as the host's `--input-type` says (a host
  // run with `--input-type=module` would fail on CommonJS code), a data: URL always as a module.
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(BOOT)}`), {
    workerData: { entry, tsx, port: port2 },
    transferList: [port2],
  });
  worker.unref();
  port1.unref();
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    // A worker that fails to start replies to nothing; its jobs are claimed by the others.
    worker.once("error", (e) => {
      const at = pool.findIndex((w) => w.worker === worker);
      if (at >= 0) pool.splice(at, 1);
      reject(e);
    });
  });
  ready.catch(() => {});
  return { worker, port: port1, ready };
}
