import { z } from "zod";

/** The gates of issues 8, 15 and 16, in the order they run. */
export const GateNameSchema = z.enum([
  "triad",
  "solvability",
  "discoverability",
  "leak",
  "requirement_mutants",
  "legitimate_variants",
  "chain_replay",
  "exploit_audit",
  "premises",
  "axis_necessity",
  "hint_grading",
]);
export type GateName = z.infer<typeof GateNameSchema>;
export const GATE_NAMES = GateNameSchema.options;

/**
 * One finding of a gate on one task: a stable `check` code (e.g. `sabotage:decoy_route`,
 * `undiscoverable_literal`, `exploit:vault-copy`) and a sentence a generator author can act on.
 */
export const GateFailureSchema = z.strictObject({
  task_id: z.string(),
  check: z.string(),
  message: z.string(),
});
export type GateFailure = z.infer<typeof GateFailureSchema>;

/** What one gate found over the tasks it checked. A task passes a gate when it has no failure. */
export const GateReportSchema = z.strictObject({
  version: z.string(),
  checked: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** `task: message` of the first failure, or null when every task passed. */
  first_failure: z.string().nullable(),
  failures: z.array(GateFailureSchema),
  /** Observations that do not fail the gate (e.g. a full-mode chain whose coupling is nominal). */
  notes: z.array(z.string()).default([]),
  /**
   * Whether the gate's failures fail certification (`ok`) and drop tasks in the regeneration loop.
   * A soft gate (false) reports its numbers only: see `hard` in the gate registry, and
   * `CertifyOptions.hardGates` to hold one hard for a single certification.
   */
  hard: z.boolean().default(true),
  /** Exploit audit only: tasks each exploit passed (every count must be 0). */
  exploits: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Exploit audit only: tasks each exploit attacked (the attack applies to the task). */
  attacked: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Requirement mutants only: mutants generated and killed over the tasks (the mutation score). */
  mutants: z
    .strictObject({ generated: z.number().int().nonnegative(), killed: z.number().int().nonnegative() })
    .optional(),
});
export type GateReport = z.infer<typeof GateReportSchema>;

/** The result of certifying a bank: `ok` iff every hard gate that ran has no failure. */
export const CertifyReportSchema = z.strictObject({
  ok: z.boolean(),
  bank: z.strictObject({ name: z.string(), seed: z.string(), tasks: z.number().int().nonnegative() }),
  oracle: z.string(),
  gates: z.partialRecord(GateNameSchema, GateReportSchema),
});
export type CertifyReport = z.infer<typeof CertifyReportSchema>;

/** Build a gate report from the ids checked and the failures found. */
export function gateReport(
  version: string,
  checkedIds: readonly string[],
  failures: readonly GateFailure[],
  extra: Partial<Pick<GateReport, "notes" | "exploits" | "attacked" | "hard" | "mutants">> = {},
): GateReport {
  const failedIds = new Set(failures.map((f) => f.task_id));
  const first = failures[0];
  return {
    version,
    checked: checkedIds.length,
    passed: checkedIds.filter((id) => !failedIds.has(id)).length,
    failed: checkedIds.filter((id) => failedIds.has(id)).length,
    first_failure: first ? `${first.task_id}: ${first.message}` : null,
    failures: [...failures],
    notes: extra.notes ?? [],
    hard: extra.hard ?? true,
    ...(extra.exploits ? { exploits: extra.exploits } : {}),
    ...(extra.attacked ? { attacked: extra.attacked } : {}),
    ...(extra.mutants ? { mutants: extra.mutants } : {}),
  };
}
