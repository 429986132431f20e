import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { gradeTrial } from "../src/grade/grade-trial.js";
import { regradeRun } from "../src/run/regrade-run.js";
import { defaultRegradeWorkers } from "../src/run/regrade-workers.js";
import { decodeTrialLog, gradeInputOf, TRIAL_LOG_SUFFIX } from "../src/run/stored-trial-log.js";
import { median } from "./figure.js";

/** What `measureRegrade` measured (trials/s unless named otherwise). */
export interface RegradeMeasures {
  trials: number;
  workers: number;
  /** The process's first re-grade (not stored): the workers' start, graders checked, code cold. */
  first: number;
  parallel: { wall: number; cpu: number };
  single: { wall: number; cpu: number };
  /** Decode + grade of the logs already in memory, one thread, per CPU second. */
  inMemory: number;
  /** Highest 1-minute load average seen while measuring. */
  load: number;
}

/** Every stored event log under `dir`. */
export function logFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...logFiles(path));
    else if (entry.name.endsWith(TRIAL_LOG_SUFFIX)) out.push(path);
  }
  return out;
}

/**
 * The re-grade figures of `regrade.bench.ts`, measured in the process that calls this: the bench
 * runs it in a fresh one, as `apiflow regrade` runs (a process that has just run the trials holds
 * their heap, and re-graded 1–46% slower in it in 3 paired runs). The first re-grade is timed as it comes; then a
 * warm-up until steady (graders prepared and code optimised in every thread, files in the page
 * cache; measured pass by pass on 2 threads, ms: 2140 877 510 405 348 265 266 272 273 234…, and one
 * thread is steady from its 4th pass); then the median of five stored passes on this thread and
 * the pooled workers, then on this thread alone.
 */
export function measureRegrade(runDir: string): RegradeMeasures {
  let load = loadavg()[0] as number;
  const t0 = performance.now();
  const cold = regradeRun({ runDir, dryRun: true });
  const firstSeconds = (performance.now() - t0) / 1000;
  if (!cold.success) throw new Error(cold.error.message);
  const trials = cold.data.regraded;
  for (let i = 0; i < 6; i++) regradeRun({ runDir, dryRun: true });
  for (let i = 0; i < 3; i++) regradeRun({ runDir, dryRun: true, workers: 0 });
  const pass = (options: { workers?: number }) => {
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c0 = process.cpuUsage(); // every thread of the process
      const t = performance.now();
      const res = regradeRun({ runDir, ...options });
      const seconds = (performance.now() - t) / 1000;
      const c = process.cpuUsage(c0);
      if (!res.success) throw new Error(res.error.message);
      if (res.data.changed !== 0)
        throw new Error(`re-grading with the same grader changed ${res.data.changed} trials`);
      wall.push(res.data.regraded / seconds);
      cpu.push(res.data.regraded / ((c.user + c.system) / 1e6));
    }
    return { wall: median(wall), cpu: median(cpu) };
  };
  const parallel = pass({});
  const single = pass({ workers: 0 });
  load = Math.max(load, loadavg()[0] as number);
  // Where one thread's time goes: the same logs already in memory, decoded (gunzip, JSON.parse,
  // schema) and graded.
  const files = logFiles(join(runDir, "transcripts")).map((f) => readFileSync(f));
  const decodeAndGrade = () => {
    for (const bytes of files) {
      const log = decodeTrialLog(bytes, { lazy: true });
      if (!log.success) throw new Error(log.error.message);
      gradeTrial(gradeInputOf(log.data));
    }
  };
  decodeAndGrade();
  const inMemory: number[] = [];
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    decodeAndGrade();
    const c = process.cpuUsage(c0);
    inMemory.push(files.length / ((c.user + c.system) / 1e6));
  }
  return {
    trials,
    workers: defaultRegradeWorkers(trials),
    first: trials / firstSeconds,
    parallel,
    single,
    inMemory: median(inMemory),
    load,
  };
}
