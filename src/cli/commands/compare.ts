import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { type Comparison, compareRuns, type PairedComparison } from "../../analyze/compare-runs.js";
import { pct, renderTerminal } from "../../analyze/format-tables.js";
import { loadRuns } from "../../analyze/load-runs.js";
import { checkComparable } from "../comparable-runs.js";
import { removedIntervalOption } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

const signedPct = (x: number | null) => (x === null ? "—" : `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}%`);

/** The comparison as a terminal table: one row per paired agent, then the pooled row. */
export function formatComparison(c: Comparison, labels: [string, string]): string {
  const row = (name: string, p: PairedComparison) => [
    name,
    String(p.tasks),
    pct(p.pass_rate_a),
    pct(p.pass_rate_b),
    signedPct(p.diff),
    p.ci90 ? `${signedPct(p.ci90[0])} … ${signedPct(p.ci90[1])}` : "—",
    pct(p.mdd),
    pct(p.flip_rate),
    pct(p.flips_up),
    pct(p.flips_down),
  ];
  const level = Math.round(c.interval.level * 100);
  const warning = c.interval.warning ? `\nwarning: ${c.interval.warning}` : "";
  return renderTerminal({
    title: `A = ${labels[0]}, B = ${labels[1]} (bank ${c.bank_hash}; ${level}% CI: ${c.interval.method}, ${c.interval.clusters} worlds; MDD at the same level, 80% power)${warning}`,
    header: ["agent", "tasks", "A", "B", "B − A", `${level}% CI`, "MDD", "flip rate", "A✗→B✓", "A✓→B✗"],
    rows: [...Object.entries(c.agents).map(([n, p]) => row(n, p)), row("all", c.overall)],
    right: [1, 2, 3, 4, 6, 7, 8, 9],
  });
}

/**
 * `apiflow compare <runA> <runB> [--json FILE]`: task-by-task comparison of two runs of one bank
 * (refused for different banks): flip rate, B − A with a paired cluster-robust CI, and the minimum
 * detectable difference at the interval's level.
 *
 * @example apiflow compare runs/before runs/after --json compare.json
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("compare")
    .description("compare two runs of the same bank task by task")
    .argument("<runA>", "run directory A (the baseline)")
    .argument("<runB>", "run directory B")
    .option("--json <file>", "also write the comparison as JSON")
    .addOption(removedIntervalOption("--bootstrap <n>"))
    .addOption(removedIntervalOption("--seed <seed>"))
    .option(
      "--force",
      "compare runs whose manifests differ (versions, limits, prices), showing the differences",
    )
    .action(async (runA: string, runB: string, flags: { json?: string; force?: boolean }) => {
      const load = (dir: string) => {
        const res = loadRuns([resolve(io.cwd, dir)]);
        if (!res.success) throw new UsageError(`compare: ${res.error.message}`);
        return res.data.records;
      };
      const [a, b] = [load(runA), load(runB)];
      // Tasks are paired (only those in both runs count), so the task subset may differ.
      const dirs = [resolve(io.cwd, runA), resolve(io.cwd, runB)];
      checkComparable(io, "compare", dirs, [a, b], flags.force === true, { taskSubset: false });
      const res = compareRuns(a, b);
      if (!res.success) throw new UsageError(`compare: ${res.error.message}`);
      io.stdout(formatComparison(res.data, [runA, runB]));
      if (flags.json !== undefined) {
        try {
          await writeFile(resolve(io.cwd, flags.json), `${JSON.stringify(res.data, null, 2)}\n`);
        } catch (e) {
          throw new UsageError(`compare: cannot write ${flags.json}: ${(e as Error).message}`);
        }
        io.stdout(`wrote ${flags.json}\n`);
      }
      setExit(0);
    });
}
