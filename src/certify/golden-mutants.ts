import type { JsonValue } from "../bank/json.js";
import { wholePlaceholder } from "../bank/placeholder-grammar.js";
import type { CallMatch, ExpectedValue, GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { resolveCanaries } from "../world/canary.js";
import { chainSegments, decoyVersion, occursAsToken } from "./certify-kit.js";
import {
  capturesUsedLater,
  dependsOn,
  failedInGolden,
  hasSegment,
  headerName,
  repeated,
  resourceOfId,
  resourceOfParam,
  retargeted,
  type StepFacts,
  seededIds,
  stepFacts,
  variedSteps,
  WAIT_HEADER,
  withoutHeader,
} from "./golden-edits.js";

/** How a mutant breaks the golden (the five operators, plus the card and decoy for requirements of those kinds). */
export type MutationOperator =
  | "other_value"
  | "sibling_target"
  | "repeat"
  | "drop_step"
  | "drop_wait"
  | "swap"
  | "wrong_card"
  | "decoy_read";

/**
 * The golden broken in one requirement alone. `steps(seed)` is what the mutant plays (values the
 * world mints per trial resolved for the trial seed), `card` an edit of the card it answers with.
 * `requirement` and `names` are set when the mutant was derived from a requirement of the task:
 * it is killed only when a failing predicate, card field (`answer:<field>`) or constraint of
 * `names` fails. Without requirements (banks from before them) mutants are derived per golden step
 * and any failure kills them.
 */
export interface GoldenMutant {
  name: string;
  operator: MutationOperator;
  /** 1-based golden step the mutation is made at. */
  step: number;
  requirement?: string;
  names?: string[];
  steps(seed: string): GoldenStep[];
  card?(card: Record<string, JsonValue>): Record<string, JsonValue>;
}

/** The task's requirements, when the bank states them (banks from before requirements have none). */
export function requirementsOf(task: Task): Requirement[] {
  return task.requirements ?? [];
}

/**
 * Every mutant of a task's golden: one or more per requirement when the task states its
 * requirements, else per golden step (see `stepMutants`).
 *
 * @example goldenMutants(world, task).map((m) => m.name) // ["other_value@4:status", "sibling_target@4", …]
 */
export function goldenMutants(
  world: World,
  task: Task,
  statuses: ReadonlyArray<number | undefined> = [],
): GoldenMutant[] {
  const requirements = requirementsOf(task);
  return requirements.length > 0
    ? requirementMutants(world, task, requirements, statuses)
    : stepMutants(world, task, statuses);
}

const fixed = (steps: GoldenStep[]) => () => steps;
const replaced = (golden: readonly GoldenStep[], at: number, by: GoldenStep[]) => [
  ...golden.slice(0, at),
  ...by,
  ...golden.slice(at + 1),
];

/**
 * Mutants per golden step, for banks without requirements as data:
 *
 * - `other_value@N:key` — a write's literal body value that the ticket names replaced by another
 *   value the API accepts (a sibling record's id, another enum value or seeded value, n+1, not b);
 * - `sibling_target@N` — a write aimed at another record of the same collection (the read-backs
 *   after it follow);
 * - `repeat@N` — a create sent twice (an async job's submit, poll and confirm run twice);
 * - `drop_step@N` — a write, read or store whose captures nothing later needs, left out (not one
 *   of two identical reads or polls with no write between them);
 * - `drop_wait@N` — a step's logical wait (`x-apiflow-wait`) left out;
 * - `swap@N` — a write and the next step on the same record swapped (when neither needs the other's values).
 *
 * Steps whose call fails in the golden run (`statuses`, from its log) are not mutated.
 */
export function stepMutants(
  world: World,
  task: Task,
  statuses: ReadonlyArray<number | undefined> = [],
): GoldenMutant[] {
  const facts = stepFacts(world, task, statuses);
  const golden = task.golden;
  const out: GoldenMutant[] = [];
  const { start, end } = variedSteps(task);
  for (const f of facts.slice(start, end)) {
    const n = f.index + 1;
    // A call the golden itself sees fail (the broken first attempt, the 429 waited out) is no requirement.
    if (failedInGolden(f)) continue;
    if (f.write && f.rest) {
      for (const m of valueMutants(world, task, f)) out.push(m);
      const sibling = siblingMutant(world, golden, facts, f);
      if (sibling) out.push(sibling);
      if (f.route?.action === "create" && f.route.partial_write === undefined) {
        const group = mintGroup(facts, f);
        const last = group[group.length - 1] as StepFacts;
        out.push({
          name: `repeat@${n}`,
          operator: "repeat",
          step: n,
          steps: fixed([
            ...golden.slice(0, last.index + 1),
            ...repeated(group.map((g) => g.step)),
            ...golden.slice(last.index + 1),
          ]),
        });
      }
    }
    if (
      (f.rest && !f.token && !capturesUsedLater(facts, f) && !sentAgain(facts, f)) ||
      f.step.op === "store"
    ) {
      out.push({
        name: `drop_step@${n}`,
        operator: "drop_step",
        step: n,
        steps: fixed(golden.filter((_, i) => i !== f.index)),
      });
    }
    if (f.rest && headerName(f.rest, WAIT_HEADER)) {
      out.push({
        name: `drop_wait@${n}`,
        operator: "drop_wait",
        step: n,
        steps: fixed(replaced(golden, f.index, [withoutHeader(f.rest, WAIT_HEADER)])),
      });
    }
    const next = facts.slice(f.index + 1).find((g) => g.rest !== null || g.step.op === "execute_native");
    if (
      f.rest &&
      next?.rest &&
      sameRecordOrdered(f, next) &&
      !dependsOn(next, f) &&
      !sentAgain(facts, f) &&
      !sentAgain(facts, next)
    ) {
      const swapped = [...golden];
      swapped[f.index] = next.step;
      swapped[next.index] = f.step;
      out.push({ name: `swap@${n}`, operator: "swap", step: n, steps: fixed(swapped) });
    }
  }
  return out;
}

/**
 * Whether the same request (method and URL) is sent again with no write in between: of two
 * polls (or two reads) of one state, one is not required.
 */
function sentAgain(facts: readonly StepFacts[], f: StepFacts): boolean {
  const r = f.rest?.request;
  if (!r) return false;
  return facts.some((g) => {
    if (g.index === f.index || g.rest?.request.method !== r.method || g.rest.request.url !== r.url)
      return false;
    const [lo, hi] = g.index < f.index ? [g.index, f.index] : [f.index, g.index];
    return !facts.slice(lo + 1, hi).some((h) => h.write);
  });
}

/** Two steps whose order the world's state makes matter: one writes, and both act on one path (or one under the other). */
function sameRecordOrdered(a: StepFacts, b: StepFacts): boolean {
  if (!(a.write || b.write) || a.token || b.token) return false;
  return a.path === b.path || a.path.startsWith(`${b.path}/`) || b.path.startsWith(`${a.path}/`);
}

/** A create and, for an async job, the steps that poll and confirm it (those using what it captured). */
function mintGroup(facts: readonly StepFacts[], create: StepFacts): StepFacts[] {
  if (!create.route?.async_job) return [create];
  const group = [create];
  for (const f of facts.slice(create.index + 1)) {
    if (f.rest && group.some((g) => dependsOn(f, g)) && f.route?.action?.startsWith("job_")) group.push(f);
  }
  return group;
}

/** `other_value` mutants of a write: each top-level literal body value the ticket names. */
function valueMutants(world: World, task: Task, f: StepFacts): GoldenMutant[] {
  const body = f.rest?.request.body;
  if (!f.rest || body === null || typeof body !== "object" || Array.isArray(body)) return [];
  const out: GoldenMutant[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (value === null || typeof value === "object") continue;
    if (typeof value === "string" && wholePlaceholder(value) !== null) continue;
    if (!occursAsToken(task.ticket, String(value))) continue;
    const other = otherValue(world, f, key, value);
    if (other === undefined) continue;
    const step: GoldenStep = { ...f.rest, request: { ...f.rest.request, body: { ...body, [key]: other } } };
    out.push({
      name: `other_value@${f.index + 1}:${key}`,
      operator: "other_value",
      step: f.index + 1,
      steps: fixed(replaced(task.golden, f.index, [step])),
    });
  }
  return out;
}

/**
 * Another value the API accepts at a body key: a sibling's id for a record id, another value of
 * the validator's enum, another value the collection's records hold, n+1 for a number, not b.
 */
export function otherValue(world: World, f: StepFacts, key: string, value: JsonValue): JsonValue | undefined {
  const idOf = resourceOfId(world, value);
  if (idOf) return seededIds(world, idOf).find((id) => id !== value);
  const enumValues = f.route?.validator?.fields[key]?.enum;
  const fromEnum = enumValues?.find((v) => v !== value);
  if (fromEnum !== undefined) return fromEnum;
  if (enumValues) return undefined;
  const resource = f.route ? world.resources[f.route.resource] : undefined;
  const held = resource?.records
    .map((r) => r[key])
    .find((v) => v !== undefined && v !== null && typeof v === typeof value && v !== value);
  if (held !== undefined) return held;
  if (typeof value === "number") return Number.isInteger(value) ? value + 1 : value * 2;
  if (typeof value === "boolean") return !value;
  return undefined;
}

/** The write aimed at another record of its collection; the later steps on the same record follow it. */
function siblingMutant(
  world: World,
  golden: readonly GoldenStep[],
  facts: readonly StepFacts[],
  f: StepFacts,
): GoldenMutant | null {
  if (!f.route) return null;
  for (const [param, written] of Object.entries(f.params)) {
    const resource = resourceOfParam(world, f.route, param);
    if (!resource) continue;
    const sibling = seededIds(world, resource).find((id) => id !== written);
    if (!sibling) continue;
    const steps = golden.map((s, i) =>
      i === f.index || (i > f.index && facts[i]?.rest && hasSegment(s, written))
        ? retargeted(s, written, sibling)
        : s,
    );
    return {
      name: `sibling_target@${f.index + 1}`,
      operator: "sibling_target",
      step: f.index + 1,
      steps: fixed(steps),
    };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Mutants per requirement: each breaks that requirement alone, and must fail naming it.

function matchesCall(f: StepFacts, call: CallMatch | undefined): boolean {
  if (!call || !f.rest) return false;
  if (call.method && call.method.toUpperCase() !== f.rest.request.method.toUpperCase()) return false;
  try {
    return new RegExp(call.url_pattern).test(f.rest.request.url);
  } catch {
    return false;
  }
}

/**
 * Mutants derived from the task's requirements (see `RequirementSchema`): another value written,
 * a sibling targeted, the call repeated or dropped, the ordered steps swapped or the wait dropped,
 * the end state left as it was, a card field wrong, a decoy read. A requirement the golden offers
 * no step to break yields no mutant (the gate fails it as `no_mutant:<kind>`).
 */
export function requirementMutants(
  world: World,
  task: Task,
  requirements: readonly Requirement[],
  statuses: ReadonlyArray<number | undefined> = [],
): GoldenMutant[] {
  const facts = stepFacts(world, task, statuses);
  const golden = task.golden;
  const out: GoldenMutant[] = [];
  const add = (r: Requirement, m: Omit<GoldenMutant, "requirement" | "names">) =>
    out.push({ ...m, name: `${r.id}:${m.name}`, requirement: r.id, names: r.predicates });
  const inSegment = (r: Requirement) => (f: StepFacts) =>
    r.segment === undefined || segmentOf(task, f.index) === r.segment;
  const varied = variedSteps(task);
  for (const r of requirements) {
    if (task.kind === "chain" && r.segment !== undefined && r.segment !== varied.position) continue;
    const steps = facts.filter((f) => inSegment(r)(f) && !failedInGolden(f));
    switch (r.kind) {
      case "value_written": {
        const key = r.key;
        const f = steps.find((s) => matchesCall(s, r.call) && bodyKey(s, key) !== undefined);
        if (!f?.rest) break;
        const alt = r.alternatives.find(playable) ?? otherValue(world, f, key, bodyKey(f, key) as JsonValue);
        if (alt === undefined) break;
        const rest = f.rest;
        add(r, {
          name: `other_value@${f.index + 1}:${key}`,
          operator: "other_value",
          step: f.index + 1,
          steps: (seed) => {
            const body = {
              ...(rest.request.body as Record<string, JsonValue>),
              [key]: resolveCanaries(alt, seed),
            };
            return replaced(golden, f.index, [{ ...rest, request: { ...rest.request, body } }]);
          },
        });
        break;
      }
      case "exact_target": {
        const f = steps.find((s) => matchesCall(s, r.call));
        if (!f?.rest) break;
        const sibling = r.siblings.find(playable);
        if (sibling === undefined) {
          const m = siblingMutant(world, golden, facts, f);
          if (m) add(r, m);
          break;
        }
        const written = Object.values(f.params).at(-1);
        if (written === undefined) break;
        add(r, {
          name: `sibling_target@${f.index + 1}`,
          operator: "sibling_target",
          step: f.index + 1,
          steps: (seed) => {
            const to = String(resolveCanaries(sibling, seed));
            return golden.map((s, i) =>
              i === f.index || (i > f.index && hasSegment(s, written)) ? retargeted(s, written, to) : s,
            );
          },
        });
        break;
      }
      case "call_count": {
        const f = steps.find((s) => matchesCall(s, r.call));
        if (!f) break;
        if (r.max !== undefined) {
          // A job's poll or confirm is repeated with its submit: the whole job runs twice.
          const create = facts.find((c) => c.route?.action === "create" && mintGroup(facts, c).includes(f));
          const group = create ? mintGroup(facts, create) : [f];
          const last = group[group.length - 1] as StepFacts;
          add(r, {
            name: `repeat@${(group[0] as StepFacts).index + 1}`,
            operator: "repeat",
            step: (group[0] as StepFacts).index + 1,
            steps: fixed([
              ...golden.slice(0, last.index + 1),
              ...repeated(group.map((g) => g.step)),
              ...golden.slice(last.index + 1),
            ]),
          });
        } else add(r, dropMutant(golden, f));
        break;
      }
      case "ordering": {
        const after = steps.find((s) => matchesCall(s, r.after));
        const before = steps.find((s) => matchesCall(s, r.before) && (!after || s.index < after.index));
        if (!after || !before) break;
        if (r.min_wait_seconds !== undefined) {
          const waiting = steps.find(
            (s) =>
              s.index > before.index && s.index <= after.index && s.rest && headerName(s.rest, WAIT_HEADER),
          );
          if (waiting?.rest) {
            add(r, {
              name: `drop_wait@${waiting.index + 1}`,
              operator: "drop_wait",
              step: waiting.index + 1,
              steps: fixed(replaced(golden, waiting.index, [withoutHeader(waiting.rest, WAIT_HEADER)])),
            });
            break;
          }
        }
        if (!dependsOn(after, before)) {
          const swapped = [...golden];
          swapped[before.index] = after.step;
          swapped[after.index] = before.step;
          add(r, {
            name: `swap@${before.index + 1}`,
            operator: "swap",
            step: before.index + 1,
            steps: fixed(swapped),
          });
        } else add(r, dropMutant(golden, before));
        break;
      }
      case "end_state": {
        const resource = r.record.resource;
        const writes = steps.filter((s) => s.write && s.route?.resource === resource);
        const field = r.expect.is === "field" ? r.expect.field : undefined;
        const valued = field ? writes.find((s) => bodyKey(s, field) !== undefined) : undefined;
        if (valued?.rest && field) {
          const alt = otherValue(world, valued, field, bodyKey(valued, field) as JsonValue);
          if (alt !== undefined) {
            const rest = valued.rest;
            const body = { ...(rest.request.body as Record<string, JsonValue>), [field]: alt };
            add(r, {
              name: `other_value@${valued.index + 1}:${field}`,
              operator: "other_value",
              step: valued.index + 1,
              steps: fixed(replaced(golden, valued.index, [{ ...rest, request: { ...rest.request, body } }])),
            });
            break;
          }
        }
        const last = writes.at(-1);
        if (last) add(r, dropMutant(golden, last));
        break;
      }
      case "report": {
        for (const field of r.fields)
          add(r, {
            name: `wrong_card:${field}`,
            operator: "wrong_card",
            step: golden.length,
            steps: fixed([...golden]),
            card: (card) => ({ ...card, [field]: wrongValue(card[field]) }),
          });
        break;
      }
      case "stay_canonical": {
        for (const f of steps) {
          const decoy = decoyVersion(world, f.step);
          if (!decoy) continue;
          add(r, {
            name: `decoy_read@${f.index + 1}`,
            operator: "decoy_read",
            step: f.index + 1,
            steps: fixed(replaced(golden, f.index, [decoy])),
          });
          break;
        }
        break;
      }
      case "value_flow": {
        // The value typed in instead of carried: the use gets a fabricated value of the same
        // shape; a value that flows only to the card is reported wrong there.
        const f = steps.find((s) => s.rest && s.uses.length > 0 && !s.token && s.write);
        const used = f?.uses.find((u) => !headerUse(f, u));
        if (!f?.rest || !used) {
          const field = task.grader.g1.find(
            (p) => p.kind === "data_flow" && r.predicates.includes(p.id) && p.answer_field !== undefined,
          );
          const name = field?.kind === "data_flow" ? field.answer_field : undefined;
          if (name)
            add(r, {
              name: `wrong_card:${name}`,
              operator: "wrong_card",
              step: golden.length,
              steps: fixed([...golden]),
              card: (card) => ({ ...card, [name]: wrongValue(card[name]) }),
            });
          break;
        }
        add(r, {
          name: `fabricated@${f.index + 1}:${used}`,
          operator: "other_value",
          step: f.index + 1,
          steps: fixed(replaced(golden, f.index, [fabricated(f.rest, used)])),
        });
        break;
      }
    }
  }
  return out;
}

function dropMutant(
  golden: readonly GoldenStep[],
  f: StepFacts,
): Omit<GoldenMutant, "requirement" | "names"> {
  return {
    name: `drop_step@${f.index + 1}`,
    operator: "drop_step",
    step: f.index + 1,
    steps: fixed(golden.filter((_, i) => i !== f.index)),
  };
}

/** A value a mutant can send: a literal or a canary (minted per trial), not a record reference (known only at the end). */
function playable(v: ExpectedValue): boolean {
  return v === null || typeof v !== "object" || Array.isArray(v) || !Object.hasOwn(v, "$record");
}

function bodyKey(f: StepFacts, key: string | undefined): JsonValue | undefined {
  const body = f.rest?.request.body;
  if (!key || body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  return (body as Record<string, JsonValue>)[key];
}

function headerUse(f: StepFacts, name: string): boolean {
  return Object.values(f.rest?.request.headers ?? {}).some((v) => v.includes(`{{${name}}}`));
}

/** The request with every use of a binding replaced by a literal that looks like it but was never shown. */
function fabricated(step: GoldenStep & { op: "execute" }, name: string): GoldenStep {
  const text = JSON.stringify(step.request).replaceAll(`{{${name}}}`, "FABRICATED-0000");
  return { ...step, request: JSON.parse(text) };
}

function wrongValue(v: JsonValue | undefined): JsonValue {
  if (typeof v === "number") return v + 1000;
  if (typeof v === "boolean") return !v;
  return `${String(v ?? "")}-wrong`;
}

/** The chain position a golden step belongs to (solo tasks: their one position). */
function segmentOf(task: Task, index: number): number | undefined {
  if (task.kind !== "chain") return task.positions[0];
  // Steps are attributed by the segment their answer values close (see chainSegments); a step
  // past the last boundary belongs to the final segment.
  return (
    segmentBoundaries(task).find((s) => index >= s.start && index < s.end)?.position ?? task.positions.at(-1)
  );
}

const boundaries = new WeakMap<Task, Array<{ position: number; start: number; end: number }>>();
function segmentBoundaries(task: Task): Array<{ position: number; start: number; end: number }> {
  let b = boundaries.get(task);
  if (!b) {
    const r = chainSegments(task);
    b = r.success ? r.data : [];
    boundaries.set(task, b);
  }
  return b;
}
