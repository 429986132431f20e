import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Bank, bankFromContent } from "../../src/bank/bank.js";
import { formatBankError, loadBank, writeBank } from "../../src/bank/load-bank.js";
import { skeletonBankContent } from "../../src/generate/skeleton-bank.js";

/**
 * The walking skeleton's bank (one world, four tasks), built for tests of the runner so they do not
 * depend on the size of the generated default bank.
 */
export function skeletonBank(): Bank {
  return bankFromContent(skeletonBankContent());
}

/**
 * The skeleton bank written to a fresh temporary directory (as `apiflow run --bank DIR` and queue
 * workers read it) and loaded back from there, so its manifest hash is the one on disk.
 *
 * @example const { dir, bank } = writtenSkeletonBank("apiflow-run-"); runCli(["run", "--bank", dir, …])
 */
export function writtenSkeletonBank(prefix = "apiflow-skeleton-"): { dir: string; bank: Bank } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  writeBank(dir, skeletonBankContent());
  const loaded = loadBank(dir);
  if (!loaded.success)
    throw new Error(`the skeleton bank does not load back: ${formatBankError(loaded.error)}`);
  return { dir, bank: loaded.data };
}
