import type { BankContent } from "../bank/bank.js";
import { harborTasks } from "./harbor-tasks.js";
import { HARBOR_WORLD } from "./harbor-world.js";

export const GENERATOR_VERSION = "0.1.0";
export const DEFAULT_SEED = "apiflow-1";

/**
 * The built-in default bank. For now the walking skeleton's one world and four tasks; the full
 * generator (13 worlds, 467 tasks) replaces it.
 *
 * @example const bank = bankFromContent(defaultBankContent());
 */
export function defaultBankContent(seed = DEFAULT_SEED): BankContent {
  return {
    name: "apiflow-skeleton",
    generator_version: GENERATOR_VERSION,
    seed,
    worlds: [HARBOR_WORLD],
    tasks: harborTasks(),
  };
}
