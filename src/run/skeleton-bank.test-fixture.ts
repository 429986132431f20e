import { type Bank, bankFromContent } from "../bank/bank.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";

/**
 * The walking skeleton's bank (one world, four tasks), built for tests of the runner so they do not
 * depend on the size of the generated default bank.
 */
export function skeletonBank(): Bank {
  return bankFromContent({
    name: "apiflow-skeleton",
    generator_version: "0.1.0",
    seed: "apiflow-1",
    worlds: [HARBOR_WORLD],
    tasks: harborTasks(),
  });
}
