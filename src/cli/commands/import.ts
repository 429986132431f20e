import { resolve } from "node:path";
import type { Command } from "commander";
import { importOfficial } from "../../analyze/import-official.js";
import { oneOf, parsedOption } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";

const TRANSCRIPT_MODES = ["copy", "link", "reference"] as const;

import type { SetExit } from "./index.js";

/** How many malformed files the terminal names (the run manifest keeps up to 1000). */
const SHOWN = 20;

/**
 * `apiflow import official <dir> --out <run-dir> [--transcripts link|copy|reference]`: import published APIFlow-Bench 1.0
 * transcripts into a run directory, one agent per model slug, so `apiflow report` runs the same
 * analysis on the official leaderboard data. Exit code 1 when any file was malformed (the rest is
 * imported all the same).
 *
 * @example apiflow import official ../shared/data/official-transcripts-sample --out runs/official
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  const cmd = program.command("import").description("import trials recorded elsewhere into a run directory");
  cmd
    .command("official")
    .description("import published APIFlow-Bench 1.0 transcripts (<model>/<task_id>-t<N>.json)")
    .argument("<dir>", "directory in the 1.0 layout")
    .requiredOption("--out <run-dir>", "run directory to create or add to")
    .addOption(
      parsedOption(
        "--transcripts <mode>",
        "link (default): hard-link into the run (no bytes copied; copies where links cannot be made); copy: copy into the run; reference: keep the source paths",
        (flag) => oneOf(flag, TRANSCRIPT_MODES),
        "link",
      ),
    )
    .action(async (dir: string, options: { out: string; transcripts: (typeof TRANSCRIPT_MODES)[number] }) => {
      const mode = options.transcripts;
      const started = performance.now();
      const res = await importOfficial(resolve(io.cwd, dir), resolve(io.cwd, options.out), {
        transcripts: mode,
        onProgress: io.isTty
          ? (p) => io.stderr(`\r${p.files} files, ${(p.bytes / 1e6).toFixed(0)} MB…`)
          : undefined,
        progressEvery: 2000,
      });
      if (io.isTty) io.stderr("\r\x1b[K");
      if (!res.success) throw new UsageError(`import official: ${res.error.message}`);
      const r = res.data;
      const seconds = (performance.now() - started) / 1000;
      const lines = [
        `files read        ${r.files} (${(r.bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)} s)`,
        `trials imported   ${r.imported} (${r.scored} scored, ${r.unscored} unscored)`,
        `agents            ${r.agents.length}`,
        `bank              ${r.bank_hashes.join(", ") || "—"}`,
        `malformed files   ${r.malformed.length}`,
        ...r.malformed.slice(0, SHOWN).map((m) => `  ${m.path}: ${m.code}: ${m.message}`),
      ];
      if (r.malformed.length > SHOWN)
        lines.push(`  … and ${r.malformed.length - SHOWN} more (see run-manifest.json)`);
      lines.push(`wrote ${options.out}`);
      io.stdout(`${lines.join("\n")}\n`);
      setExit(r.malformed.length ? 1 : 0);
    });
}
