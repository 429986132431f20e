import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type Bank, bankFromContent } from "../bank/bank.js";
import { formatBankError, loadBank } from "../bank/load-bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { UsageError } from "./io.js";

/**
 * The bank a command works on: `--bank DIR` when given (verified on load), else the built-in
 * default bank, built in memory from the default seed.
 */
export function bankFromOption(dir: string | undefined, cwd: string): Bank {
  if (dir === undefined) return bankFromContent(defaultBankContent());
  const path = resolve(cwd, dir);
  if (!existsSync(path)) throw new UsageError(`no bank at ${dir} (expected a folder with manifest.json)`);
  const loaded = loadBank(path);
  if (!loaded.success) throw new UsageError(`invalid bank: ${formatBankError(loaded.error)}`);
  return loaded.data;
}
