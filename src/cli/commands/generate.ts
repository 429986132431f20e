import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { writeBank } from "../../bank/load-bank.js";
import { recordGates } from "../../certify/certify-bank.js";
import { bankDatasheet, bankStats, certificationLines } from "../../generate/datasheet.js";
import { DEFAULT_SEED } from "../../generate/generate-bank.js";
import { parseProtocols } from "../../generate/protocol-variants.js";
import { generateCertifiedBank } from "../../pipeline/certified-bank.js";
import { certifyVariants } from "../../pipeline/certify-variants.js";
import { withProtocolVariants } from "../../pipeline/protocol-variant-replay.js";
import { parsedOption, positiveInt } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import type { SetExit } from "./index.js";

interface GenerateFlags {
  seed: string;
  worlds?: number;
  positions?: number;
  out: string;
  protocols?: string;
  protocolsOut?: string;
}

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
    .addOption(parsedOption("--worlds <n>", "number of world templates to use (default 13)", positiveInt))
    .addOption(
      parsedOption(
        "--positions <p>",
        "storyline positions per world, 1..20 (default: the 1.0 shape)",
        positiveInt,
      ),
    )
    .option("--out <dir>", "folder to write the bank into", "bank")
    .option(
      "--protocols <list>",
      "also GraphQL and/or MCP variants of every world (graphql, mcp or graphql,mcp)",
    )
    .option(
      "--protocols-out <dir>",
      "with --protocols: write the variants as a separate bank here, not as added worlds",
    )
    .action(async (options: GenerateFlags) => {
      const protocols = options.protocols === undefined ? null : parseProtocols(options.protocols);
      if (protocols && !protocols.success) throw new UsageError(`generate: ${protocols.error.message}`);
      if (options.protocolsOut !== undefined && !protocols)
        throw new UsageError("generate: --protocols-out needs --protocols");
      const { worlds, positions } = options;
      // Certification (issue 8) before the manifest: a failing position is re-drawn from the seed,
      // then dropped; chains are truncated to their longest certified prefix.
      const result = await generateCertifiedBank({
        seed: options.seed,
        ...(worlds !== undefined ? { worlds } : {}),
        ...(positions !== undefined ? { positions } : {}),
        // Tasks spread over one worker thread per core, as `apiflow verify` does.
        certify: { workers: availableParallelism() },
      });
      if (!result.success) throw new UsageError(`generate: ${result.error.message}`);
      const { report, log } = result.data;
      const certifiedContent = recordGates(result.data.content, report);
      // --protocols (issue 9): variants of the certified REST bank, added to it or beside it.
      // The variants then go through the same gates; a variant task failing one is dropped.
      const variants = protocols
        ? await certifyVariants(
            await withProtocolVariants(certifiedContent, protocols.data, options.protocolsOut !== undefined),
          )
        : null;
      for (const d of variants?.dropped ?? []) io.stdout(`protocol variant ${d.id} dropped: ${d.reason}\n`);
      const content = variants?.rest ?? certifiedContent;
      for (const [gate, g] of Object.entries(report.gates))
        if (g.failed > 0)
          io.stdout(
            `certify ${gate}${!g.hard ? " (soft: kept)" : ""}: ${g.failed} of ${g.checked} tasks failed; first: ${g.first_failure}\n`,
          );
      for (const line of certificationLines(log)) io.stdout(`${line}\n`);
      const dir = resolve(io.cwd, options.out);
      let manifest: ReturnType<typeof writeBank>;
      try {
        manifest = writeBank(dir, content);
        writeFileSync(join(dir, "README.md"), bankDatasheet(content, manifest, log));
        if (variants?.variants && options.protocolsOut !== undefined) {
          const pdir = resolve(io.cwd, options.protocolsOut);
          const m = writeBank(pdir, variants.variants);
          writeFileSync(join(pdir, "README.md"), bankDatasheet(variants.variants, m));
          io.stdout(
            `wrote ${options.protocolsOut}: ${m.counts.worlds} worlds, ${m.counts.tasks} tasks (content hash ${m.content_hash})\n`,
          );
        }
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
