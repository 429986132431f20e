import type { JsonValue } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import type { ExchangeEvent, TrialEvent } from "../world/event-log.js";
import { capturesOf, chainSegments, placeholdersOf, renamePlaceholder, routeFor } from "./certify-kit.js";
import { nativeOperations } from "./native-request.js";

/**
 * What the requirement-mutant and legitimate-variant gates read off a golden: each REST step's
 * route, whether it writes, what it captures and uses, and the edits both gates make (a step
 * repeated with its own bindings, a path segment retargeted, a header dropped).
 */

/** A golden REST step (`execute`): the only kind the two gates edit (GraphQL/MCP steps are left as they are). */
export type RestStep = Extract<GoldenStep, { op: "execute" }>;

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Header names (lower case) of a logical wait, honoured by the world's clock. */
export const WAIT_HEADER = "x-apiflow-wait";

/** What one golden step is, for the gates. */
export interface StepFacts {
  index: number;
  step: GoldenStep;
  rest: RestStep | null;
  route: Route | null;
  /** Path parameters of the route, as written in the golden URL (placeholders unresolved). */
  params: Record<string, string>;
  token: boolean;
  write: boolean;
  /** Bindings this step captures, and the placeholders it uses (URL, headers, body). */
  captures: string[];
  uses: string[];
  /** The URL's path without its query string. */
  path: string;
  /** The status the golden run got for this step (undefined when unknown or not sent). */
  status: number | undefined;
  /** The canonical URL the golden run sent at this step, placeholders resolved (undefined when unknown). */
  sentUrl: string | undefined;
  /** The method and JSON body the golden run sent (as logged: a GraphQL/MCP call as its REST exchange). */
  sentMethod: string | undefined;
  sentBody: JsonValue | undefined;
  /** The step when it sends a request (REST or GraphQL/MCP). */
  send: RestStep | NativeStep | null;
}

/** A golden GraphQL/MCP step (`execute_native`). */
export type NativeStep = Extract<GoldenStep, { op: "execute_native" }>;

/**
 * The exchange each golden step got in the golden run (the i-th request the run sent is the i-th
 * send step), or none when the log does not line up with the golden.
 *
 * @example goldenExchanges(task, goldenTrial.events)[2]?.url // "/v3/vessels/V-662"
 */
export function goldenExchanges(task: Task, events: readonly TrialEvent[]): Array<ExchangeEvent | undefined> {
  const exchanges = events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const sends = task.golden.filter((s) => s.op === "execute" || s.op === "execute_native").length;
  if (exchanges.length !== sends) return [];
  let next = 0;
  return task.golden.map((s) =>
    s.op === "execute" || s.op === "execute_native" ? exchanges[next++] : undefined,
  );
}

/**
 * The status each golden step got in the golden run (see `goldenExchanges`).
 *
 * @example goldenStatuses(task, goldenTrial.events) // [200, 201, 200, undefined]
 */
export function goldenStatuses(task: Task, events: readonly TrialEvent[]): Array<number | undefined> {
  return goldenExchanges(task, events).map((e) => e?.status);
}

/**
 * Facts of every golden step of a task.
 *
 * @example stepFacts(world, task)[2].write // true for the golden's PATCH
 */
export function stepFacts(
  world: World,
  task: Task,
  statuses: ReadonlyArray<number | undefined> = [],
  exchanges: ReadonlyArray<ExchangeEvent | undefined> = [],
): StepFacts[] {
  return task.golden.map((step, index) => {
    const rest = step.op === "execute" ? step : null;
    const sent = exchanges[index];
    const p = placeholdersOf(step);
    const common = {
      index,
      step,
      rest,
      captures: capturesOf(step),
      uses:
        step.op === "store" ? [step.from] : step.op === "answer" ? [] : [...p.url, ...p.headers, ...p.body],
      status: statuses[index] ?? sent?.status,
      sentUrl: sent?.url,
      sentMethod: sent?.method,
      sentBody: sent?.request_body ?? undefined,
    };
    if (step.op === "execute_native") {
      // One GraphQL field or MCP tool: its route, and the path parameters among its arguments.
      const ops = nativeOperations(world, step.request);
      const op = ops?.length === 1 ? ops[0] : undefined;
      const route = op && op.target !== "token" ? op.target : null;
      const params: Record<string, string> = {};
      for (const m of route?.path.matchAll(/\{([^}]+)\}/g) ?? []) {
        const v = op?.args[m[1] as string];
        if (typeof v === "string") params[m[1] as string] = v;
      }
      return {
        ...common,
        route,
        params,
        token: op?.target === "token",
        write: !!route && WRITES.has(route.method.toUpperCase()),
        path: sent?.url.split("?")[0] ?? "",
        send: step,
      };
    }
    const path = rest ? (rest.request.url.split("?")[0] ?? "") : "";
    const method = rest?.request.method.toUpperCase() ?? "";
    const token = rest !== null && path === world.auth.token_path;
    const hit = rest && !token ? routeFor(world, method, rest.request.url) : null;
    return {
      ...common,
      route: hit?.route ?? null,
      params: hit?.params ?? {},
      token,
      write: rest !== null && !token && WRITES.has(method),
      path,
      send: rest,
    };
  });
}

/** Whether the golden run's call at this step failed (a deliberately broken first attempt, a 429 to wait out). */
export function failedInGolden(f: StepFacts): boolean {
  return f.status !== undefined && f.status >= 400;
}

/** Whether step `later` uses a binding step `earlier` captures. */
export function dependsOn(later: StepFacts, earlier: StepFacts): boolean {
  return earlier.captures.some((c) => later.uses.includes(c));
}

/** Whether any step after `facts` (before the answer) uses what it captures. */
export function capturesUsedLater(all: readonly StepFacts[], facts: StepFacts): boolean {
  return all.some((f) => f.index > facts.index && f.step.op !== "answer" && dependsOn(f, facts));
}

/** Whether a route counts its calls (throttle, partial write, transient, concurrent update): an extra call moves its behaviour. */
export function countsCalls(route: Route | null): boolean {
  return (
    !!route &&
    (route.throttle !== undefined ||
      route.partial_write !== undefined ||
      route.transient !== undefined ||
      route.concurrency?.concurrent_update_on_call !== undefined)
  );
}

/** A header's name as the step spells it (any case), or undefined. */
export function headerName(step: RestStep | NativeStep, lower: string): string | undefined {
  return Object.keys(step.request.headers ?? {}).find((h) => h.toLowerCase() === lower);
}

/** The step without one header (any case). */
export function withoutHeader<S extends RestStep | NativeStep>(step: S, lower: string): S {
  const headers = Object.fromEntries(
    Object.entries(step.request.headers ?? {}).filter(([h]) => h.toLowerCase() !== lower),
  );
  return { ...step, request: { ...step.request, headers } };
}

/**
 * The steps of `group` sent once more, with their own bindings: every binding the copies capture
 * is renamed (`name__again`) in the copies, so the steps after them keep using the originals. A
 * literal idempotency key gets a suffix, so the world does not replay the first answer.
 */
export function repeated(group: readonly GoldenStep[], suffix = "__again"): GoldenStep[] {
  const names = new Set(group.flatMap(capturesOf));
  return group.map((s) => {
    let step = [...names].reduce((acc, n) => renamePlaceholder(acc, n, `${n}${suffix}`), s);
    if (step.op === "execute" || step.op === "execute_native") {
      const capture = Object.fromEntries(Object.entries(step.capture).map(([k, v]) => [`${k}${suffix}`, v]));
      step = { ...step, capture } as GoldenStep;
    }
    // A GraphQL/MCP step carries the REST headers as they are: its idempotency key too.
    if (step.op === "execute" || step.op === "execute_native") {
      const key = headerName(step, "idempotency-key");
      if (key)
        step = {
          ...step,
          request: {
            ...step.request,
            headers: { ...step.request.headers, [key]: `${step.request.headers?.[key]}${suffix}` },
          },
        } as GoldenStep;
    }
    return step;
  });
}

/** The step with its captures dropped (its answer is not read into the run). */
export function withoutCaptures(step: GoldenStep): GoldenStep {
  return step.op === "execute" || step.op === "execute_native" ? { ...step, capture: {} } : step;
}

/**
 * The step with path segment `from` (exactly one whole segment) replaced by `to`; the query is
 * kept. A GraphQL/MCP step gets every argument (or variable) equal to `from` replaced.
 */
export function retargeted(step: GoldenStep, from: string, to: string): GoldenStep {
  if (step.op === "execute_native") return { ...step, request: replacedStrings(step.request, from, to) };
  if (step.op !== "execute") return step;
  const [path = "", query] = step.request.url.split(/\?(.*)/s, 2);
  const segments = path.split("/").map((s) => (s === from ? to : s));
  const url = segments.join("/") + (query !== undefined ? `?${query}` : "");
  return { ...step, request: { ...step.request, url } };
}

/** Whether the step's path has `segment` as one whole segment (a GraphQL/MCP step: as an argument). */
export function hasSegment(step: GoldenStep, segment: string): boolean {
  if (step.op === "execute_native") return replacedStrings(step.request, segment, "\u0000") !== step.request;
  return step.op === "execute" && (step.request.url.split("?")[0] ?? "").split("/").includes(segment);
}

/** A JSON value with every string equal to `from` replaced by `to` (the same object when none is). */
function replacedStrings<T>(value: T, from: string, to: string): T {
  if (typeof value === "string") return (value === from ? to : value) as T;
  if (Array.isArray(value)) {
    const out = value.map((v) => replacedStrings(v, from, to));
    return (out.some((v, i) => v !== value[i]) ? out : value) as T;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = replacedStrings(v, from, to);
      if (out[k] !== v) changed = true;
    }
    return (changed ? out : value) as T;
  }
  return value;
}

/**
 * The send step with the value at body key `key` replaced by `to`: a REST body's top-level key; a
 * GraphQL/MCP step's argument or input field of that name, at any depth.
 */
export function withBodyValue(step: RestStep | NativeStep, key: string, to: JsonValue): GoldenStep {
  if (step.op === "execute") {
    const body = step.request.body as Record<string, JsonValue>;
    return { ...step, request: { ...step.request, body: { ...body, [key]: to } } };
  }
  const walk = (v: JsonValue): JsonValue => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== "object") return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === key ? to : walk(x)]));
  };
  const r = step.request;
  const request =
    r.protocol === "graphql"
      ? { ...r, ...(r.variables ? { variables: walk(r.variables) as Record<string, JsonValue> } : {}) }
      : { ...r, ...(r.arguments ? { arguments: walk(r.arguments) as Record<string, JsonValue> } : {}) };
  return { ...step, request };
}

/**
 * The resource a path parameter names a record of: the resource whose id field is the parameter,
 * or, for the route's last parameter, the route's own resource.
 */
export function resourceOfParam(world: World, route: Route, param: string): string | null {
  for (const [name, r] of Object.entries(world.resources)) if (r.id_field === param) return name;
  const last = route.path.match(/\{([^}]+)\}$/)?.[1];
  return last === param && world.resources[route.resource] ? route.resource : null;
}

/** Ids of the records a world seeds in a resource, in order. */
export function seededIds(world: World, resource: string): string[] {
  const r = world.resources[resource];
  if (!r) return [];
  return r.records.map((rec) => rec[r.id_field]).filter((v): v is string => typeof v === "string");
}

/** The resource whose seeded records carry `value` as their id, if any. */
export function resourceOfId(world: World, value: JsonValue): string | null {
  if (typeof value !== "string") return null;
  for (const name of Object.keys(world.resources)) if (seededIds(world, name).includes(value)) return name;
  return null;
}

/**
 * The golden steps the two gates vary: every step of a solo task; of a chain, its last segment's
 * (the chain 1to(N-1) of the same world, certified too, covers the earlier segments in the same
 * session, so each segment is varied once per chain family instead of once per chain holding it).
 *
 * @example variedSteps(chain) // { start: 31, end: 38, position: 6 }
 */
export function variedSteps(task: Task): { start: number; end: number; position: number | undefined } {
  if (task.kind !== "chain") return { start: 0, end: task.golden.length, position: task.positions[0] };
  const segments = chainSegments(task);
  const last = segments.success ? segments.data.at(-1) : undefined;
  return last ? last : { start: 0, end: task.golden.length, position: undefined };
}
