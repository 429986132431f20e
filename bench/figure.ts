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
