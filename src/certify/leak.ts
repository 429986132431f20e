import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
import { resolveCanaries, trialSeed } from "../world/canary.js";
import { jsonAtoms, occursAsToken } from "./certify-kit.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";

export const LEAK_VERSION = "1.0.0";

/**
 * Values shorter than this are not searched for: a one- or two-character answer (`7`, `ok`)
 * occurs by chance in any prose, and guessing it is what the exploit audit measures.
 */
const MIN_LEAK_CHARS = 3;

/**
 * Every expected value of a task's grader for one trial seed (answer fields and workspace-value
 * predicates, canaries resolved), as the strings that would betray it. Booleans are left out.
 *
 * @example expectedValues(task, "seed-1") // [{ source: "answer field firmware_build", value: "FW-7Q2K9D" }, …]
 */
export function expectedValues(task: Task, seed: string): Array<{ source: string; value: string }> {
  const out: Array<{ source: string; value: string }> = [];
  const add = (source: string, v: JsonValue) => {
    if (Array.isArray(v)) for (const x of v) add(source, x);
    else if (typeof v === "string" || typeof v === "number") {
      const text = String(v).trim();
      if (text.length >= MIN_LEAK_CHARS) out.push({ source, value: text });
    }
  };
  for (const f of task.grader.answer) add(`answer field ${f.field}`, resolveCanaries(f.expected, seed));
  for (const p of task.grader.g1) {
    if (p.kind === "workspace_value") add(`workspace value ${p.name}`, resolveCanaries(p.value, seed));
  }
  return out;
}

/**
 * Gate 4, leak check: no expected answer value (canaries resolved with the task's first trial
 * seed) occurs as a whole token in the ticket or the seeded workspace (names and values of the
 * vault, local and global variables).
 *
 * @example (await leakGate(bank, bank.tasks)).failed === 0
 */
export async function leakGate(bank: Bank, tasks: readonly Task[]): Promise<GateReport> {
  return gateReport(
    LEAK_VERSION,
    tasks.map((t) => t.id),
    tasks.flatMap((task) => leakFindings(bank, task)),
  );
}

/**
 * The leak check on one task: a `leaked_value` failure for the first expected value found.
 *
 * @example leakFindings(bank, task) // []
 */
export function leakFindings(bank: Bank, task: Task): GateFailure[] {
  const seed = trialSeed(bank.manifest.seed, task.id, 1);
  const workspace = jsonAtoms(resolveCanaries(task.workspace, seed));
  for (const { source, value } of expectedValues(task, seed)) {
    const where = occursAsToken(task.ticket, value)
      ? "the ticket"
      : occursAsToken(workspace, value)
        ? "the seed workspace"
        : null;
    if (!where) continue;
    return [
      {
        task_id: task.id,
        check: "leaked_value",
        message: `the expected value of ${source} (${JSON.stringify(value)}) already sits in ${where}`,
      },
    ];
  }
  return [];
}
