import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bank } from "../../src/bank/bank.js";
import { DEFAULT_PRICE_TABLE } from "../../src/run/price-table.js";
import { type RunIntoDirSummary, runIntoDir } from "../../src/run/run-into-dir.js";
import type { AgentFactory } from "../../src/trial/agent.js";

/**
 * Run scripted agents over a bank's tasks (all of them unless `tasks` is given), one epoch, into a
 * fresh temporary run directory: the store, transcripts, stored logs and manifest a real run writes.
 * Throws when the run cannot start (a test-setup bug, not a verdict).
 *
 * @example const { runDir, records } = await scriptedRunInTempDir(bank, [blankAgentFactory]);
 */
export async function scriptedRunInTempDir(
  bank: Bank,
  factories: readonly AgentFactory[],
  options: { tasks?: Bank["tasks"]; concurrency?: number; prefix?: string } = {},
): Promise<{ runDir: string } & RunIntoDirSummary> {
  const runDir = mkdtempSync(join(tmpdir(), options.prefix ?? "apiflow-scripted-run-"));
  const ran = await runIntoDir({
    runDir,
    bank,
    agents: factories.map((factory) => ({ factory, settings: { kind: "scripted" as const } })),
    tasks: options.tasks ?? bank.tasks,
    epochs: 1,
    concurrency: options.concurrency ?? 1,
    priceTable: DEFAULT_PRICE_TABLE,
  });
  if (!ran.success) throw new Error(ran.error.message);
  return { runDir, ...ran.data };
}
