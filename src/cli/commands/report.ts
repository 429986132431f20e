import { writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import type { Command } from "commander";
import { buildReport } from "../../analyze/build-report.js";
import { renderTerminal, reportMarkdown, reportTables } from "../../analyze/format-tables.js";
import { buildHtmlReport, DEFAULT_EMBED_LIMIT_BYTES } from "../../analyze/html-report.js";
import { loadRuns } from "../../analyze/load-runs.js";
import { checkComparable } from "../comparable-runs.js";
import { nonNegativeInt, parsedOption, removedIntervalOption } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

interface ReportFlags {
  json?: string;
  md?: string;
  html?: string;
  embedLimit: number;
  force?: boolean;
  items?: boolean;
}

async function write(io: CliIo, file: string, text: string): Promise<void> {
  try {
    await writeFile(resolve(io.cwd, file), text);
  } catch (e) {
    throw new UsageError(`report: cannot write ${file}: ${(e as Error).message}`);
  }
  io.stdout(`wrote ${file}\n`);
}

/**
 * `apiflow report <run-dir>... [--items] [--json FILE] [--md FILE] [--html FILE]`: the analysis of
 * DESIGN.md §8 over the stored trials of one or more runs of one bank, with `--items` the item
 * analysis of its tasks. Terminal tables by default.
 *
 * @example apiflow report runs/official --html report.html --json report.json
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("report")
    .description("pass rates, reliability, CIs, the null model, screen, failures and cost of stored runs")
    .argument("<run-dirs...>", "run directories (of one bank)")
    .option("--json <file>", "write the report JSON")
    .option("--md <file>", "write the report as Markdown")
    .option("--html <file>", "write a self-contained HTML page with charts and a transcript viewer")
    .option("--items", "add the item analysis: per task difficulty, discrimination and flags")
    .addOption(removedIntervalOption("--bootstrap <n>"))
    .addOption(removedIntervalOption("--seed <seed>"))
    .addOption(
      parsedOption(
        "--embed-limit <mb>",
        "embed transcripts in the HTML up to this many MB",
        nonNegativeInt,
        DEFAULT_EMBED_LIMIT_BYTES / 2 ** 20,
      ),
    )
    .option(
      "--force",
      "read runs whose manifests differ (versions, limits, prices, tasks), showing the differences",
    )
    .action(async (dirs: string[], flags: ReportFlags) => {
      const { embedLimit: embedMb } = flags;
      const runDirs = dirs.map((d) => resolve(io.cwd, d));
      const loaded = loadRuns(runDirs);
      if (!loaded.success) throw new UsageError(`report: ${loaded.error.message}`);
      const { records, runs, duplicates } = loaded.data;
      checkComparable(
        io,
        "report",
        runDirs,
        runDirs.map((_, i) => records.filter((_r, j) => loaded.data.runIndex[j] === i)),
        flags.force === true,
      );
      if (duplicates)
        io.stderr(`report: ${duplicates} trials appear in more than one run; the first is kept\n`);
      const report = buildReport(records, {
        items: flags.items === true,
        runs: runs.map((r, i) => ({ dir: dirs[i]!, trials: r.trials })),
      });
      if (flags.json === undefined && flags.md === undefined && flags.html === undefined) {
        io.stdout(reportTables(report).map(renderTerminal).join("\n"));
      }
      if (flags.json !== undefined) await write(io, flags.json, `${JSON.stringify(report, null, 2)}\n`);
      if (flags.md !== undefined) await write(io, flags.md, reportMarkdown(report));
      if (flags.html !== undefined) {
        const pageDir = dirname(resolve(io.cwd, flags.html));
        const html = await buildHtmlReport(
          report,
          records.map((record, i) => ({ record, run: loaded.data.runIndex[i]! })),
          {
            runs: runDirs,
            transcriptBases: runDirs.map((d) => `${relative(pageDir, d).split("\\").join("/") || "."}/`),
            embedLimitBytes: embedMb * 2 ** 20,
          },
        );
        await write(io, flags.html, html);
      }
      setExit(0);
    });
}
