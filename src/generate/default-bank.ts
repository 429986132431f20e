import type { BankContent } from "../bank/bank.js";
import { DEFAULT_SEED, GENERATOR_VERSION, generateBank } from "./generate-bank.js";

export { DEFAULT_SEED, GENERATOR_VERSION };

const cache = new Map<string, BankContent>();

/**
 * The built-in default bank: 13 worlds, 241 solo and 226 chain tasks, generated from `seed`
 * (memoised: generation is deterministic, and commands ask for it more than once).
 *
 * @example const bank = bankFromContent(defaultBankContent());
 */
export function defaultBankContent(seed = DEFAULT_SEED): BankContent {
  const hit = cache.get(seed);
  if (hit) return hit;
  const result = generateBank({ seed });
  // The default shape is fixed and valid; a failure here is a bug in the generator.
  if (!result.success) throw new Error(`default bank: ${result.error.message}`);
  cache.set(seed, result.data);
  return result.data;
}
