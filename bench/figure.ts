import { spawnSync } from "node:child_process";

/** One measured figure beside its target, as `npm run bench` prints it. */
export interface BenchFigure {
  /** What was measured, e.g. "in-process execute, simple GET (median)". */
  name: string;
  value: number;
  unit: string;
  /** The issue's target, e.g. "<= 50". */
  target: string;
  /** Whether the value meets the target. */
  ok: boolean;
  /** Issue number the target comes from. */
  issue?: number;
}

/** A benchmark module: `run` measures and returns its figures; it may print progress to stderr. */
export interface Benchmark {
  name: string;
  run(): Promise<BenchFigure[]>;
}

/** Median of a non-empty list of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Run `script` (an ES module's code, TypeScript through tsx) in a fresh Node process and parse the
 * JSON it writes to stdout: a figure measured away from this process's heap and threads.
 */
export function jsonFromFreshProcess<T>(script: string, what: string): T {
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`${what} child failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as T;
}
