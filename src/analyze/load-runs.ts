import { existsSync, statSync } from "node:fs";
import { tryOpenStore } from "../run/store.js";
import { type TrialRecord, trialKeyString } from "../run/trial-record.js";

export interface LoadedRuns {
  records: TrialRecord[];
  /** For each record, the index of its run directory in the input. */
  runIndex: number[];
  runs: Array<{ dir: string; trials: number }>;
  /** Trials whose key appeared in an earlier run directory; the first one is kept. */
  duplicates: number;
}

export type LoadRunsError = {
  code: "run_missing" | "store_unreadable" | "mixed_banks" | "no_runs";
  message: string;
};

/**
 * Read the trials of one or more run directories (read-only). Runs of different banks are
 * refused: the same task id may mean a different task in another bank.
 *
 * @example const res = loadRuns(["runs/a", "runs/b"]); if (res.success) buildReport(res.data.records);
 */
export function loadRuns(
  dirs: readonly string[],
): { success: true; data: LoadedRuns } | { success: false; error: LoadRunsError } {
  if (dirs.length === 0)
    return { success: false, error: { code: "no_runs", message: "no run directory given" } };
  const seen = new Set<string>();
  const records: TrialRecord[] = [];
  const runIndex: number[] = [];
  const runs: LoadedRuns["runs"] = [];
  let duplicates = 0;
  for (const [run, dir] of dirs.entries()) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      return { success: false, error: { code: "run_missing", message: `${dir} is not a run directory` } };
    }
    const opened = tryOpenStore(dir, { readonly: true });
    if (!opened.success)
      return { success: false, error: { code: "store_unreadable", message: opened.error.message } };
    let n = 0;
    try {
      for (const rec of opened.data.all()) {
        n++;
        const key = trialKeyString(rec);
        if (seen.has(key)) {
          duplicates++;
          continue;
        }
        seen.add(key);
        records.push(rec);
        runIndex.push(run);
      }
    } finally {
      opened.data.close();
    }
    runs.push({ dir, trials: n });
  }
  const banks = [...new Set(records.map((r) => r.bank_hash))];
  if (banks.length > 1) {
    return {
      success: false,
      error: {
        code: "mixed_banks",
        message: `the runs hold trials of ${banks.length} banks (${banks.join(", ")})`,
      },
    };
  }
  return { success: true, data: { records, runIndex, runs, duplicates } };
}
