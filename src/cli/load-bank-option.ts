import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Bank, bankFromContent } from "../bank/bank.js";
import { formatBankError, loadBank, writeBank } from "../bank/load-bank.js";
import { DEFAULT_SEED, defaultBankContent, GENERATOR_VERSION } from "../generate/default-bank.js";
import { UsageError } from "./io.js";

/** Where the default bank is cached, under the working directory (gitignored `.apiflow/`). */
export function defaultBankCacheDir(cwd: string): string {
  return join(cwd, ".apiflow", "banks", `default-${DEFAULT_SEED}-g${GENERATOR_VERSION}`);
}

/**
 * The bank a command works on: `--bank DIR` when given (verified on load), else the built-in
 * default bank — generated from the default seed on first use and cached on disk, so every later
 * run pins the very files it ran (and a user can read them).
 */
export function bankFromOption(dir: string | undefined, cwd: string): Bank {
  if (dir === undefined) return defaultBank(cwd);
  const path = resolve(cwd, dir);
  if (!existsSync(path)) throw new UsageError(`no bank at ${dir} (expected a folder with manifest.json)`);
  const loaded = loadBank(path);
  if (!loaded.success) throw new UsageError(`invalid bank: ${formatBankError(loaded.error)}`);
  return loaded.data;
}

function defaultBank(cwd: string): Bank {
  const content = defaultBankContent();
  const expected = bankFromContent(content);
  const cache = defaultBankCacheDir(cwd);
  if (existsSync(join(cache, "manifest.json"))) {
    const cached = loadBank(cache);
    // A cache written by another build of the generator is replaced, never trusted.
    if (cached.success && cached.data.manifest.content_hash === expected.manifest.content_hash)
      return cached.data;
  }
  try {
    const staging = `${cache}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    mkdirSync(staging, { recursive: true });
    writeBank(staging, content);
    rmSync(cache, { recursive: true, force: true });
    renameSync(staging, cache);
  } catch {
    // A read-only working directory only loses the cache, not the run.
  }
  return expected;
}
