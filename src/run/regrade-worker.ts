import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { type BankGrader, type RegradeJob, type RegradeOutcome, regradeJob } from "./regrade-trial.js";

/**
 * A re-grade worker thread (started by `regrade-workers.ts`): for each call it receives, it claims
 * runs of jobs (a task's trials) one at a time from the shared counter the main thread also claims
 * from, re-grades them, and posts back its outcomes by job index before it leaves the call.
 */
export interface RegradeCall {
  call: number;
  jobs: RegradeJob[];
  /**
   * Where each claim's jobs start, then the jobs' count: a thread claims one run of jobs at a time
   * (a task's trials, see `claimsOf`), so the task's prepared grader serves them all in one thread.
   */
  claims: number[];
  /** The bank's graders by task id (`--bank`); null grades with the graders stored in the logs. */
  graders: Array<[string, BankGrader]> | null;
  /** Int32 slots: the next claim, threads inside the call, jobs done (see `CONTROL`). */
  control: SharedArrayBuffer;
}

/** What a worker posts when it leaves a call: its outcomes by job index, or the bug it hit. */
export type RegradeReply =
  | { call: number; outcomes: Array<[number, RegradeOutcome]> }
  | { call: number; error: string };

/** The control slots of a call's shared counter. */
export const CONTROL = { next: 0, active: 1, done: 2, slots: 3 } as const;

/**
 * The claims of `jobs`: each run of adjacent jobs of one task is one claim. Where each starts, then
 * the jobs' count.
 *
 * @example claimsOf([{ task_id: "a" }, { task_id: "a" }, { task_id: "b" }]) // [0, 2, 3]
 */
export function claimsOf(jobs: ReadonlyArray<Pick<RegradeJob, "task_id">>): number[] {
  const starts: number[] = [];
  jobs.forEach((job, i) => {
    if (i === 0 || job.task_id !== jobs[i - 1]?.task_id) starts.push(i);
  });
  starts.push(jobs.length);
  return starts;
}

/**
 * Claim runs of jobs from a call's shared counter until none is left, and hand each job of a run
 * to `grade` by its index, counting it done after. Every thread of a call claims through this.
 */
export function claimRuns(
  control: Int32Array,
  claims: readonly number[],
  grade: (job: number) => void,
): void {
  for (;;) {
    const c = Atomics.add(control, CONTROL.next, 1);
    if (c >= claims.length - 1) return;
    for (let i = claims[c] as number; i < (claims[c + 1] as number); i++) {
      grade(i);
      Atomics.add(control, CONTROL.done, 1);
    }
  }
}

/** Take part in a call: claim and re-grade runs of jobs until none is left, then reply. */
export function serveCall(msg: RegradeCall, port: MessagePort): void {
  const control = new Int32Array(msg.control);
  // Joined before claiming, left after replying: the main thread waits while any worker is inside.
  Atomics.add(control, CONTROL.active, 1);
  const outcomes: Array<[number, RegradeOutcome]> = [];
  let reply: RegradeReply;
  try {
    const graders = msg.graders ? new Map(msg.graders) : null;
    claimRuns(control, msg.claims, (i) => {
      outcomes.push([i, regradeJob(msg.jobs[i] as RegradeJob, graders)]);
    });
    reply = { call: msg.call, outcomes };
  } catch (e) {
    reply = { call: msg.call, error: (e as Error).stack ?? String(e) };
  }
  try {
    port.postMessage(reply);
  } finally {
    Atomics.sub(control, CONTROL.active, 1);
    Atomics.notify(control, CONTROL.active);
  }
}

// Started as a worker: serve every call that arrives on the port handed over at start.
const port = (workerData as { port?: MessagePort } | null)?.port;
if (port) {
  port.on("message", (msg: RegradeCall) => serveCall(msg, port));
  parentPort?.postMessage("ready");
}
