import { resolve } from "node:path";
import type { Command } from "commander";
import { buildReport } from "../../analyze/build-report.js";
import { buildHtmlReport } from "../../analyze/html-report.js";
import { loadRuns } from "../../analyze/load-runs.js";
import { startViewServer, viewTranscriptBase } from "../../analyze/view-server.js";
import { portOption, removedIntervalOption } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

/**
 * `apiflow view <run-dir>... [--port N]`: serve the HTML report of the runs on 127.0.0.1, with
 * transcripts loaded on demand (nothing is embedded, so a run of any size opens quickly). Serves
 * until the process is interrupted (Ctrl-C ends it; there is nothing to flush).
 *
 * @example apiflow view runs/official --port 8080
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("view")
    .description("serve the HTML report with its transcript viewer on 127.0.0.1")
    .argument("<run-dirs...>", "run directories (of one bank)")
    .addOption(portOption(0, "port on 127.0.0.1 (0 picks a free one)"))
    .addOption(removedIntervalOption("--bootstrap <n>"))
    .action(async (dirs: string[], flags: { port: number }) => {
      const { port } = flags;
      const runDirs = dirs.map((d) => resolve(io.cwd, d));
      const loaded = loadRuns(runDirs);
      if (!loaded.success) throw new UsageError(`view: ${loaded.error.message}`);
      const { records, runIndex, runs } = loaded.data;
      const report = buildReport(records, {
        runs: runs.map((r, i) => ({ dir: dirs[i]!, trials: r.trials })),
      });
      const trials = records.map((record, i) => ({ record, run: runIndex[i]! }));
      const html = await buildHtmlReport(report, trials, {
        runs: runDirs,
        transcriptBases: runDirs.map((_, i) => viewTranscriptBase(i)),
        embedLimitBytes: 0,
      });
      let server: Awaited<ReturnType<typeof startViewServer>>;
      try {
        server = await startViewServer(html, trials, runDirs, { port });
      } catch (e) {
        throw new UsageError(`view: cannot listen on 127.0.0.1:${port}: ${(e as Error).message}`);
      }
      io.stdout(`serving the report of ${records.length} trials at ${server.url} (Ctrl-C stops)\n`);
      setExit(0);
      // The open server keeps the process alive; this command returns only when it is closed.
      await server.closed;
    });
}
