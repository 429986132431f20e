import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { writeBank } from "../../bank/load-bank.js";
import { certifyBank, dropUncertified, recordGates } from "../../certify/certify-bank.js";
import { bankDatasheet, bankStats } from "../../generate/datasheet.js";
import { DEFAULT_SEED, generateBank } from "../../generate/generate-bank.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

const int = (flag: string, raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new UsageError(`generate: ${flag} must be a positive integer, got "${raw}"`);
  return Number(raw);
};

/**
 * `apiflow generate [--seed S] [--worlds N] [--positions P] [--out DIR]`: generate a bank forward
 * from one seed and write it (JSON files, manifest with per-file SHA-256 and content hash, and a
 * README.md datasheet). Without flags: the default bank, 13 worlds, 241 solo + 226 chains.
 *
 * @example apiflow generate --seed private-7 --out ./bank-private
 */
export function register(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("generate")
    .description("generate a bank from a seed: worlds, storylines, solo tasks and chains")
    .option("--seed <seed>", "generation seed", DEFAULT_SEED)
    .option("--worlds <n>", "number of world templates to use (default 13)")
    .option("--positions <p>", "storyline positions per world, 1..20 (default: the 1.0 shape)")
    .option("--out <dir>", "folder to write the bank into", "bank")
    .action(async (options: { seed: string; worlds?: string; positions?: string; out: string }) => {
      const worlds = int("--worlds", options.worlds);
      const positions = int("--positions", options.positions);
      const result = generateBank({
        seed: options.seed,
        ...(worlds !== undefined ? { worlds } : {}),
        ...(positions !== undefined ? { positions } : {}),
      });
      if (!result.success) throw new UsageError(`generate: ${result.error.message}`);
      // Certification (issue 8) before the manifest: a task failing a gate is dropped, chains truncated.
      const report = await certifyBank(result.data);
      const certified = dropUncertified(result.data, report);
      const content = recordGates(certified.content, report);
      for (const [gate, g] of Object.entries(report.gates))
        if (g.failed > 0)
          io.stdout(`certify ${gate}: ${g.failed} of ${g.checked} tasks failed; first: ${g.first_failure}\n`);
      if (certified.dropped.length > 0)
        io.stdout(
          `dropped ${certified.dropped.length} uncertified task(s): ${certified.dropped.join(", ")}\n`,
        );
      const dir = resolve(io.cwd, options.out);
      let manifest: ReturnType<typeof writeBank>;
      try {
        manifest = writeBank(dir, content);
        writeFileSync(join(dir, "README.md"), bankDatasheet(content, manifest));
      } catch (e) {
        throw new UsageError(`generate: cannot write ${options.out}: ${(e as Error).message}`);
      }
      const s = bankStats(content.tasks);
      io.stdout(
        `wrote ${options.out}: ${manifest.counts.worlds} worlds, ${manifest.counts.solo} solo + ${manifest.counts.chain} chains = ${manifest.counts.tasks} tasks\n` +
          `solo by axis: ${Object.entries(s.soloByAxis)
            .map(([a, n]) => `${a} ${n}`)
            .join(", ")}\n` +
          `content hash ${manifest.content_hash}\n`,
      );
      setExit(0);
    });
}
