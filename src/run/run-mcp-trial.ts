import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { type McpBridgeMode, mcpBridgeAgent } from "../mcp/mcp-bridge-agent.js";
import { mcpClientAgentName } from "../mcp/mcp-external-agent.js";
import { DEFAULT_LIMITS, type TrialLimits } from "../trial/stop-conditions.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { openRunDirectory, type RunDirectoryError } from "./run-directory.js";
import { trialRecordOf } from "./run-into-dir.js";
import { runSalt } from "./run-manifest.js";
import { runTrial, type TrialResult } from "./run-trial.js";
import { readRunManifest, transcriptRelPath } from "./store.js";
import { storedTrialLogOf, writeTrialLog } from "./stored-trial-log.js";
import { buildTranscript, writeTranscript } from "./transcript-writer.js";
import type { TrialRecord } from "./trial-record.js";

export interface McpTrialOptions {
  bank: Bank;
  task: Task;
  epoch: number;
  mode: McpBridgeMode;
  /** The run directory the trial is stored in (store, transcript, manifest), as `apiflow run` does. */
  runDir: string;
  limits?: TrialLimits;
  /**
   * The agent's name in the store, the transcripts and the reports. Default: the client's
   * `clientInfo.name` (see `mcpClientAgentName`), `mcp` when no client initialized.
   */
  agentName?: string;
  /**
   * The run's salt, which enters every canary (see `runSalt`): default the run directory's, else a
   * fresh random one, so another run's transcript is no answer key; the same salt reproduces a run.
   */
  salt?: string;
  force?: boolean;
}

export type McpTrialError = RunDirectoryError;

/**
 * One trial played by an agent outside our loop over MCP (`apiflow mcp`): the trial's tools are
 * served (stdio or Streamable HTTP), the trial is graded when the agent delivers, abstains, hits a
 * limit or disconnects, and it is stored in the run directory like any trial of `apiflow run`
 * (transcript, store row, manifest pins). The run directory is checked before the trial (bank,
 * limits, salt) and pinned after it, once the agent's name is known. Like `apiflow run`, the
 * trial draws the run's salt (the directory's, else a fresh one, or `salt`), so its canaries
 * are its run's own.
 *
 * @example const r = await runMcpTrial({ bank, task, epoch: 1, mode: { kind: "stdio" }, runDir: ".apiflow/runs/mcp" });
 */
export async function runMcpTrial(
  options: McpTrialOptions,
): Promise<
  | { success: true; data: { result: TrialResult; record: TrialRecord; salt: string } }
  | { success: false; error: McpTrialError }
> {
  const { bank, task, runDir } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const bankHash = bank.manifest.content_hash;
  const settings = { kind: "mcp" as const, transport: options.mode.kind };
  const salt = runSalt(options.salt, readRunManifest(runDir));
  const open = (agents: Record<string, typeof settings>) =>
    openRunDirectory({
      runDir,
      bank,
      agents,
      limits,
      priceTableVersion: DEFAULT_PRICE_TABLE.version,
      salt,
      ...(options.force !== undefined ? { force: options.force } : {}),
    });
  // Refuse a run directory of other settings before the agent plays, not after.
  const checked = open(options.agentName ? { [options.agentName]: settings } : {});
  if (!checked.success) return checked;
  checked.data.close();
  let clientName: string | undefined;
  const onClient = options.mode.onClient;
  const mode: McpBridgeMode = {
    ...options.mode,
    onClient: (client) => {
      clientName ??= client.name;
      onClient?.(client);
    },
  };
  const provisional = options.agentName ?? "mcp";
  const played = await runTrial({
    bank,
    task,
    epoch: options.epoch,
    limits,
    salt,
    agent: { name: provisional, forTask: () => mcpBridgeAgent(mode, provisional) },
  });
  const name = options.agentName ?? mcpClientAgentName(clientName);
  const result: TrialResult = { ...played, agent: name };
  const opened = open({ [name]: settings });
  if (!opened.success) return opened;
  const store = opened.data;
  try {
    const rel = transcriptRelPath(name, task.id, options.epoch);
    writeTranscript(
      runDir,
      rel,
      buildTranscript(result, {
        model: name,
        provenance: { bench: "APIFlow-Bench", bank_hash: bankHash, bank_name: bank.manifest.name },
      }),
      (t) => t,
    );
    writeTrialLog(runDir, rel, storedTrialLogOf(result, task, bankHash));
    const record = trialRecordOf(result, task, bankHash, DEFAULT_PRICE_TABLE, null, rel);
    store.record(record);
    return { success: true, data: { result, record, salt } };
  } finally {
    store.close();
  }
}
