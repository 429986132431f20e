import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { isCredentialHeader } from "../world/credential.js";
import {
  countsCalls,
  dependsOn,
  failedInGolden,
  headerName,
  type RestStep,
  repeated,
  type StepFacts,
  stepFacts,
  variedSteps,
  WAIT_HEADER,
  withoutCaptures,
  withoutHeader,
} from "./golden-edits.js";

/** What a careful agent may do differently from the golden. */
export type VariantKind = "failed_attempt" | "abandoned_job" | "extra_reads" | "reorder" | "other_route";

/** A golden a careful agent may produce instead of the golden: it must pass. */
export interface LegitimateVariant {
  name: string;
  kind: VariantKind;
  /** 1-based golden step the variation is made at. */
  step: number;
  steps: GoldenStep[];
}

/**
 * The legitimate variants of a task's golden (REST steps only):
 *
 * - `failed_attempt@N` — before write N, the same request sent without its credentials first
 *   (401, nothing written; not on routes whose behaviour counts calls);
 * - `abandoned_job@N` — before async-job submit N, another submit of the same job, never confirmed;
 * - `extra_reads` — before the answer, a listing of each canonical collection the golden touches
 *   and a re-read of each record it read;
 * - `reorder@N` — golden step N and the next one sent in the other order, when at least one is a
 *   read and neither needs the other (no value, no record written by one and read by the other);
 * - `other_route@N` — a record read through its collection's listing instead of its own route
 *   (the values captured from its item in the list), when the list shows it on the first page.
 *
 * @example legitimateVariants(world, task).map((v) => v.name) // ["failed_attempt@3", "extra_reads", …]
 */
export function legitimateVariants(
  world: World,
  task: Task,
  statuses: ReadonlyArray<number | undefined> = [],
): LegitimateVariant[] {
  const facts = stepFacts(world, task, statuses);
  const golden = task.golden;
  const out: LegitimateVariant[] = [];
  const insertBefore = (at: number, extra: GoldenStep[]) => [
    ...golden.slice(0, at),
    ...extra,
    ...golden.slice(at),
  ];
  const { start, end } = variedSteps(task);
  for (const f of facts.slice(start, end)) {
    const n = f.index + 1;
    if (failedInGolden(f)) continue;
    if (f.write && f.rest && !countsCalls(f.route) && f.route?.auth_required !== false) {
      const auth = credentialHeaderOf(f.rest);
      if (auth)
        out.push({
          name: `failed_attempt@${n}`,
          kind: "failed_attempt",
          step: n,
          steps: insertBefore(f.index, [withoutCaptures(withoutHeader(f.rest, auth.toLowerCase()))]),
        });
    }
    if (f.rest && f.route?.action === "create" && f.route.async_job && !countsCalls(f.route)) {
      out.push({
        name: `abandoned_job@${n}`,
        kind: "abandoned_job",
        step: n,
        steps: insertBefore(f.index, repeated([withoutCaptures(f.step)], "__abandoned")),
      });
    }
    const next = facts[f.index + 1];
    if (f.rest && next?.rest && independent(f, next)) {
      const swapped = [...golden];
      swapped[f.index] = next.step;
      swapped[next.index] = f.step;
      out.push({ name: `reorder@${n}`, kind: "reorder", step: n, steps: swapped });
    }
    const viaList = f.rest ? throughListing(world, task, f) : null;
    if (viaList)
      out.push({
        name: `other_route@${n}`,
        kind: "other_route",
        step: n,
        steps: replaced(golden, f.index, viaList),
      });
  }
  const reads = extraReads(world, facts.slice(start, end));
  const answerAt = golden.findIndex((s) => s.op === "answer");
  if (reads.length > 0 && answerAt >= 0)
    out.push({
      name: "extra_reads",
      kind: "extra_reads",
      step: answerAt + 1,
      steps: insertBefore(answerAt, reads),
    });
  return out;
}

function replaced(golden: readonly GoldenStep[], at: number, by: GoldenStep): GoldenStep[] {
  return [...golden.slice(0, at), by, ...golden.slice(at + 1)];
}

/** Two adjacent steps a careful agent may send in either order. */
function independent(a: StepFacts, b: StepFacts): boolean {
  if (a.token || b.token || !a.route || !b.route) return false;
  if (a.write && b.write) return false;
  if (dependsOn(b, a) || a.captures.some((c) => b.captures.includes(c))) return false;
  if (countsCalls(a.route) || countsCalls(b.route)) return false;
  if (a.route.action.startsWith("job_") || b.route.action.startsWith("job_")) return false;
  if (a.rest && headerName(a.rest, WAIT_HEADER)) return false;
  if (b.rest && headerName(b.rest, WAIT_HEADER)) return false;
  // A write and a read of the same collection: the read's answer depends on the order.
  return !((a.write || b.write) && a.route.resource === b.route.resource);
}

/** The canonical, undecorated `list` route of a resource. */
function listRoute(world: World, resource: string): Route | undefined {
  return world.routes.find(
    (r) =>
      r.resource === resource &&
      r.action === "list" &&
      r.status === "canonical" &&
      r.method === "GET" &&
      !r.path.includes("{") &&
      !r.throttle &&
      !r.transient &&
      !r.query_params?.some((q) => q.required || q.unhides) &&
      !r.view.where,
  );
}

/** The header a step sends its credential in (a bearer token or an API key), as the step spells it. */
const credentialHeaderOf = (step: { request: { headers?: Record<string, string> } }) =>
  Object.keys(step.request.headers ?? {}).find(isCredentialHeader);

/** Reads a careful agent adds at the end: a listing of each collection the golden touches, a re-read of each record it read. */
function extraReads(world: World, facts: readonly StepFacts[]): GoldenStep[] {
  const withAuth = [...facts].reverse().find((f) => f.rest && credentialHeaderOf(f.rest));
  const auth = withAuth?.rest ? credentialHeaderOf(withAuth.rest) : undefined;
  const headers =
    auth && withAuth?.rest?.request.headers ? { [auth]: withAuth.rest.request.headers[auth] as string } : {};
  const out: GoldenStep[] = [];
  const seen = new Set<string>();
  const get = (url: string) => {
    if (seen.has(url) || out.length >= 4) return;
    seen.add(url);
    out.push({ op: "execute", request: { method: "GET", url, headers }, capture: {} });
  };
  for (const f of facts) {
    if (f.route?.status !== "canonical" || countsCalls(f.route)) continue;
    const list = listRoute(world, f.route.resource);
    if (list) get(list.path);
    if (f.route.action === "get" && f.rest && f.route.concurrency === undefined) get(f.rest.request.url);
  }
  return out;
}

/**
 * A `get` read of a seeded record sent to its collection's listing instead, capturing each value
 * from the record's item: only when the list shows the record on its first page in a known place
 * (the world's seeded order, no record created or deleted in that collection before).
 */
function throughListing(world: World, task: Task, f: StepFacts): GoldenStep | null {
  const rest = f.rest as RestStep;
  const route = f.route;
  if (route?.action !== "get" || route.status !== "canonical" || countsCalls(route)) return null;
  if (Object.keys(rest.capture).length === 0 || route.concurrency || route.view.where) return null;
  if (route.view.omit_fields.length > 0 || Object.keys(route.view.overrides).length > 0) return null;
  const resource = world.resources[route.resource];
  const list = listRoute(world, route.resource);
  const id = Object.values(f.params).at(-1);
  if (!resource || !list || id === undefined || id.includes("{{")) return null;
  if (list.view.omit_fields.length > 0 || Object.keys(list.view.overrides).length > 0) return null;
  const at = resource.records.findIndex((r) => r[resource.id_field] === id);
  const pageSize = list.pagination ? (list.pagination.page_size ?? 10) : Number.POSITIVE_INFINITY;
  if (at < 0 || at >= pageSize) return null;
  // A write to the collection earlier (in setup or golden) may move the record in the list.
  const earlier = [...task.setup, ...task.golden.slice(0, f.index)];
  const touched = earlier.some(
    (s) =>
      s.op === "execute" && s.request.method.toUpperCase() !== "GET" && s.request.url.startsWith(list.path),
  );
  if (touched) return null;
  const capture = Object.fromEntries(
    Object.entries(rest.capture).map(([name, path]) => [name, `${route.resource}.${at}.${path}`]),
  );
  return { op: "execute", request: { ...rest.request, url: list.path }, capture };
}
