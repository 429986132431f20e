import type { ManifestDifference } from "../analyze/run-comparability.js";
import { differencesLine, manifestDifferences } from "../analyze/run-comparability.js";
import { readRunManifest } from "../run/store.js";
import type { TrialRecord } from "../run/trial-record.js";
import { type CliIo, UsageError } from "./io.js";

/**
 * Refuse runs produced differently (`report`, `compare`), with one line naming what differs; with
 * `force`, print the differences side by side on stderr and go on.
 *
 * @example checkComparable(io, "report", dirs, recordsByDir, flags.force === true)
 */
export function checkComparable(
  io: CliIo,
  command: string,
  dirs: readonly string[],
  records: ReadonlyArray<readonly TrialRecord[]>,
  force: boolean,
  options: { taskSubset?: boolean } = {},
): ManifestDifference[] {
  const diffs = manifestDifferences(
    dirs.map((dir, i) => ({ manifest: readRunManifest(dir), records: records[i] ?? [] })),
    options,
  );
  if (diffs.length === 0) return diffs;
  if (!force) throw new UsageError(`${command}: ${differencesLine(diffs, dirs)}`);
  const rows = [["setting", ...dirs], ...diffs.map((d) => [d.field, ...d.values])];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  io.stderr(`${command}: --force: the runs differ; read together anyway\n`);
  for (const r of rows)
    io.stderr(
      `  ${r
        .map((v, c) => v.padEnd(widths[c]!))
        .join("  ")
        .trimEnd()}\n`,
    );
  return diffs;
}
