import { type Bank, type BankContent, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { protocolVariant, type VariantProtocol } from "../generate/protocol-variants.js";
import { skeletonBankContent } from "../generate/skeleton-bank.js";

/**
 * The walking skeleton's bank (one world, three solo tasks, the chain 1to3): the default bank as
 * it stood when the gates were written, and the base the broken tasks of the tests are cut from.
 */
export function skeletonContent(tasks: Task[] = harborTasks()): BankContent {
  return { ...skeletonBankContent(), name: "skeleton", generator_version: "test", tasks };
}

/** A protocol the skeleton bank can be served in: REST as written, or a `--protocols` variant. */
export type TestProtocol = "rest" | VariantProtocol;

/**
 * The skeleton bank in `protocol`: for GraphQL and MCP, the variant `apiflow generate --protocols`
 * writes (world and tasks translated call for call, graders kept).
 */
export function skeletonIn(protocol: TestProtocol): BankContent {
  const content = skeletonContent();
  if (protocol === "rest") return content;
  const v = protocolVariant(content.worlds[0] as World, content.tasks, protocol);
  if (!v.success) throw new Error(v.error.message);
  return { ...content, worlds: [v.data.world], tasks: v.data.tasks };
}

/** A skeleton task's id in `protocol` (`harbor-telemetry-sub01` → `harbor-telemetry-mcp-sub01`). */
export function idIn(protocol: TestProtocol, id: string): string {
  return protocol === "rest" ? id : id.replace(/^harbor-telemetry-/, `harbor-telemetry-${protocol}-`);
}

/**
 * The skeleton bank (in `protocol`, REST by default) with one task replaced by `edit` of itself
 * (the others kept for chains). `id` is the REST id; the edit sees the task in `protocol`.
 */
export function bankWith(id: string, edit: (task: Task) => Task, protocol: TestProtocol = "rest"): Bank {
  const content = skeletonIn(protocol);
  const target = idIn(protocol, id);
  return bankFromContent({
    ...content,
    tasks: content.tasks.map((t) => (t.id === target ? edit(structuredClone(t)) : t)),
  });
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
