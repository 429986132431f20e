import type { JsonValue } from "../bank/json.js";
import { lastKey } from "../bank/key-path.js";
import { wholePlaceholder } from "../bank/placeholder-grammar.js";
import type {
  CallMatch,
  ExpectedValue,
  G1Predicate,
  GoldenStep,
  Requirement,
  Task,
} from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { resolveCanaries } from "../world/canary.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { convertStep } from "../world/protocol-step.js";
import { chainSegments, isSendStep, occursAsToken, renamePlaceholder } from "./certify-kit.js";
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
  withBodyValue,
  withoutCaptures,
  withoutHeader,
} from "./golden-edits.js";
import { restOf } from "./native-rest.js";

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
  /** The chain segment of the requirement (its results are named `<id>@<segment>`). */
  segment?: number;
  steps(seed: string): GoldenStep[];
  card?(card: Record<string, JsonValue>): Record<string, JsonValue>;
}

/** The task's requirements, when the bank states them (banks from before requirements have none). */
export function requirementsOf(task: Task): Requirement[] {
  return task.requirements ?? [];
}

/**
 * The requirements the gate mutates: all of a solo task's; of a chain, those of its varied (last)
 * segment (see `variedSteps`: the chain one position shorter covers the segment before, the solo
 * task of position 1 the first).
 */
export function mutatedRequirements(task: Task): Requirement[] {
  const all = requirementsOf(task);
  if (task.kind !== "chain") return all;
  const { position } = variedSteps(task);
  return all.filter((r) => r.segment === undefined || r.segment === position);
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
  exchanges: ReadonlyArray<ExchangeEvent | undefined> = [],
): GoldenMutant[] {
  const requirements = requirementsOf(task);
  return requirements.length > 0
    ? requirementMutants(world, task, requirements, statuses, exchanges)
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
    if (f.send && group.some((g) => dependsOn(f, g)) && f.route?.action?.startsWith("job_")) group.push(f);
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
 * the validator's enum, another value the collection's records hold, a value the world states for
 * the field (a create route's default, the field's documented `one of a, b`), n+1 for a number, not b.
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
  const stated = statedValues(world, f.route?.resource, key).find(
    (v) => v !== value && typeof v === typeof value,
  );
  if (stated !== undefined) return stated;
  if (typeof value === "number") return Number.isInteger(value) ? value + 1 : value * 2;
  if (typeof value === "boolean") return !value;
  return undefined;
}

/** Values the world states for a resource's field: its create routes' defaults, then the `one of a, b, c` its description lists. */
function statedValues(world: World, resource: string | undefined, key: string): JsonValue[] {
  if (!resource) return [];
  const out: JsonValue[] = [];
  for (const route of world.routes) {
    const d = route.resource === resource ? route.defaults[key] : undefined;
    if (d !== undefined && d !== null && typeof d !== "object") out.push(d);
  }
  const listed = world.resources[resource]?.fields[key]?.description?.match(/one of ([\w-]+(?:, [\w-]+)*)/i);
  if (listed?.[1]) out.push(...listed[1].split(", "));
  return out;
}

/** The write aimed at another record of its collection; the later steps on the same record follow it. */
function siblingMutant(
  world: World,
  golden: readonly GoldenStep[],
  facts: readonly StepFacts[],
  f: StepFacts,
  meant?: Record<string, unknown>,
): GoldenMutant | null {
  if (!f.route) return null;
  for (const [param, written] of Object.entries(f.params)) {
    const resource = resourceOfParam(world, f.route, param);
    if (!resource) continue;
    const sibling = siblingIds(world, resource, meant).find((id) => id !== written);
    if (!sibling) continue;
    const steps = golden.map((s, i) =>
      i === f.index || (i > f.index && facts[i]?.send && hasSegment(s, written))
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

/** A REST call the mutant adds, as the world serves it: a GraphQL or MCP world's field or tool. */
function inWorldProtocol(world: World, rest: GoldenStep, where: string): GoldenStep | string {
  const protocol = world.protocol;
  return protocol === "graphql" || protocol === "mcp" ? convertStep(world, protocol, rest, where) : rest;
}

/**
 * Right after write `f`, the same write aimed at another record of its collection too (a sibling
 * deleted as well): a seeded sibling, else the first record the collection's listing then shows
 * (a world whose records of the kind were all opened during the storyline).
 */
function siblingAlsoMutant(world: World, golden: readonly GoldenStep[], f: StepFacts): GoldenMutant | null {
  const send = f.send;
  if (!f.route || !send) return null;
  for (const [param, written] of Object.entries(f.params)) {
    const resource = resourceOfParam(world, f.route, param);
    if (!resource) continue;
    const seeded = siblingIds(world, resource, undefined).find((id) => id !== written);
    const list = world.routes.find(
      (r) => r.resource === resource && r.action === "list" && r.method === "GET" && r.status === "canonical",
    );
    const listed = "sibling__also";
    const listing =
      list && !list.path.includes("{")
        ? inWorldProtocol(
            world,
            {
              op: "execute",
              request: { method: "GET", url: list.path, headers: send.request.headers ?? {} },
              capture: { [listed]: `${resource}.${world.resources[resource]?.id_field}` },
            },
            `sibling_also@${f.index + 1}`,
          )
        : null;
    const extra: GoldenStep[] = seeded
      ? [retargeted(withoutCaptures(send), written, seeded)]
      : listing && typeof listing !== "string"
        ? [listing, retargeted(withoutCaptures(send), written, `{{${listed}}}`)]
        : [];
    if (extra.length === 0) continue;
    return {
      name: `sibling_also@${f.index + 1}`,
      operator: "sibling_target",
      step: f.index + 1,
      steps: fixed([...golden.slice(0, f.index + 1), ...extra, ...golden.slice(f.index + 1)]),
    };
  }
  return null;
}

/**
 * Seeded ids of a resource, without the records a selector's `where` picks (the record the ticket
 * means, when the golden names it through a variable): plain values compared as they are.
 */
function siblingIds(world: World, resource: string, meant: Record<string, unknown> | undefined): string[] {
  const r = world.resources[resource];
  if (!r) return [];
  const plain = Object.entries(meant ?? {}).filter(([, v]) => v === null || typeof v !== "object");
  return r.records
    .filter((rec) => plain.length === 0 || !plain.every(([k, v]) => rec[k] === v))
    .map((rec) => rec[r.id_field])
    .filter((v): v is string => typeof v === "string");
}

// ---------------------------------------------------------------------------------------------
// Mutants per requirement: each breaks that requirement alone, and must fail naming it.

/**
 * Whether a golden step sends the call a requirement means: its method, and its URL — as the
 * golden run sent it (placeholders resolved) when known, else as the golden writes it.
 */
function matchesCall(f: StepFacts, call: CallMatch | undefined): boolean {
  if (!call || !f.send) return false;
  const method = f.rest?.request.method ?? f.sentMethod ?? f.route?.method ?? "";
  if (call.method && call.method.toUpperCase() !== method.toUpperCase()) return false;
  const re = safePattern(call.url_pattern);
  return !!re && (re.test(f.sentUrl ?? "") || (!!f.rest && re.test(f.rest.request.url)));
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
  exchanges: ReadonlyArray<ExchangeEvent | undefined> = [],
): GoldenMutant[] {
  const facts = stepFacts(world, task, statuses, exchanges);
  const golden = task.golden;
  const out: GoldenMutant[] = [];
  const add = (r: Requirement, m: Omit<GoldenMutant, "requirement" | "names">) =>
    out.push({
      ...m,
      name: `${r.id}:${m.name}`,
      requirement: r.id,
      names: r.predicates,
      ...(r.segment !== undefined ? { segment: r.segment } : {}),
    });
  const inSegment = (r: Requirement) => (f: StepFacts) =>
    r.segment === undefined || segmentOf(task, f.index) === r.segment;
  const varied = variedSteps(task);
  for (const r of requirements) {
    if (task.kind === "chain" && r.segment !== undefined && r.segment !== varied.position) continue;
    const steps = facts.filter((f) => inSegment(r)(f) && !failedInGolden(f));
    switch (r.kind) {
      case "value_written": {
        if (r.in === "header") {
          const m = headerMutant(golden, steps, r);
          if (m) add(r, m);
          break;
        }
        const key = r.key;
        const f = steps.find((s) => matchesCall(s, r.call) && bodyKey(s, key) !== undefined);
        const send = f?.send;
        if (!f || !send) break;
        const alt = r.alternatives.find(playable) ?? otherValue(world, f, key, bodyKey(f, key) as JsonValue);
        if (alt === undefined) break;
        add(r, {
          name: `other_value@${f.index + 1}:${key}`,
          operator: "other_value",
          step: f.index + 1,
          steps: (seed) => replaced(golden, f.index, [withBodyValue(send, key, resolveCanaries(alt, seed))]),
        });
        break;
      }
      case "exact_target": {
        const f = steps.find((s) => matchesCall(s, r.call));
        if (!f?.send) break;
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
        // A delete sent twice finds its record gone (404): the extra one goes to a sibling.
        const also =
          r.max !== undefined && f.route?.action === "delete" ? siblingAlsoMutant(world, golden, f) : null;
        if (also) add(r, also);
        else if (r.max !== undefined) {
          // A job's poll or confirm is repeated with its submit: the whole job runs twice.
          const create = facts.find((c) => c.route?.action === "create" && mintGroup(facts, c).includes(f));
          add(r, repeatMutant(world, golden, facts, create ?? f, task.kind === "chain"));
        } else add(r, dropMutant(golden, f));
        break;
      }
      case "ordering": {
        const after = steps.find((s) => matchesCall(s, r.after));
        const before = steps.find((s) => matchesCall(s, r.before) && (!after || s.index < after.index));
        if (!after || !before) break;
        if (r.same_record) {
          const m = siblingBeforeMutant(golden, facts, steps, r, after);
          if (m) {
            add(r, m);
            break;
          }
        }
        if (r.min_wait_seconds !== undefined) {
          const waiting = steps.find(
            (s) =>
              s.index > before.index && s.index <= after.index && s.send && headerName(s.send, WAIT_HEADER),
          );
          if (waiting?.send) {
            add(r, {
              name: `drop_wait@${waiting.index + 1}`,
              operator: "drop_wait",
              step: waiting.index + 1,
              steps: fixed(replaced(golden, waiting.index, [withoutHeader(waiting.send, WAIT_HEADER)])),
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
        const m = endStateMutant(world, task, facts, steps, r);
        if (m) add(r, m);
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
        for (const m of forbiddenCallMutants(world, task, facts, r)) add(r, m);
        break;
      }
      case "value_flow": {
        const m = flowMutant(task, facts, new Set(steps.map((f) => f.index)), r);
        if (m) add(r, m);
        break;
      }
    }
  }
  return out;
}

/**
 * The `end_state` mutant: a record's field ends with another value (another value written, else
 * the write dropped); a record that must be gone stays (its delete aimed at a sibling, else
 * dropped); a number of records is moved (the create repeated when there is a most, else dropped).
 */
function endStateMutant(
  world: World,
  task: Task,
  facts: readonly StepFacts[],
  steps: readonly StepFacts[],
  r: Extract<Requirement, { kind: "end_state" }>,
): Omit<GoldenMutant, "requirement" | "names"> | null {
  const golden = task.golden;
  const resource = r.record.resource;
  const writes = steps.filter((s) => s.write && s.route?.resource === resource);
  switch (r.expect.is) {
    case "field": {
      const field = r.expect.field;
      const valued = writes.find((s) => bodyKey(s, field) !== undefined);
      if (valued?.send) {
        const alt = otherValue(world, valued, field, bodyKey(valued, field) as JsonValue);
        if (alt !== undefined)
          return {
            name: `other_value@${valued.index + 1}:${field}`,
            operator: "other_value",
            step: valued.index + 1,
            steps: fixed(replaced(golden, valued.index, [withBodyValue(valued.send, field, alt)])),
          };
      }
      const last = valued ?? writes.at(-1);
      return last ? dropMutant(golden, last) : null;
    }
    case "absent": {
      const removal = writes.find((s) => s.route?.action === "delete") ?? writes.at(-1);
      if (!removal) return null;
      return siblingMutant(world, golden, facts, removal, r.record.where) ?? dropMutant(golden, removal);
    }
    case "count": {
      const creates = writes.filter((s) => s.route?.action === "create");
      const create = creates[0];
      if (r.expect.max !== undefined && create)
        return repeatMutant(world, golden, facts, create, task.kind === "chain");
      const last = creates.at(-1) ?? writes.at(-1);
      return last ? dropMutant(golden, last) : null;
    }
  }
}

/**
 * A create sent once more (an async job's submit, poll and confirm run twice), right after the
 * first. In a chain, whose session has run long enough for its token to expire, the token the
 * create sends is minted again first (the steps after use the new one): by the last mint of that
 * token, sending the newest refresh token captured (a refresh token is single use under rotation,
 * so replaying the session's first grant would fail, the repeat would get 401 and the mutant
 * would break nothing).
 */
function repeatMutant(
  world: World,
  golden: readonly GoldenStep[],
  facts: readonly StepFacts[],
  create: StepFacts,
  chain = false,
): Omit<GoldenMutant, "requirement" | "names"> {
  const group = mintGroup(facts, create);
  const last = group[group.length - 1] as StepFacts;
  const mint = chain
    ? facts.findLast((f) => f.token && f.index < create.index && dependsOn(create, f))
    : undefined;
  return {
    name: `repeat@${create.index + 1}`,
    operator: "repeat",
    step: create.index + 1,
    steps: fixed([
      ...golden.slice(0, last.index + 1),
      ...(mint ? [withNewestRefreshToken(world, facts, mint, create.index)] : []),
      ...repeated(group.map((g) => g.step)),
      ...golden.slice(last.index + 1),
    ]),
  };
}

/**
 * A mint step whose body sends a refresh token from a placeholder, sending instead the refresh
 * token captured last before step `before` (the one a rotating token endpoint still accepts). A
 * GraphQL/MCP step is read as the REST call it stands for (its argument, its capture paths).
 */
function withNewestRefreshToken(
  world: World,
  facts: readonly StepFacts[],
  mint: StepFacts,
  before: number,
): GoldenStep {
  const asRest = (f: StepFacts) => {
    const r = f.send ? restOf(world, f.send) : null;
    return r?.op === "execute" ? r : null;
  };
  const sent = (asRest(mint)?.request.body as Record<string, JsonValue> | null | undefined)?.refresh_token;
  const from = typeof sent === "string" ? wholePlaceholder(sent) : null;
  if (!mint.send || from === null) return mint.step;
  const newest = facts
    .slice(0, before)
    .flatMap((f) =>
      Object.entries(asRest(f)?.capture ?? {})
        .filter(([, path]) => path === "refresh_token")
        .map(([name]) => name),
    )
    .at(-1);
  return newest === undefined ? mint.step : renamePlaceholder(mint.send, from, newest);
}

/**
 * The `ordering` mutant of a requirement whose `before` must address the record `after` does
 * (`same_record`): the record `after` addresses is minted once more right after the step that
 * minted it (its copy's bindings renamed), and every `before` call between them goes to that
 * sibling instead (a second job polled while the first, never polled, is confirmed).
 */
function siblingBeforeMutant(
  golden: readonly GoldenStep[],
  facts: readonly StepFacts[],
  steps: readonly StepFacts[],
  r: Extract<Requirement, { kind: "ordering" }>,
  after: StepFacts,
): Omit<GoldenMutant, "requirement" | "names"> | null {
  const minter = facts.findLast((f) => f.index < after.index && dependsOn(after, f) && !f.token);
  if (!minter) return null;
  const handles = minter.captures.filter((c) => after.uses.includes(c));
  const befores = steps.filter(
    (s) =>
      s.index > minter.index &&
      s.index < after.index &&
      matchesCall(s, r.before) &&
      handles.some((h) => s.uses.includes(h)),
  );
  if (handles.length === 0 || befores.length === 0) return null;
  const suffix = "__sibling";
  const moved = new Set(befores.map((b) => b.index));
  const out: GoldenStep[] = [];
  golden.forEach((s, i) => {
    out.push(moved.has(i) ? handles.reduce((acc, h) => renamePlaceholder(acc, h, `${h}${suffix}`), s) : s);
    if (i === minter.index) out.push(...repeated([s], suffix));
  });
  return {
    name: `sibling_before@${(befores[0] as StepFacts).index + 1}`,
    operator: "sibling_target",
    step: (befores[0] as StepFacts).index + 1,
    steps: fixed(out),
  };
}

/**
 * The `value_written` mutant of a header (an idempotency key the ticket names): the call sent
 * with one of the requirement's `alternatives` in that header instead.
 */
function headerMutant(
  golden: readonly GoldenStep[],
  steps: readonly StepFacts[],
  r: Extract<Requirement, { kind: "value_written" }>,
): Omit<GoldenMutant, "requirement" | "names"> | null {
  const lower = r.key.toLowerCase();
  const f = steps.find((s) => matchesCall(s, r.call) && s.send && headerName(s.send, lower));
  const alt = r.alternatives.find(playable);
  const send = f?.send;
  if (!f || !send || alt === undefined) return null;
  return {
    name: `other_value@${f.index + 1}:${r.key}`,
    operator: "other_value",
    step: f.index + 1,
    steps: (seed) => {
      const kept = withoutHeader(send, lower);
      const headers = { ...kept.request.headers, [r.key]: String(resolveCanaries(alt, seed)) };
      return replaced(golden, f.index, [{ ...kept, request: { ...kept.request, headers } } as GoldenStep]);
    },
  };
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

/** The value a golden step sends at a top-level body key: as written (REST), else as the golden run sent it. */
function bodyKey(f: StepFacts, key: string | undefined): JsonValue | undefined {
  const body = f.rest ? f.rest.request.body : f.sentBody;
  if (!key || body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  return (body as Record<string, JsonValue>)[key];
}

/** A literal that stands in for a value the agent was shown: it looks like an id but was never shown. */
const FABRICATED = "FABRICATED-0000";

/** The send step with every use of the bindings `names` replaced by a literal never shown. */
function fabricated(step: GoldenStep, names: ReadonlySet<string>): GoldenStep {
  if (step.op !== "execute" && step.op !== "execute_native") return step;
  let text = JSON.stringify(step.request);
  for (const n of names) text = text.replaceAll(`{{${n}}}`, FABRICATED);
  return { ...step, request: JSON.parse(text) } as GoldenStep;
}

/** A dotted body path without its array indices: `vessels.9.vessel_id` → `vessels.vessel_id`. */
function indexFree(path: string): string {
  return path
    .split(".")
    .filter((k) => !/^\d+$/.test(k))
    .join(".");
}

/** The G1 predicate `id` of the requirement's segment. */
function predicateOf(task: Task, r: Requirement, id: string) {
  return task.grader.g1.find(
    (p) => p.id === id && (r.segment === undefined || p.segment === undefined || p.segment === r.segment),
  );
}

/**
 * The `value_flow` mutant: the value the requirement traces is not carried where it must go.
 * - a data flow into a later request: every later use of the bindings that captured the value
 *   (and of variables stored from them) gets a fabricated literal instead;
 * - a data flow into a variable: the store is left out;
 * - a data flow into the card: the card field is wrong;
 * - a kept variable (`workspace_value`): the store is left out.
 */
function flowMutant(
  task: Task,
  facts: readonly StepFacts[],
  segment: ReadonlySet<number>,
  r: Requirement,
): Omit<GoldenMutant, "requirement" | "names"> | null {
  const golden = task.golden;
  for (const id of r.predicates) {
    const p = predicateOf(task, r, id);
    if (p?.kind === "covered") {
      const m = stoppedWalk(golden, facts, segment, p);
      if (m) return m;
      continue;
    }
    if (p?.kind === "workspace_value") {
      const stores = facts.filter((f) => f.step.op === "store" && f.step.name === p.name);
      const first = stores[0];
      if (!first) continue;
      return {
        name: `drop_store@${first.index + 1}`,
        operator: "drop_step",
        step: first.index + 1,
        steps: fixed(golden.filter((_, i) => !stores.includes(facts[i] as StepFacts))),
      };
    }
    if (p?.kind !== "data_flow") continue;
    const key = indexFree(p.from_body_key);
    const captures = facts.flatMap((f) =>
      isSendStep(f.step)
        ? Object.entries(f.step.capture)
            // A GraphQL/MCP capture path has the value under its envelope (`data.r.`, `structuredContent.`)
            // and a list's items under its own name (`nodes`): its last key is compared.
            .filter(
              ([, path]) => indexFree(path) === key || (!f.rest && lastKey(indexFree(path)) === lastKey(key)),
            )
            .map(([name]) => ({ f, name }))
        : [],
    );
    const from = safePattern(p.from_response_url_pattern);
    const atUrl = captures.filter(
      (c) => from?.test(c.f.sentUrl ?? "") || (!!c.f.rest && from?.test(c.f.rest.request.url)),
    );
    const inSegment = (cs: typeof captures) => {
      const here = cs.filter((c) => segment.has(c.f.index));
      return here.length > 0 ? here : cs;
    };
    const sources = inSegment(atUrl.length > 0 ? atUrl : captures);
    const first = sources[0];
    if (first) {
      const names = new Set(sources.map((c) => c.name));
      for (const f of facts)
        if (f.step.op === "store" && names.has(f.step.from) && f.index > first.f.index)
          names.add(f.step.name);
      // In a chain, the uses of the binding count from its first capture in any segment: a binding
      // an earlier segment captured under the same name (a rotated refresh token, a shared token)
      // and sent is broken too, or it alone would hold the flow.
      // An earlier segment's sends of the same binding (a shared token) may hold the flow as well.
      const since =
        task.kind === "chain"
          ? Math.min(first.f.index, ...captures.filter((c) => names.has(c.name)).map((c) => c.f.index))
          : first.f.index;
      const uses = facts.filter(
        (f) =>
          (f.index > since || (task.kind === "chain" && segment.has(f.index))) &&
          isSendStep(f.step) &&
          f.uses.some((u) => names.has(u)),
      );
      if (p.used_in_request_url_pattern !== null && uses.length > 0) {
        const at = uses[0] as StepFacts;
        return {
          name: `fabricated@${at.index + 1}:${first.name}`,
          operator: "other_value",
          step: at.index + 1,
          steps: fixed(golden.map((s) => (uses.some((u) => u.step === s) ? fabricated(s, names) : s))),
        };
      }
      const stores = facts.filter(
        (f) => f.step.op === "store" && f.index > first.f.index && names.has(f.step.from),
      );
      const store = stores[0];
      if (p.must_be_stored && store) {
        return {
          name: `drop_store@${store.index + 1}`,
          operator: "drop_step",
          step: store.index + 1,
          steps: fixed(golden.filter((_, i) => !stores.includes(facts[i] as StepFacts))),
        };
      }
    }
    const field = p.answer_field;
    if (field !== undefined)
      return {
        name: `wrong_card:${field}`,
        operator: "wrong_card",
        step: golden.length,
        steps: fixed([...golden]),
        card: (card) => ({ ...card, [field]: wrongValue(card[field]) }),
      };
  }
  return null;
}

/**
 * The `covered` mutant, "stop after the winner's page": the listing steps of the segment after the
 * last one whose captures a step outside the walks consumes (the page the winner or runner-up was
 * taken from) are dropped, so the walk never reaches the end; in a chain, the same pages read by
 * another segment's walk are dropped too (else that walk shows the records and holds the
 * requirement). None when that page is the last, or when a page to drop is one whose value
 * another step needs (the requirement is then held by that page, legitimately).
 */
function stoppedWalk(
  golden: Task["golden"],
  facts: readonly StepFacts[],
  segment: ReadonlySet<number>,
  p: Extract<G1Predicate, { kind: "covered" }>,
): Omit<GoldenMutant, "requirement" | "names"> | null {
  const urls = p.url_patterns.map(safePattern);
  const sends = (f: StepFacts) =>
    urls.some((u) => !!u && (u.test(f.sentUrl ?? "") || (!!f.rest && u.test(f.rest.request.url))));
  const walks = facts.filter((f) => isSendStep(f.step) && sends(f));
  const inWalks = new Set(walks.map((f) => f.index));
  const consumed = new Set<string>();
  for (const f of facts) {
    if (inWalks.has(f.index)) continue;
    for (const u of f.uses) consumed.add(u);
    if (f.step.op === "answer") for (const b of Object.values(f.step.fields)) consumed.add(b);
  }
  const walk = walks.filter((f) => segment.has(f.index));
  const used = walk.filter((f) => f.captures.some((c) => consumed.has(c))).at(-1);
  if (!used) return null;
  const after = walk.filter((f) => f.index > used.index);
  // Another segment's walk of the same listing (any page, any page size) shows the same records and
  // would hold the requirement for this one: a stopped walk drops those reads too.
  const dropped = [...after, ...walks.filter((f) => !segment.has(f.index))];
  const gone = new Set(dropped.map((f) => f.index));
  const lost = new Set(dropped.flatMap((f) => f.captures));
  const kept = facts.filter((f) => !gone.has(f.index));
  if (dropped.some((f) => f.captures.some((c) => consumed.has(c)))) return null;
  if (kept.some((f) => f.uses.some((u) => lost.has(u)))) return null;
  const first = after[0];
  if (first === undefined) return null;
  return {
    name: `stopped_walk@${first.index + 1}`,
    operator: "drop_step",
    step: first.index + 1,
    steps: fixed(golden.filter((_, i) => !gone.has(i))),
  };
}

function safePattern(source: string): RegExp | null {
  try {
    return new RegExp(source);
  } catch {
    return null;
  }
}

/**
 * `stay_canonical` mutants: per forbid constraint the requirement names, the golden with one call
 * more, to a route of the world the constraint forbids (a deprecated or look-alike family), sent
 * with the headers of the golden's last call right before the answer.
 */
function forbiddenCallMutants(
  world: World,
  task: Task,
  facts: readonly StepFacts[],
  r: Requirement,
): Array<Omit<GoldenMutant, "requirement" | "names">> {
  const golden = task.golden;
  const answerAt = golden.findIndex((s) => s.op === "answer");
  const at = answerAt < 0 ? golden.length : answerAt;
  const last = facts
    .slice(0, at)
    .reverse()
    .find((f) => f.send && !f.token);
  const headers = last?.send?.request.headers ?? {};
  const out: Array<Omit<GoldenMutant, "requirement" | "names">> = [];
  for (const id of r.predicates) {
    const c = task.grader.constraints.find((k) => k.id === id);
    if (!c) continue;
    const url = forbiddenUrl(world, c.url_pattern, c.method);
    if (!url) continue;
    const rest: GoldenStep = {
      op: "execute",
      request: {
        method: url.method,
        url: url.path,
        headers,
        ...(url.method === "GET" || url.method === "DELETE" ? {} : { body: {} }),
      },
      capture: {},
    };
    const call = inWorldProtocol(world, rest, c.id);
    if (typeof call === "string") continue;
    out.push({
      name: `forbidden_call:${c.id}`,
      operator: "decoy_read",
      step: at + 1,
      steps: fixed([...golden.slice(0, at), call, ...golden.slice(at)]),
    });
  }
  return out;
}

/**
 * A concrete request to a route of the world that a forbid constraint's pattern matches (path
 * parameters filled with seeded ids), reads first; null when no route matches.
 */
export function forbiddenUrl(
  world: World,
  pattern: string,
  method: string | undefined,
): { method: string; path: string } | null {
  const re = safePattern(pattern);
  if (!re) return null;
  const routes = world.routes
    .filter((route) => !method || route.method.toUpperCase() === method.toUpperCase())
    .sort((a, b) => Number(b.method === "GET") - Number(a.method === "GET"));
  for (const route of routes) {
    const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    const choices = (param: string) => {
      const resource = resourceOfParam(world, route, param);
      const ids = resource ? seededIds(world, resource) : [];
      return ids.length > 0 ? ids.slice(0, 3) : ["X-1"];
    };
    // The first seeded id of each parameter, then the others for the last one.
    const base = Object.fromEntries(params.map((p) => [p, choices(p)[0] as string]));
    const lastParam = params.at(-1);
    const tries = lastParam ? choices(lastParam).map((v) => ({ ...base, [lastParam]: v })) : [base];
    for (const values of tries) {
      const path = route.path.replace(/\{([^}]+)\}/g, (_w, n: string) => values[n] ?? "X-1");
      if (re.test(path)) return { method: route.method.toUpperCase(), path };
    }
  }
  return null;
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
