import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { type OfficialRegrade, regradeOfficial } from "../../grade/official-regrade.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

/** How many disagreements the terminal summary lists (the JSON file holds them all). */
const SHOWN = 20;

/**
 * `apiflow regrade-official <dir> [--json FILE]`: regrade the G2 fields of published 1.0
 * transcripts with our grader and report where we differ from the recorded grades. Exit code 0
 * when everything agrees, 1 when any field or trial differs or a file is malformed.
 *
 * @example apiflow regrade-official ../shared/data/official-transcripts-sample --json regrade.json
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("regrade-official")
    .description("regrade the G2 (answer card) fields of APIFlow-Bench 1.0 transcripts and compare")
    .argument("<dir>", "directory in the 1.0 layout: <model>/<task_id>-t<N>.json")
    .option("--json <file>", "also write the figures and every disagreement as JSON")
    .action(async (dir: string, options: { json?: string }) => {
      const result = await regradeOfficial(resolve(io.cwd, dir));
      if (!result.success) throw new UsageError(`regrade-official: ${result.error.message}`);
      const summary = result.data;
      io.stdout(formatRegrade(summary));
      if (options.json !== undefined) {
        const path = resolve(io.cwd, options.json);
        try {
          await writeFile(path, `${JSON.stringify(summary, null, 2)}\n`);
        } catch (e) {
          throw new UsageError(`regrade-official: cannot write ${options.json}: ${(e as Error).message}`);
        }
        io.stdout(`wrote ${options.json}\n`);
      }
      const clean =
        summary.field_disagreements === 0 &&
        summary.trial_disagreements === 0 &&
        summary.malformed.length === 0;
      setExit(clean ? 0 : 1);
    });
}

/** The terminal summary: the figures, malformed files, then the first disagreements. */
export function formatRegrade(summary: OfficialRegrade): string {
  const lines = [
    `trials read                 ${summary.trials}`,
    `G2 fields compared          ${summary.fields}`,
    `fields differing            ${summary.field_disagreements}`,
    `trials whose G2 differs     ${summary.trial_disagreements}`,
    `unscored trials             ${summary.unscored}`,
  ];
  if (summary.malformed.length > 0) {
    lines.push(`malformed files             ${summary.malformed.length}`);
    for (const m of summary.malformed) lines.push(`  ${m.file}: ${m.code}: ${m.message}`);
  }
  if (summary.disagreements.length > 0) {
    const n = Math.min(SHOWN, summary.disagreements.length);
    lines.push(`first ${n} of ${summary.disagreements.length} disagreements:`);
    for (const d of summary.disagreements.slice(0, SHOWN)) {
      const side = (o: typeof d.ours) =>
        `${o.passed ? "pass" : "fail"} got=${o.got === undefined ? "(absent)" : JSON.stringify(o.got)}${o.reason ? ` (${o.reason})` : ""}`;
      lines.push(`  ${d.file} ${d.field} [${d.differs}]: recorded ${side(d.recorded)}, ours ${side(d.ours)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
