import type {
  AnswerField,
  ExpectedValue,
  ForbidConstraint,
  G1Predicate,
  Requirement,
  Task,
} from "../bank/task-schema.js";
import { unbackedSentences } from "./ticket-sentences.js";

/** A requirement as a template states it, before the predicates that hold it are attached. */
export type DeclaredRequirement = Requirement & { sentence: string };

/**
 * The predicates of a grader, each tagged with the requirement it holds, and the requirements with
 * the ids of their predicates. Declared requirements keep what they name; every predicate no
 * declared requirement names gets one derived from it (a data flow or a kept variable holds a
 * `value_flow`, a write a `value_written` or `exact_target`, the answer fields a `report`, the
 * forbid constraints `stay_canonical`), so no predicate is without a reason and the bank check can
 * hold every requirement to at least one predicate.
 *
 * @example const { requirements, g1 } = attachRequirements([statusReq], { g1, answer, constraints });
 */
export function attachRequirements(
  declared: readonly Requirement[],
  grader: {
    g1: readonly G1Predicate[];
    answer: readonly AnswerField[];
    constraints: readonly ForbidConstraint[];
  },
): {
  requirements: Requirement[];
  g1: G1Predicate[];
  answer: AnswerField[];
  constraints: ForbidConstraint[];
} {
  const requirements: Requirement[] = declared.map((r) => ({ ...r, predicates: [...r.predicates] }));
  const owner = new Map<string, string>();
  for (const r of requirements) for (const p of r.predicates) if (!owner.has(p)) owner.set(p, r.id);
  const ids = new Set(requirements.map((r) => r.id));
  const fresh = (base: string) => {
    let id = base;
    for (let i = 2; ids.has(id); i++) id = `${base}_${i}`;
    ids.add(id);
    return id;
  };
  for (const p of grader.g1) {
    if (owner.has(p.id)) continue;
    const id = fresh(p.id);
    requirements.push(derived(id, p));
    owner.set(p.id, id);
  }
  const unreported = grader.answer.filter((f) => !owner.has(`answer:${f.field}`));
  if (unreported.length > 0) {
    const id = fresh("report");
    requirements.push({
      kind: "report",
      id,
      fields: unreported.map((f) => f.field),
      predicates: unreported.map((f) => `answer:${f.field}`),
    });
    for (const f of unreported) owner.set(`answer:${f.field}`, id);
  }
  const unforbidden = grader.constraints.filter((c) => !owner.has(c.id));
  if (unforbidden.length > 0) {
    const id = fresh("stay_canonical");
    requirements.push({ kind: "stay_canonical", id, predicates: unforbidden.map((c) => c.id) });
    for (const c of unforbidden) owner.set(c.id, id);
  }
  const tag = <T extends { requirement?: string | undefined }>(item: T, key: string): T => {
    const r = owner.get(key);
    return r === undefined ? item : { ...item, requirement: r };
  };
  return {
    requirements,
    g1: grader.g1.map((p) => tag(p, p.id)),
    answer: grader.answer.map((f) => tag(f, `answer:${f.field}`)),
    constraints: grader.constraints.map((c) => tag(c, c.id)),
  };
}

/** The requirement a predicate no template statement names holds, read off the predicate. */
function derived(id: string, p: G1Predicate): Requirement {
  const predicates = [p.id];
  if (p.kind === "call" && p.sent && Object.keys(p.sent).length > 0) {
    const [key, value] = Object.entries(p.sent)[0] as [string, ExpectedValue];
    return { kind: "value_written", id, predicates, call: callOf(p), key, value, alternatives: [] };
  }
  if (p.kind === "call" && p.target !== undefined)
    return { kind: "exact_target", id, predicates, call: callOf(p), target: p.target, siblings: [] };
  if (p.kind === "call_count") {
    return {
      kind: "call_count",
      id,
      predicates,
      call: p.call,
      ...(p.min !== undefined ? { min: p.min } : {}),
      ...(p.max !== undefined ? { max: p.max } : {}),
    };
  }
  if (p.kind === "order")
    return {
      kind: "ordering",
      id,
      predicates,
      before: p.before,
      after: p.after,
      ...(p.min_wait_seconds !== undefined ? { min_wait_seconds: p.min_wait_seconds } : {}),
      ...(p.from_first_before ? { from_first_before: true as const } : {}),
      ...(p.same_record ? { same_record: true as const } : {}),
    };
  if (p.kind === "end_state")
    return { kind: "end_state", id, predicates, record: p.record, expect: p.expect };
  return { kind: "value_flow", id, predicates };
}

function callOf(p: Extract<G1Predicate, { kind: "call" }>) {
  return {
    url_pattern: p.url_pattern,
    ...(p.method !== undefined ? { method: p.method } : {}),
    ...(p.status !== undefined ? { status: p.status } : {}),
    ...(p.target !== undefined ? { target: p.target } : {}),
    ...(p.sent !== undefined ? { sent: p.sent } : {}),
  };
}

const WRITES = new Set(["PUT", "PATCH"]);
/** A minted-id canary named by creation order: `runs:id#3`. */
const CREATION_ORDER = /:id#\d+$/;

/**
 * What the generator refuses in a task's requirements and grader (issue 15), each finding one
 * sentence:
 * - a requirement no predicate holds, or naming a predicate, constraint or answer field the
 *   grader does not have (in its segment);
 * - a requirement whose sentence the ticket does not state (solo tasks: a chain's ticket states
 *   each segment in brief);
 * - an expected value naming a record by creation order (`runs:id#3`) instead of by its role;
 * - a PUT or PATCH check holding only keys, not the values written;
 * - a ticket sentence stating a requirement no predicate holds (`unbackedSentences`).
 *
 * @example requirementFindings(task) // [] for a sound task
 */
export function requirementFindings(task: Task): string[] {
  const out: string[] = [];
  const seg = (s: number | undefined) => (s === undefined ? "" : `@${s}`);
  const held = new Set<string>();
  for (const p of task.grader.g1) held.add(`${p.id}${seg(p.segment)}`);
  for (const c of task.grader.constraints) held.add(`${c.id}${seg(c.segment)}`);
  for (const f of task.grader.answer) held.add(`answer:${f.field}${seg(f.segment)}`);
  // Constraints are shared by a chain's segments: one may be named from any segment.
  const constraintIds = new Set(task.grader.constraints.map((c) => c.id));
  for (const r of task.requirements ?? []) {
    const where = `requirement ${r.id}${r.segment ? ` (segment ${r.segment})` : ""}`;
    if (r.predicates.length === 0) out.push(`${where} has no predicate that holds it`);
    for (const name of r.predicates)
      if (!held.has(`${name}${seg(r.segment)}`) && !constraintIds.has(name))
        out.push(`${where} names ${name}, which the grader does not have`);
    if (task.kind === "solo" && r.sentence !== undefined && !task.ticket.includes(r.sentence))
      out.push(`${where}: the ticket does not state "${r.sentence}"`);
  }
  if (!task.requirements || task.requirements.length === 0)
    out.push("the task states no requirement as data");
  const creationOrder = (value: unknown): boolean => {
    if (value === null || typeof value !== "object") return false;
    if (Array.isArray(value)) return value.some(creationOrder);
    const c = (value as { $canary?: unknown }).$canary;
    if (typeof c === "string" && CREATION_ORDER.test(c)) return true;
    return Object.values(value).some(creationOrder);
  };
  for (const f of task.grader.answer)
    if (creationOrder(f.expected)) out.push(`answer field ${f.field} expects an id by creation order`);
  for (const p of task.grader.g1) {
    if (creationOrder(p)) out.push(`${p.kind} ${p.id} names a record by creation order`);
    if (p.kind !== "call" || !WRITES.has((p.method ?? "").toUpperCase())) continue;
    if (!p.sent || Object.keys(p.sent).length === 0)
      out.push(`call ${p.id} checks a ${p.method} by its keys only, not the values written`);
  }
  if (creationOrder(task.requirements ?? [])) out.push("a requirement names a record by creation order");
  // Every ticket sentence that demands something is a held requirement's sentence (or brief).
  out.push(...unbackedSentences(task));
  return out;
}
