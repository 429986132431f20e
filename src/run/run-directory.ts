import type { AgentSettings } from "../agents/agent-registry.js";
import type { Bank } from "../bank/bank.js";
import type { TrialLimits } from "../trial/stop-conditions.js";
import { buildRunManifest, manifestConflicts, mergeManifests } from "./run-manifest.js";
import { type ResultsStore, readRunManifest, tryOpenStore, writeRunManifest } from "./store.js";

export type RunDirectoryError =
  | { code: "manifest_conflict"; message: string }
  | { code: "store_version" | "store_unreadable"; message: string };

/**
 * Open a run directory for writing trials: pin its manifest (bank hash, agents' settings, limits,
 * price table), refusing one run with other settings unless `force`, and open its results store.
 * Every path that writes trials — the local runner, the queue coordinator, `apiflow mcp` — goes
 * through here, so a run directory is pinned the same way whichever wrote it. The caller closes
 * the store.
 *
 * @example const opened = openRunDirectory({ runDir, bank, agents: { golden: { kind: "scripted" } }, limits, priceTableVersion: "1" });
 */
export function openRunDirectory(options: {
  runDir: string;
  bank: Bank;
  agents: Record<string, AgentSettings>;
  limits: TrialLimits;
  priceTableVersion: string;
  /** The run's salt, recorded in the manifest (see `runSalt`). */
  salt?: string;
  /** The grid's task ids, pinned as the manifest's task subset. */
  taskIds?: readonly string[];
  force?: boolean;
}): { success: true; data: ResultsStore } | { success: false; error: RunDirectoryError } {
  const { runDir, bank } = options;
  const next = buildRunManifest({
    bankHash: bank.manifest.content_hash,
    bankName: bank.manifest.name,
    agents: options.agents,
    limits: options.limits,
    priceTableVersion: options.priceTableVersion,
    ...(options.salt ? { salt: options.salt } : {}),
    ...(options.taskIds ? { taskIds: options.taskIds } : {}),
  });
  const existing = readRunManifest(runDir);
  if (existing && !options.force) {
    const conflicts = manifestConflicts(existing, next);
    if (conflicts.length > 0) {
      return {
        success: false,
        error: {
          code: "manifest_conflict",
          message: `${runDir} was run with other settings (${conflicts.join("; ")}); use another --out or --force`,
        },
      };
    }
  }
  const opened = tryOpenStore(runDir);
  if (!opened.success) return { success: false, error: opened.error };
  try {
    writeRunManifest(runDir, mergeManifests(existing, next));
  } catch (e) {
    opened.data.close();
    throw e;
  }
  return opened;
}
