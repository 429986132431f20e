import { randomBytes } from "node:crypto";
import { z } from "zod";
import { type AgentSettings, AgentSettingsSchema } from "../agents/agent-registry.js";
import { sha256Hex } from "../bank/canonical-json.js";
import { GRADER_VERSION } from "../grade/grade-trial.js";
import type { TrialLimits } from "../trial/stop-conditions.js";
import { TOOL_CONTRACT_VERSION } from "../workspace/tool-definitions.js";
import type { RunManifest } from "./store.js";
import { type Grading, GradingSchema } from "./store-gradings.js";

/**
 * Bumped when the trial loop, the session or the transcript writer changes what a trial records.
 * 1.1.0: the stored event log beside each trial, the per-run salt, MCP transcripts recording the
 * client's instructions.
 */
export const HARNESS_VERSION = "1.1.0";

/** What `apiflow run` pins beside the store's base manifest fields. */
export const RunPinsSchema = z.object({
  bank_hash: z.string(),
  grader_version: z.string(),
  tool_contract_version: z.string(),
  harness_version: z.string(),
  price_table_version: z.string(),
  limits: z.object({ maxToolCalls: z.number(), maxTokens: z.number(), maxSeconds: z.number() }),
  agent_settings: z.record(z.string(), AgentSettingsSchema),
  /** The run's salt: it enters every canary; `apiflow run --salt` reproduces the run. */
  salt: z.string().optional(),
  /** The tasks of the last grid run into the directory: how many, and a hash of their sorted ids. */
  task_subset: z.object({ count: z.number().int(), hash: z.string() }).optional(),
});
export type RunPins = z.infer<typeof RunPinsSchema>;

/**
 * The manifest of a run about to start.
 *
 * @example buildRunManifest({ bankHash, bankName: "apiflow-skeleton", agents: { golden: { kind: "scripted" } }, limits, priceTableVersion: "x" })
 */
export function buildRunManifest(input: {
  bankHash: string;
  bankName: string;
  agents: Record<string, AgentSettings>;
  limits: TrialLimits;
  priceTableVersion: string;
  salt?: string;
  taskIds?: readonly string[];
  created?: string;
}): RunManifest & RunPins {
  return {
    schema_version: 1,
    source: "run",
    created: input.created ?? new Date().toISOString(),
    bank_hash: input.bankHash,
    bank_name: input.bankName,
    agents: Object.keys(input.agents).sort(),
    grader_version: GRADER_VERSION,
    tool_contract_version: TOOL_CONTRACT_VERSION,
    harness_version: HARNESS_VERSION,
    price_table_version: input.priceTableVersion,
    limits: { ...input.limits },
    agent_settings: input.agents,
    ...(input.salt ? { salt: input.salt } : {}),
    ...(input.taskIds ? { task_subset: taskSubset(input.taskIds) } : {}),
  };
}

/**
 * A task subset as the manifest pins it.
 *
 * @example taskSubset(["b", "a"]) // { count: 2, hash: "…" } (order does not matter)
 */
export function taskSubset(ids: readonly string[]): { count: number; hash: string } {
  const sorted = [...new Set(ids)].sort();
  return { count: sorted.length, hash: sha256Hex(sorted.join("\n")).slice(0, 16) };
}

/**
 * The salt of a run about to start in `runDir`: the one asked for, else the one its manifest
 * recorded (a resumed run keeps its canaries), else a fresh random one.
 *
 * @example runSalt(undefined, readRunManifest(runDir)) // "9c1f…" (16 hex digits)
 */
export function runSalt(asked: string | undefined, existing: RunManifest | null): string {
  if (asked !== undefined && asked !== "") return asked;
  const pinned = RunPinsSchema.partial().safeParse(existing ?? {});
  const old = pinned.success ? pinned.data.salt : undefined;
  return old ?? randomBytes(8).toString("hex");
}

/**
 * Where a run directory's existing manifest and a new run disagree on something that changes
 * results. Agents new to the run are fine; the same agent with other settings is not.
 *
 * @example manifestConflicts(old, next) // ["grader_version: 1.0.0 ≠ 1.1.0"]
 */
export function manifestConflicts(existing: RunManifest, next: RunManifest & RunPins): string[] {
  const out: string[] = [];
  if (existing.source !== "run") out.push(`source: the run directory holds ${existing.source} data`);
  const old = RunPinsSchema.partial().safeParse(existing);
  const pins = old.success ? old.data : {};
  const scalar = [
    "bank_hash",
    "grader_version",
    "tool_contract_version",
    "harness_version",
    "price_table_version",
    "salt",
  ] as const;
  for (const key of scalar) {
    const a = pins[key] ?? (key === "bank_hash" ? existing.bank_hash : undefined);
    const b = next[key];
    if (a !== undefined && a !== null && b !== undefined && a !== b) out.push(`${key}: ${a} ≠ ${b}`);
  }
  if (pins.limits && JSON.stringify(pins.limits) !== JSON.stringify(next.limits)) {
    out.push(`limits: ${JSON.stringify(pins.limits)} ≠ ${JSON.stringify(next.limits)}`);
  }
  for (const [agent, settings] of Object.entries(next.agent_settings)) {
    const before = pins.agent_settings?.[agent];
    if (before && canonical(pinned(before)) !== canonical(pinned(settings))) {
      out.push(`${agent} settings: ${canonical(before)} ≠ ${canonical(settings)}`);
    }
  }
  return out;
}

/** The manifest after a (compatible or forced) run: agents and settings of both, first creation date. */
export function mergeManifests(
  existing: RunManifest | null,
  next: RunManifest & RunPins,
): RunManifest & RunPins {
  if (!existing) return next;
  const old = RunPinsSchema.partial().safeParse(existing);
  const settings = { ...(old.success ? (old.data.agent_settings ?? {}) : {}), ...next.agent_settings };
  return {
    ...next,
    created: existing.created,
    agents: [...new Set([...existing.agents, ...next.agents])].sort(),
    agent_settings: settings,
    // A resumed run keeps the record of its re-gradings.
    ...(existing.gradings !== undefined ? { gradings: existing.gradings } : {}),
  };
}

/**
 * The manifest with the run's gradings recorded (`gradings`: which grader version, and which
 * bank's graders, each grading used; see `GradingSchema`).
 *
 * @example writeRunManifest(runDir, withGradings(readRunManifest(runDir)!, store.gradings.list()));
 */
export function withGradings(manifest: RunManifest, gradings: readonly Grading[]): RunManifest {
  return { ...manifest, gradings: gradings.map((g) => GradingSchema.parse(g)) };
}

/**
 * Agent settings as they pin a run: the base URL without its port, so a local server restarted on
 * another port (vLLM, Ollama, a fake on port 0) still resumes the run.
 */
function pinned(settings: AgentSettings): AgentSettings {
  if (typeof settings.base_url !== "string") return settings;
  try {
    const url = new URL(settings.base_url);
    url.port = "";
    return { ...settings, base_url: url.toString() };
  } catch {
    return settings;
  }
}

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}
