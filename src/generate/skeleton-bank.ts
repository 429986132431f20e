import type { BankContent } from "../bank/bank.js";
import { harborTasks } from "./harbor-tasks.js";
import { HARBOR_WORLD } from "./harbor-world.js";

/**
 * The walking skeleton's bank: the hand-written harbour world and its four tasks (three solo
 * subtasks and the chain 1to3). Small and fixed, for tests and examples that must not depend on
 * the size of the generated default bank.
 *
 * @example const bank = bankFromContent(skeletonBankContent());
 */
export function skeletonBankContent(seed = "apiflow-1"): BankContent {
  return {
    name: "apiflow-skeleton",
    generator_version: "0.1.0",
    seed,
    worlds: [HARBOR_WORLD],
    tasks: harborTasks(),
  };
}
