import { SCRIPTED_AGENTS } from "../agents/scripted-agents.js";
import { type BankContent, bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { protocolVariant, type VariantProtocol } from "../generate/protocol-variants.js";
import { runTrial } from "../run/run-trial.js";

/** How `apiflow generate --protocols` checks each variant task: the golden passes and the blank fails. */
export const PROTOCOL_VARIANT_GATE = { name: "protocol_variant_replay", version: "1.0.0" } as const;

export interface ProtocolVariantsOutcome {
  worlds: World[];
  tasks: Task[];
  /** Variant tasks left out, with why (a world that does not map, a golden that fails, a blank that passes). */
  dropped: Array<{ id: string; reason: string }>;
  gate: { name: string; version: string; checked: number; passed: number };
}

/**
 * The GraphQL and/or MCP variants of every world of a (certified) REST bank, each variant task
 * replayed once: its golden must pass and the blank must fail, or it is dropped (with its reason).
 * The REST bank's own gates are not re-run on variants: they translate certified tasks call for
 * call and keep their graders.
 *
 * @example const v = await protocolVariants(content, ["graphql", "mcp"]); writeBank(dir, { ...content, worlds: [...content.worlds, ...v.worlds], tasks: [...content.tasks, ...v.tasks] });
 */
export async function protocolVariants(
  content: BankContent,
  protocols: readonly VariantProtocol[],
): Promise<ProtocolVariantsOutcome> {
  const worlds: World[] = [];
  const candidates: Task[] = [];
  const dropped: ProtocolVariantsOutcome["dropped"] = [];
  for (const protocol of protocols) {
    for (const world of content.worlds) {
      if ((world.protocol ?? "rest") !== "rest") continue;
      const v = protocolVariant(world, content.tasks, protocol);
      if (!v.success) {
        dropped.push({ id: `${world.id}-${protocol}`, reason: v.error.message });
        continue;
      }
      worlds.push(v.data.world);
      candidates.push(...v.data.tasks);
      dropped.push(...v.data.skipped);
    }
  }
  const bank = bankFromContent({ ...content, worlds, tasks: candidates });
  const { golden, blank } = SCRIPTED_AGENTS;
  if (!golden || !blank) throw new Error("the golden and blank agents are missing");
  const tasks: Task[] = [];
  for (const task of bank.tasks) {
    const g = await runTrial({ bank, task, agent: golden, epoch: 1 });
    if (!g.grade.passed) {
      dropped.push({ id: task.id, reason: `the golden fails: ${g.grade.failure_reason}` });
      continue;
    }
    const b = await runTrial({ bank, task, agent: blank, epoch: 1 });
    if (b.grade.passed) {
      dropped.push({ id: task.id, reason: "the blank exam passes" });
      continue;
    }
    tasks.push(task);
  }
  return {
    // Every world that maps is kept, as the REST bank keeps a world whose tasks were all dropped.
    worlds,
    tasks,
    dropped,
    gate: { ...PROTOCOL_VARIANT_GATE, checked: candidates.length, passed: tasks.length },
  };
}

/**
 * A REST bank with protocol variants: added to it as more worlds and tasks (`separate` false), or
 * as a bank of their own named `<name>-protocols` beside it (`separate` true). The REST bank's
 * worlds and tasks are unchanged either way.
 *
 * @example const { rest, variants } = await withProtocolVariants(content, ["graphql"], true);
 */
export async function withProtocolVariants(
  content: BankContent,
  protocols: readonly VariantProtocol[],
  separate: boolean,
): Promise<{ rest: BankContent; variants: BankContent | null; dropped: ProtocolVariantsOutcome["dropped"] }> {
  const v = await protocolVariants(content, protocols);
  if (separate) {
    return {
      rest: content,
      variants: {
        ...content,
        name: `${content.name}-protocols`,
        worlds: v.worlds,
        tasks: v.tasks,
        gates: [v.gate],
      },
      dropped: v.dropped,
    };
  }
  return {
    rest: {
      ...content,
      worlds: [...content.worlds, ...v.worlds],
      tasks: [...content.tasks, ...v.tasks],
      gates: [...(content.gates ?? []), v.gate],
    },
    variants: null,
    dropped: v.dropped,
  };
}
