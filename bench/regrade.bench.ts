import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineAgentFactory } from "../src/agents/baseline-agent.js";
import { blankAgentFactory, goldenAgentFactory } from "../src/agents/scripted-agents.js";
import { bankFromContent } from "../src/bank/bank.js";
import { defaultBankContent } from "../src/generate/default-bank.js";
import { DEFAULT_PRICE_TABLE } from "../src/run/price-table.js";
import { runIntoDir } from "../src/run/run-into-dir.js";
import { type Benchmark, jsonFromFreshProcess } from "./figure.js";
import { logFiles, type RegradeMeasures } from "./regrade-passes.js";

/** The run size of issue 18's storage target: the 1.0 bank's 467 tasks × 5 epochs. */
const TARGET_TRIALS = 2335;
const TARGET_MB = 100;

/** `measureRegrade` in a fresh process, as `apiflow regrade` runs. */
function measureInFreshProcess(runDir: string): RegradeMeasures {
  const mod = new URL("./regrade-passes.ts", import.meta.url).href;
  const script = `
    const { measureRegrade } = await import(${JSON.stringify(mod)});
    process.stdout.write(JSON.stringify(measureRegrade(${JSON.stringify(runDir)})));
  `;
  // The workers are unref'd: the child ends once it has written its figures.
  return jsonFromFreshProcess<RegradeMeasures>(script, "re-grade");
}

/**
 * Issue 18: stored event logs and re-grading. Runs the golden, blank and baseline agents over the
 * whole default bank into a run directory (1,401 trials, each with its gzip event log beside its
 * transcript), then reports the logs' mean size per trial, its projection to a 2,335-trial run
 * against the 100 MB target, and the speed of `regradeRun` over the directory — reading,
 * decompressing and validating every log, grading it and storing the new grading — against the
 * 5,000 trials/s target, measured in a fresh process as `apiflow regrade` runs (see
 * `measureRegrade`): median of five passes on the calling thread and the pooled workers (one per
 * spare core), then on the calling thread alone, each after a warm-up; the process's first
 * re-grade beside them. CPU time (every thread's) is beside wall time, and the load average beside
 * both: the machine is shared, and a loaded machine's wall figures say little.
 */
const bench: Benchmark = {
  name: "regrade",
  async run() {
    const bank = bankFromContent(defaultBankContent());
    const runDir = mkdtempSync(join(tmpdir(), "apiflow-bench-regrade-"));
    try {
      const ran = await runIntoDir({
        runDir,
        bank,
        agents: [goldenAgentFactory, blankAgentFactory, baselineAgentFactory].map((factory) => ({
          factory,
          settings: { kind: "scripted" as const },
        })),
        epochs: 1,
        concurrency: 8,
        priceTable: DEFAULT_PRICE_TABLE,
      });
      if (!ran.success) throw new Error(ran.error.message);
      const sizes = logFiles(join(runDir, "transcripts")).map((f) => statSync(f).size);
      const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
      const projectedMb = (mean * TARGET_TRIALS) / 1e6;
      const largest = Math.max(...sizes);

      const m = measureInFreshProcess(runDir);
      const { trials, workers, parallel, single, load } = m;
      return [
        {
          name: `stored event log per trial, mean of ${sizes.length}`,
          value: mean / 1024,
          unit: "KiB",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: "stored event log, largest",
          value: largest / 1024,
          unit: "KiB",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: `stored event logs of a ${TARGET_TRIALS.toLocaleString("en-US")}-trial run (projected)`,
          value: projectedMb,
          unit: "MB",
          target: `< ${TARGET_MB}`,
          ok: projectedMb < TARGET_MB,
          issue: 18,
        },
        {
          name: "load average (1 min) while measuring; 2 cores",
          value: load,
          unit: "-",
          target: "quiet: < 2",
          ok: true,
          issue: 18,
        },
        {
          name: `re-grade from stored logs, ${trials} trials, ${workers + 1} threads (wall)`,
          value: parallel.wall,
          unit: "trials/s",
          target: ">= 5000",
          ok: parallel.wall >= 5000,
          issue: 18,
        },
        {
          name: `re-grade from stored logs, ${workers + 1} threads (CPU, all threads)`,
          value: parallel.cpu,
          unit: "trials/s",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: "re-grade from stored logs, 1 thread (wall)",
          value: single.wall,
          unit: "trials/s",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: "re-grade from stored logs, 1 thread (CPU)",
          value: single.cpu,
          unit: "trials/s",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: `  first re-grade of a fresh process (${trials} trials: workers' start, graders checked, code cold)`,
          value: m.first,
          unit: "trials/s",
          target: "-",
          ok: true,
          issue: 18,
        },
        {
          name: "  of which decode + grade, logs in memory (CPU)",
          value: m.inMemory,
          unit: "trials/s",
          target: "-",
          ok: true,
          issue: 18,
        },
      ];
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  },
};

export default bench;
