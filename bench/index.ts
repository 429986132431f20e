import type { BenchFigure, Benchmark } from "./figure.js";

/**
 * `npm run bench [name...]`: every performance target of the issues, measured on this machine and
 * printed beside its target. Each benchmark lives in its own module; register it here.
 */
const BENCHMARKS: Array<() => Promise<Benchmark>> = [
  () => import("./grade.bench.js").then((m) => m.default),
  () => import("./regrade.bench.js").then((m) => m.default),
  () => import("./analyze.bench.js").then((m) => m.benchmark()),
  () => import("./analyze.bench.js").then((m) => m.reportBenchmark()),
  () => import("./world.bench.js").then((m) => m.default),
  () => import("./generate.bench.js").then((m) => m.default),
  () => import("./runner.bench.js").then((m) => m.default),
  () => import("./certify.bench.js").then((m) => m.default),
  () => import("./certify.bench.js").then((m) => m.otherSeedBenchmark),
  () => import("./queue.bench.js").then((m) => m.default),
];

const only = process.argv.slice(2);
const rows: Array<BenchFigure & { bench: string }> = [];
for (const load of BENCHMARKS) {
  const bench = await load();
  if (only.length && !only.includes(bench.name)) continue;
  process.stderr.write(`running ${bench.name}…\n`);
  for (const figure of await bench.run()) rows.push({ ...figure, bench: bench.name });
}
const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toPrecision(3));
const width = Math.max(10, ...rows.map((r) => r.name.length));
process.stdout.write(`${"figure".padEnd(width)}  ${"value".padStart(12)}  unit        target        ok\n`);
for (const r of rows) {
  process.stdout.write(
    `${r.name.padEnd(width)}  ${fmt(r.value).padStart(12)}  ${r.unit.padEnd(10)}  ${r.target.padEnd(12)}  ${r.ok ? "yes" : "NO"}\n`,
  );
}
if (rows.length === 0) process.stdout.write("no benchmarks registered\n");
