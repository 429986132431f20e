import { type Bank, type BankContent, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { skeletonBankContent } from "../generate/skeleton-bank.js";

/**
 * The walking skeleton's bank (one world, three solo tasks, the chain 1to3): the default bank as
 * it stood when the gates were written, and the base the broken tasks of the tests are cut from.
 */
export function skeletonContent(tasks: Task[] = harborTasks()): BankContent {
  return { ...skeletonBankContent(), name: "skeleton", generator_version: "test", tasks };
}

/** The skeleton bank with one task replaced by `edit` of itself (the others kept for chains). */
export function bankWith(id: string, edit: (task: Task) => Task): Bank {
  return bankFromContent(
    skeletonContent(harborTasks().map((t) => (t.id === id ? edit(structuredClone(t)) : t))),
  );
}

export const SUB01 = "harbor-telemetry-sub01";
export const SUB02 = "harbor-telemetry-sub02";
export const SUB03 = "harbor-telemetry-sub03";
export const CHAIN = "harbor-telemetry-chain-1to03";

/** The task of a bank by id (tests only: a missing id is a bug in the test). */
export function taskOf(bank: Bank, id: string): Task {
  const task = bank.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no task ${id}`);
  return task;
}
