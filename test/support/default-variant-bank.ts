import { type Bank, bankFromContent } from "../../src/bank/bank.js";
import type { Task } from "../../src/bank/task-schema.js";
import { defaultBankContent } from "../../src/generate/default-bank.js";
import { protocolVariant, type VariantProtocol } from "../../src/generate/protocol-variants.js";

/**
 * One world of the default bank beside its GraphQL or MCP variant (as `generate --protocols`
 * makes it), as a bank, with the variant of `original` (a task of that world) edited by `edit`;
 * and that variant task.
 *
 * @example const { bank, task } = defaultVariant(task, "mcp");
 */
export function defaultVariant(
  original: Task,
  protocol: VariantProtocol,
  edit: (t: Task) => Task = (t) => t,
): { bank: Bank; task: Task } {
  const content = defaultBankContent();
  const world = content.worlds.find((w) => w.id === original.world);
  if (!world) throw new Error(`no world ${original.world}`);
  const v = protocolVariant(world, content.tasks, protocol);
  if (!v.success) throw new Error(v.error.message);
  const id = `${world.id}-${protocol}${original.id.slice(world.id.length)}`;
  const bank = bankFromContent({
    ...content,
    worlds: [world, v.data.world],
    tasks: [
      ...content.tasks.filter((t) => t.world === world.id),
      ...v.data.tasks.map((t) => (t.id === id ? edit(t) : t)),
    ],
  });
  const task = bank.tasks.find((t) => t.id === id);
  if (!task) throw new Error(`no ${protocol} variant of ${original.id}`);
  return { bank, task };
}
