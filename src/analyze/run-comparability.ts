import { RunPinsSchema } from "../run/run-manifest.js";
import type { RunManifest } from "../run/store.js";
import type { TrialRecord } from "../run/trial-record.js";

/** One setting on which runs differ: its value in each run, in input order ("—" where unpinned). */
export interface ManifestDifference {
  field: string;
  values: string[];
}

/** What must agree for runs to be read together (the salt may differ: every run draws its own). */
const PINNED = [
  "bank_hash",
  "grader_version",
  "tool_contract_version",
  "harness_version",
  "price_table_version",
  "limits",
] as const;

/**
 * Where runs that a report or a comparison reads together were produced differently: the pinned
 * versions, limits and price table of their manifests, and the set of tasks their trials cover. A
 * field no run pins (imported data) is skipped; a field only some pin differs.
 *
 * @example manifestDifferences([{ manifest: a, records: ra }, { manifest: b, records: rb }]) // [{ field: "limits", values: ["{…300…}", "{…5…}"] }]
 */
export function manifestDifferences(
  runs: ReadonlyArray<{ manifest: RunManifest | null; records: readonly TrialRecord[] }>,
  options: { taskSubset?: boolean } = {},
): ManifestDifference[] {
  if (runs.length < 2) return [];
  const pins = runs.map((r) => {
    const parsed = RunPinsSchema.partial().safeParse(r.manifest ?? {});
    return parsed.success ? parsed.data : {};
  });
  const out: ManifestDifference[] = [];
  for (const field of PINNED) {
    const values = pins.map((p) => (p[field] === undefined ? "—" : shown(p[field])));
    if (values.every((v) => v === "—")) continue;
    if (new Set(values).size > 1) out.push({ field, values });
  }
  const tasks = runs.map((r) => [...new Set(r.records.map((x) => x.task_id))].sort().join("\n"));
  if (options.taskSubset !== false && new Set(tasks).size > 1) {
    out.push({
      field: "task subset",
      values: tasks.map((t) => `${t === "" ? 0 : t.split("\n").length} tasks`),
    });
  }
  return out;
}

/**
 * The one line that refuses mixed runs.
 *
 * @example differencesLine(diffs, ["runs/a", "runs/b"]) // "the runs differ in limits (runs/a: …; runs/b: …); use --force to …"
 */
export function differencesLine(diffs: readonly ManifestDifference[], dirs: readonly string[]): string {
  const parts = diffs.map((d) => `${d.field} (${d.values.map((v, i) => `${dirs[i]}: ${v}`).join("; ")})`);
  return `the runs differ in ${parts.join(", ")}; use --force to read them together anyway`;
}

function shown(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
