import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildReport } from "../src/analyze/build-report.js";
import { buildHtmlReport } from "../src/analyze/html-report.js";
import { itemAnalysis } from "../src/analyze/item-analysis.js";
import { loadRuns } from "../src/analyze/load-runs.js";
import { Rng } from "../src/bank/rng.js";
import { openStore } from "../src/run/store.js";
import type { TrialRecord } from "../src/run/trial-record.js";
import { OFFICIAL_FIXTURES, officialSample } from "../test/support/official-sample.js";
import { trial } from "../test/support/test-records.js";
import { type BenchFigure, type Benchmark, jsonFromFreshProcess } from "./figure.js";

/**
 * The import figures are measured on the published 1.0 sample when `APIFLOW_OFFICIAL_SAMPLE` names
 * it (its files average 66 kB, as the full export's do), replicated to 1 GiB. Without it the fixture
 * transcripts (6 kB files) are replicated to 64 MiB: the figures are printed, but the targets were
 * set on the published data and are not checked.
 */
const sample = officialSample();
const SOURCE = sample.dir ?? OFFICIAL_FIXTURES;
const TARGET_BYTES = sample.dir ? 1024 ** 3 : 64 * 1024 ** 2;
const SOURCE_LABEL = sample.dir ? "1.0 sample" : "fixtures";

/** Replicate the source transcripts under `dir` (model directories renamed per copy) to ≥ TARGET_BYTES. */
function replicateSample(dir: string): number {
  const models = readdirSync(SOURCE, { withFileTypes: true }).filter((d) => d.isDirectory());
  let bytes = 0;
  for (let copy = 0; bytes < TARGET_BYTES; copy++) {
    for (const m of models) {
      const out = join(dir, `${m.name}-r${copy}`);
      mkdirSync(out, { recursive: true });
      for (const f of readdirSync(join(SOURCE, m.name))) {
        copyFileSync(join(SOURCE, m.name, f), join(out, f));
        bytes += statSync(join(out, f)).size;
      }
    }
  }
  return bytes;
}

/**
 * The import runs in a child process, so its peak resident memory is the importer's alone, not
 * this process's (which holds the synthetic trials of the report benchmark).
 */
function importInChild(src: string, out: string, mode: "copy" | "reference" | undefined) {
  const mod = fileURLToPath(new URL("../src/analyze/import-official.ts", import.meta.url));
  const opts = mode ? { transcripts: mode } : {};
  // CPU time is the whole process's (the parse threads' too): on a shared machine it is the steadier
  // figure, wall time depends on what else runs.
  const script = `
    const { importOfficial } = await import(${JSON.stringify(mod)});
    const { loadavg } = await import("node:os");
    const load = loadavg()[0];
    const t = performance.now();
    const c = process.cpuUsage();
    const res = await importOfficial(${JSON.stringify(src)}, ${JSON.stringify(out)}, ${JSON.stringify(opts)});
    const seconds = (performance.now() - t) / 1000;
    const cpu = process.cpuUsage(c);
    if (!res.success) throw new Error(res.error.message);
    process.stdout.write(JSON.stringify({
      seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, bytes: res.data.bytes, files: res.data.files,
      maxRssKb: process.resourceUsage().maxRSS, load: Math.max(load, loadavg()[0]),
    }));
  `;
  return jsonFromFreshProcess<{
    seconds: number;
    cpuSeconds: number;
    bytes: number;
    files: number;
    maxRssKb: number;
    load: number;
  }>(script, "import");
}

const AXES = [
  "auth",
  "discovery",
  "schema_repair",
  "multistep",
  "error_recovery",
  "pagination",
  "statefulness",
];

/** 24 models × 18 worlds × (13 solo + 13 chains) × 5 epochs ≈ 56,000 trials, outcomes seeded. */
function syntheticTrials(): TrialRecord[] {
  const rng = Rng.fromSeed("bench-analyze");
  const out: TrialRecord[] = [];
  for (let m = 0; m < 24; m++) {
    const skill = 0.55 + m * 0.015;
    for (let w = 1; w <= 18; w++) {
      const world = `w${String(w).padStart(2, "0")}`;
      for (let i = 1; i <= 13; i++) {
        for (let e = 1; e <= 5; e++) {
          const solo = rng.chance(skill) ? "pass" : "fail";
          const g = (pass: boolean) => ({ g1_passed: pass || rng.chance(0.5), g2_passed: pass });
          out.push(
            trial(`model-${m}`, `v56-${world}-sub${String(i).padStart(2, "0")}`, e, solo, {
              ...g(solo === "pass"),
              axis: AXES[i % AXES.length]!,
            }),
          );
          const length = i + 1;
          const chain = rng.chance(skill ** length) ? "pass" : rng.chance(0.01) ? "unscored" : "fail";
          out.push(
            trial(
              `model-${m}`,
              `v56-${world}-chain-1to${String(length).padStart(2, "0")}`,
              e,
              chain,
              g(chain === "pass"),
            ),
          );
        }
      }
    }
  }
  return out;
}

export async function benchmark(): Promise<Benchmark> {
  return {
    name: "analyze",
    async run(): Promise<BenchFigure[]> {
      const figures: BenchFigure[] = [];
      const root = mkdtempSync(join(tmpdir(), "apiflow-bench-analyze-"));
      try {
        process.stderr.write(
          sample.dir
            ? `  replicating the published 1.0 sample (${sample.dir}) to 1 GiB…\n`
            : `  ${sample.missing}: replicating the fixture transcripts (test/fixtures/official-1.0) to 64 MiB; the import targets apply to the published sample and are not checked…\n`,
        );
        const src = join(root, "src");
        replicateSample(src);
        // The default mode (hard links) carries the target; the others are printed beside it.
        for (const mode of [undefined, "reference", "copy"] as const) {
          const label = mode ?? "default (link)";
          process.stderr.write(`  importing (${label})…\n`);
          const r = importInChild(src, join(root, `run-${label}`), mode);
          const mbps = r.bytes / 1e6 / r.seconds;
          const cpuMbps = r.bytes / 1e6 / r.cpuSeconds;
          const load = `load ${r.load.toFixed(1)}`;
          figures.push(
            {
              name: `import 1.0 transcripts (${SOURCE_LABEL}), ${label} (${(r.bytes / 1e9).toFixed(2)} GB, ${load})`,
              value: mbps,
              unit: "MB/s",
              target: mode || !sample.dir ? "—" : ">= 100",
              ok: mode || !sample.dir ? true : mbps >= 100,
              issue: 7,
            },
            {
              name: `import (${SOURCE_LABEL}), ${label}, per CPU-second (all threads, ${load})`,
              value: cpuMbps,
              unit: "MB/cpu-s",
              target: "—",
              ok: true,
            },
            {
              name: `import peak memory (${SOURCE_LABEL}), ${label}`,
              value: r.maxRssKb / 1024,
              unit: "MB",
              target: sample.dir ? "<= 500" : "—",
              ok: !sample.dir || r.maxRssKb / 1024 <= 500,
              issue: 7,
            },
          );
          rmSync(join(root, `run-${label}`), { recursive: true, force: true });
        }
        rmSync(src, { recursive: true, force: true });
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
      return figures;
    },
  };
}

/**
 * The report over ~56,000 synthetic trials (issue 7's target, kept by issue 19 with the item
 * analysis added): load from the store, every figure with its cluster-robust interval, the item
 * analysis, JSON. The intervals are closed-form, so "2,000 resamples" no longer costs anything: the
 * figure is the whole report as `apiflow report --items --json` computes it.
 */
export async function reportBenchmark(): Promise<Benchmark> {
  return {
    name: "report",
    async run(): Promise<BenchFigure[]> {
      const root = mkdtempSync(join(tmpdir(), "apiflow-bench-report-"));
      try {
        const runDir = join(root, "synthetic");
        const store = openStore(runDir);
        const trials = syntheticTrials();
        store.recordMany(trials);
        store.close();
        // Wall time carries the target; CPU time is printed beside it because on a shared machine
        // it is the steadier figure (the load average is in the name).
        const load = loadavg()[0]!;
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const loaded = loadRuns([runDir]);
        if (!loaded.success) throw new Error(loaded.error.message);
        const report = buildReport(loaded.data.records, { items: true });
        JSON.stringify(report);
        const seconds = (performance.now() - t0) / 1000;
        const c1 = process.cpuUsage(c0);
        const cpuSeconds = (c1.user + c1.system) / 1e6;
        const t1 = performance.now();
        itemAnalysis(loaded.data.records);
        const itemSeconds = (performance.now() - t1) / 1000;
        // The HTML page (no target in the issue: printed so its growth is visible).
        const t2 = performance.now();
        const html = await buildHtmlReport(
          report,
          loaded.data.records.map((record) => ({ record, run: 0 })),
          { runs: [runDir], embedLimitBytes: 0 },
        );
        const htmlSeconds = (performance.now() - t2) / 1000;
        return [
          {
            name: `report --items, ${trials.length} trials (load + analyse + items + JSON; CIs closed-form; load ${load.toFixed(1)})`,
            value: seconds,
            unit: "s",
            target: "<= 3",
            ok: seconds <= 3,
            issue: 19,
          },
          { name: "report --items, CPU time", value: cpuSeconds, unit: "cpu-s", target: "—", ok: true },
          { name: "item analysis alone, 56k trials", value: itemSeconds, unit: "s", target: "—", ok: true },
          {
            name: "HTML report with items, 56k trials (charts + viewer index)",
            value: htmlSeconds,
            unit: "s",
            target: "—",
            ok: true,
          },
          {
            name: "HTML report size, 56k trials",
            value: html.length / 1e6,
            unit: "MB",
            target: "—",
            ok: true,
          },
        ];
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
