import { type Bank, bankFromContent } from "../../src/bank/bank.js";
import { skeletonBankContent } from "../../src/generate/skeleton-bank.js";

/**
 * The walking skeleton's bank (one world, four tasks), built for tests of the runner so they do not
 * depend on the size of the generated default bank.
 */
export function skeletonBank(): Bank {
  return bankFromContent(skeletonBankContent());
}
