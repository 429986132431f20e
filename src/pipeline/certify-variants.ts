import { availableParallelism } from "node:os";
import type { BankContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { type CertifyOptions, certifyBank, dropUncertified, recordGates } from "../certify/certify-bank.js";
import type { CertifyReport } from "../certify/certify-schema.js";

/** What `withProtocolVariants` returns: the REST bank (maybe with variants added) and a separate variant bank. */
export interface VariantBanks {
  rest: BankContent;
  variants: BankContent | null;
  dropped: Array<{ id: string; reason: string }>;
}

/**
 * Put the GraphQL/MCP variant tasks through the six gates, as the REST bank was before its
 * variants were made: a variant task that fails a gate is dropped (chains truncated), with the
 * first failure as its reason, and the gates are recorded in the bank that holds the variants (a
 * separate variant bank records them as its own; a REST bank with variants added counts its
 * variant tasks into each gate's checked and passed). Only variant tasks are certified: the REST
 * tasks already were.
 *
 * @example const v = await certifyVariants(await withProtocolVariants(content, ["graphql"], true));
 */
export async function certifyVariants(
  banks: VariantBanks,
  options: CertifyOptions = { workers: availableParallelism() },
): Promise<VariantBanks & { report: CertifyReport }> {
  const holder = banks.variants ?? banks.rest;
  const protocolOf = new Map(holder.worlds.map((w) => [w.id, w.protocol ?? "rest"]));
  const isVariant = (t: Task) => protocolOf.get(t.world) !== "rest";
  const report = await certifyBank(holder, { ...options, tasks: isVariant });
  const kept = dropUncertified(holder, report);
  const firstFailure = new Map<string, string>();
  for (const [gate, g] of Object.entries(report.gates))
    for (const f of g.failures)
      if (!firstFailure.has(f.task_id)) firstFailure.set(f.task_id, `${gate}: ${f.message}`);
  const dropped = [
    ...banks.dropped,
    ...kept.dropped.map((id) => ({
      id,
      reason: `failed certification (${firstFailure.get(id) ?? "a solo subtask it covers was dropped"})`,
    })),
  ];
  const certified = recordGates(kept.content, report).gates ?? [];
  const earlier = holder.gates ?? [];
  // A gate already recorded (the REST bank's) counts the variant tasks in; a new one is added.
  const gates = [
    ...earlier.map((g) => {
      const v = certified.find((c) => c.name === g.name && c.version === g.version);
      return v ? { ...g, checked: g.checked + v.checked, passed: g.passed + v.passed } : g;
    }),
    ...certified.filter((c) => !earlier.some((g) => g.name === c.name && g.version === c.version)),
  ];
  const content = { ...kept.content, gates };
  return banks.variants
    ? { rest: banks.rest, variants: content, dropped, report }
    : { rest: content, variants: null, dropped, report };
}
