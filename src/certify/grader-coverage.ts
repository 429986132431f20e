import type { G1Predicate, Task } from "../bank/task-schema.js";
import type { GateFailure } from "./certify-schema.js";

/** Methods that change a record: a call predicate on one of them is a write check. */
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * What a grader must hold by its form alone, before any trial runs (issue 20), checked with the
 * grader triad:
 *
 * - `ungraded_demand` — every card field and every segment's work the ticket demands is graded: a
 *   chain graded `selective` whose card or work includes a segment outside `graded_segments` fails
 *   (an agent could skip that work and leave those fields out).
 * - `use_without_slot` — a data flow that requires a later request names the slot the value must
 *   go in (`used_in_slot`); without one, the value anywhere in the request counts.
 * - `write_checked_on_echo` — a write check never reads the response's keys (`body_has_keys`): a
 *   write's answer echoes them whatever was sent.
 * - `write_without_sent` — a PUT or PATCH check names what it must send (`sent`).
 * - `write_without_target` — a PUT, PATCH or DELETE check is pinned to its record: an exact URL
 *   pattern (no `[^/]+`, anchored at the end) or a `target`.
 *
 * @example graderCoverageFindings(task) // [] for a sound grader
 */
export function graderCoverageFindings(task: Task): GateFailure[] {
  const out: GateFailure[] = [];
  const fail = (check: string, message: string) => out.push({ task_id: task.id, check, message });
  if (task.kind === "chain" && task.grader.chain_mode === "selective") {
    const graded = new Set(task.graded_segments ?? task.positions);
    const fields = task.grader.answer.filter((f) => f.segment !== undefined && !graded.has(f.segment));
    const work = task.positions.filter((p) => !graded.has(p) && task.grader.g1.some((g) => g.segment === p));
    if (fields.length > 0 || work.length > 0)
      fail(
        "ungraded_demand",
        `the selective chain demands what it never grades: ${fields.length} card field(s) (${fields
          .map((f) => f.field)
          .slice(0, 6)
          .join(", ")}) and the work of segment(s) ${work.join(", ") || "none"}`,
      );
  }
  for (const p of task.grader.g1) {
    const where = `${p.kind} ${p.id}${p.segment ? ` (segment ${p.segment})` : ""}`;
    if (p.kind === "data_flow" && p.used_in_request_url_pattern !== null && !p.used_in_slot)
      fail("use_without_slot", `${where} accepts the value anywhere in the request: name its slot`);
    if (p.kind !== "call") continue;
    const method = p.method?.toUpperCase();
    if (method === undefined || !WRITES.has(method)) continue;
    if (p.body_has_keys.length > 0)
      fail("write_checked_on_echo", `${where} checks the response's echo of ${p.body_has_keys.join(", ")}`);
    if ((method === "PUT" || method === "PATCH") && (!p.sent || Object.keys(p.sent).length === 0))
      fail("write_without_sent", `${where} does not name what the ${method} must send`);
    if (method !== "POST" && p.target === undefined && !exactPattern(p))
      fail("write_without_target", `${where} matches any record of /${p.url_pattern}/: pin its target`);
  }
  return out;
}

/** A URL pattern that names one record: anchored at both ends, no open segment. */
function exactPattern(p: Extract<G1Predicate, { kind: "call" }>): boolean {
  const re = p.url_pattern;
  return (
    re.startsWith("^") && re.endsWith("$") && !re.includes("[^/]") && !re.includes(".*") && !re.includes(".+")
  );
}
