import type { Bank } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import type { TrialResult } from "../run/run-trial.js";
import { isCredentialHeader } from "../world/credential.js";
import type { TrialEvent } from "../world/event-log.js";
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from "../world/paginate.js";
import {
  isMintStep,
  isSendStep,
  placeholdersOf,
  playAndAnswer,
  routeFor,
  scripted,
  worldOf,
} from "./certify-kit.js";
import {
  countsCalls,
  dependsOn,
  failedInGolden,
  headerName,
  type RestStep,
  repeated,
  type StepFacts,
  seededIds,
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
 *   (401, nothing written, no behaviour of the route counts it);
 * - `abandoned_job@N` — before async-job submit N, another submit of the same job (the same values),
 *   polled as the golden polls it until it awaits confirmation, and never confirmed (see
 *   `abandonedJob`);
 * - `extra_reads` — before the answer, a listing of each canonical collection the golden touches
 *   and a re-read of each record it read;
 * - `reorder@N` — golden step N and the next one sent in the other order, when at least one is a
 *   read and neither needs the other (no value, no record written by one and read by the other);
 * - `other_route@N` — a create sent to the resource's canonical create nested under its parent
 *   (the parent in the path, not the body: see `throughParentCreate`; a schema repair's validated
 *   create stays);
 * - `other_route@N` — an update of a record sent through its update sub-route (its settings),
 *   with the version read and resent after a 409 (see `throughUpdateSubRoute`);
 * - `other_route@N` — a seeded record the golden reads by its id read through its collection's
 *   listing instead of its own route, the values captured from its item on the page that shows it
 *   (a cursor listing walked to it). Not for a record whose id the golden found in a listing first
 *   (the ticket asks that record's own read, and the grader holds the id used there), nor on a
 *   route with a behaviour, a scope or a query parameter (a throttle to wait out, an elevated
 *   token to mint: the listing would skip the skill).
 * A variant is played as a careful agent plays it (see `runVariant`).
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
    // A call refused for want of credentials is refused before any behaviour counts it (a
    // throttle, a partial write, a concurrent update): the attempt moves none of them.
    if (f.write && f.rest && f.route?.auth_required !== false) {
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
        steps: insertBefore(f.index, repeated(abandonedJob(facts, f), "__abandoned")),
      });
    }
    const next = facts[f.index + 1];
    if (f.rest && next?.rest && independent(f, next)) {
      const swapped = [...golden];
      swapped[f.index] = next.step;
      swapped[next.index] = f.step;
      out.push({ name: `reorder@${n}`, kind: "reorder", step: n, steps: swapped });
    }
    // A schema-repair ticket's repaired call goes to a route with a validator, which stays: the
    // parent's create validates nothing, so it would skip the repair (see `throughParentCreate`);
    // and a repair whose grader holds the client's values in the body keeps them there.
    const viaParent = f.rest ? throughParentCreate(world, f, (param) => bodyHeld(task, f, param)) : null;
    if (viaParent)
      out.push({
        name: `other_route@${n}`,
        kind: "other_route",
        step: n,
        steps: replaced(golden, f.index, [viaParent]),
      });
    const viaSubRoute = f.rest ? throughUpdateSubRoute(world, f) : null;
    if (viaSubRoute)
      out.push({
        name: `other_route@${n}`,
        kind: "other_route",
        step: n,
        steps: replaced(golden, f.index, viaSubRoute),
      });
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

/** How many times a variant's run may mint a token anew after one expired. */
const MAX_RENEWALS = 3;

/**
 * One run of a variant, played as a careful agent plays it: when a call is answered 401 because
 * its token expired (the variant's extra calls used up the token's lifetime, which the golden
 * spends to the last call), the token is minted anew, as the error's hint says, and the call sent
 * again — up to three times.
 *
 * @example const r = await runVariant(bank, task, variant, sharedTrials(bank)); r.grade.passed
 */
export async function runVariant(
  bank: Bank,
  task: Task,
  variant: LegitimateVariant,
  runner: { run: (task: Task, agent: ReturnType<typeof scripted>) => Promise<TrialResult> },
): Promise<TrialResult> {
  const world = worldOf(bank, task);
  let steps = variant.steps;
  for (let renewals = 0; ; renewals++) {
    const played = steps;
    const agent = scripted(
      bank,
      `variant-${variant.name}${renewals ? `+renew${renewals}` : ""}`,
      async (session) => {
        await playAndAnswer(session, task, played);
      },
    );
    const r = await runner.run(task, agent);
    if (r.grade.passed || renewals >= MAX_RENEWALS) return r;
    const renewed = renewedOnExpiry(world, steps, r.events);
    if (!renewed) return r;
    steps = renewed;
  }
}

/**
 * The steps with the token minted anew just before the first call the run saw answered 401 for an
 * expired token (the mint step that bound the token the call sends, copied); null when no call
 * was, or its token was not minted by an earlier step.
 */
export function renewedOnExpiry(
  world: World,
  steps: readonly GoldenStep[],
  events: readonly TrialEvent[],
): GoldenStep[] | null {
  const sends = steps.flatMap((s, i) => (isSendStep(s) ? [i] : []));
  const exchanges = events.filter((e) => e.type === "exchange");
  const expired = exchanges.findIndex(
    (e) => e.status === 401 && /expired/i.test(JSON.stringify(e.response_body ?? "")),
  );
  const at = sends[expired];
  const step = at === undefined ? undefined : steps[at];
  if (at === undefined || !step) return null;
  const tokens = placeholdersOf(step).headers;
  const mint = steps
    .slice(0, at)
    .findLast((s) => isMintStep(world, s) && isSendStep(s) && tokens.some((t) => t in s.capture));
  return mint ? [...steps.slice(0, at), rotated(mint), ...steps.slice(at)] : null;
}

/**
 * A mint step to send again, with a single-use credential it rotates sent as its newest value: a
 * body field the mint's own answer returns anew (a refresh grant's `refresh_token`, captured into
 * a binding) is sent from that binding, as a careful agent sends the newest refresh token, not the
 * one already spent.
 */
function rotated(mint: GoldenStep): GoldenStep {
  if (mint.op !== "execute") return mint;
  const body = mint.request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return mint;
  const bindingOf = new Map(Object.entries(mint.capture).map(([binding, key]) => [key, binding]));
  const renewed = Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      const binding = bindingOf.get(key);
      return [
        key,
        binding && typeof value === "string" && /^\{\{[^}]+\}\}$/.test(value) ? `{{${binding}}}` : value,
      ];
    }),
  );
  return { ...mint, request: { ...mint.request, body: renewed } };
}

/**
 * The abandoned duplicate of async-job submit `f`: the same submit (the same values) and, when the
 * job waits for a confirmation, the golden's polls of it, so the duplicate is followed as far as it
 * goes without the decisive step (awaiting confirmation, its preview showing the very record the
 * ticket asks for) and never confirmed. A job with no confirmation is written by the poll that
 * finds it done, so its duplicate is only submitted: polling it would commit a second record.
 */
function abandonedJob(facts: readonly StepFacts[], f: StepFacts): GoldenStep[] {
  if (!f.route?.async_job?.confirm) return [withoutCaptures(f.step)];
  const polls = facts.filter((p) => p.index > f.index && p.route?.action === "job_status" && dependsOn(p, f));
  return polls.length === 0
    ? [withoutCaptures(f.step)]
    : [f.step, ...polls.map((p) => withoutCaptures(p.step))];
}

function replaced(golden: readonly GoldenStep[], at: number, by: readonly GoldenStep[]): GoldenStep[] {
  return [...golden.slice(0, at), ...by, ...golden.slice(at + 1)];
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
    if (f.route?.status !== "canonical") continue;
    // The collection's listing is another route: a behaviour of the record's route does not count it.
    const list = listRoute(world, f.route.resource);
    if (list) get(list.path);
    if (f.route.action === "get" && f.rest && f.route.concurrency === undefined && !countsCalls(f.route))
      get(f.rest.request.url);
  }
  return out;
}

/**
 * A `get` read of a seeded record sent to its collection's listing instead, capturing each value
 * from the record's item: the page that shows it (see `listingPages`), at its place in the list —
 * the world's seeded order less the records deleted before (a create appends, an update keeps the
 * place). None when a record deleted before is not known by its id.
 */
function throughListing(world: World, task: Task, f: StepFacts): GoldenStep[] | null {
  const rest = f.rest as RestStep;
  const route = f.route;
  if (route?.action !== "get" || route.status !== "canonical" || countsCalls(route)) return null;
  if (Object.keys(rest.capture).length === 0 || route.concurrency || route.view.where) return null;
  // A route that needs a scope or a query parameter asks a skill of the agent the listing would skip.
  if (route.scopes.length > 0 || (route.query_params ?? []).length > 0) return null;
  if (route.view.omit_fields.length > 0 || Object.keys(route.view.overrides).length > 0) return null;
  if (task.kind === "chain" && chainKeepsRead(task, f)) return null;
  const resource = world.resources[route.resource];
  const list = listRoute(world, route.resource);
  const id = resource ? f.params[resource.id_field] : undefined;
  if (!resource || !list || id === undefined || id.includes("{{")) return null;
  if (list.view.omit_fields.length > 0 || Object.keys(list.view.overrides).length > 0) return null;
  const gone = deletedBefore(world, route.resource, [...task.setup, ...task.golden.slice(0, f.index)]);
  if (gone === null) return null;
  const ids = seededIds(world, route.resource).filter((r) => !gone.has(r));
  const at = ids.indexOf(id);
  if (at < 0) return null;
  const { steps, index } = listingPages(list, at, rest.request, Object.keys(rest.capture)[0] ?? "via_list");
  const last = steps.at(-1) as RestStep;
  last.capture = Object.fromEntries(
    Object.entries(rest.capture).map(([name, path]) => [name, `${route.resource}.${index}.${path}`]),
  );
  return steps;
}

/**
 * A create sent to its resource's canonical create nested under a parent instead
 * (`POST /v3/farm/zones/z-9bd8/schedules` for `POST /v3/farm/schedules` with `zone_id: z-9bd8`):
 * the parent named in the path, not the body; the same record. Only from a plain create (no
 * behaviour, no async job), to a nested one with none, when the body names the parent by a literal.
 */
function throughParentCreate(
  world: World,
  f: StepFacts,
  held: (param: string) => boolean = () => false,
): GoldenStep | null {
  const rest = f.rest as RestStep;
  const route = f.route;
  const body = rest.request.body;
  if (route?.action !== "create" || route.status !== "canonical" || route.method !== "POST") return null;
  if (countsCalls(route) || route.async_job || route.scopes.length > 0 || route.validator) return null;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  for (const r of world.routes) {
    if (r === route || r.resource !== route.resource || r.action !== "create" || r.method !== "POST")
      continue;
    if (r.status !== "canonical" || countsCalls(r) || r.async_job || r.scopes.length > 0 || r.validator)
      continue;
    const params = [...r.path.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] as string);
    if (params.length !== 1) continue;
    const param = params[0] as string;
    const parent = body[param];
    if (typeof parent !== "string" || parent.includes("{{") || held(param)) continue;
    const { [param]: _moved, ...rest2 } = body;
    return {
      ...rest,
      request: {
        ...rest.request,
        url: r.path.replace(`{${param}}`, encodeURIComponent(parent)),
        body: rest2,
      },
    };
  }
  return null;
}

/**
 * An update of a record sent through the record's own update sub-route instead (`PUT
 * /v3/trucks/TRK-2944/settings` for `PUT /v3/trucks/TRK-2944`): the same body, the same record.
 * Only from a plain update of its own route, to a sub-route without a behaviour but optimistic
 * concurrency: there the careful agent reads the sub-route's `version`, writes with it, and when
 * another writer overtook it (409) reads again and resends; the last write keeps the golden's
 * captures.
 */
function throughUpdateSubRoute(world: World, f: StepFacts): GoldenStep[] | null {
  const rest = f.rest as RestStep;
  const route = f.route;
  const body = rest.request.body;
  if (route?.action !== "update" || route.status !== "canonical" || !plainWrite(route)) return null;
  if (route.concurrency || body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const idField = world.resources[route.resource]?.id_field;
  const id = idField ? f.params[idField] : undefined;
  // Open: a record named by a placeholder (found in a listing first) has its update's answer read
  // through a pattern with the id widened (answer provenance), which no sub-route matches yet.
  if (!idField || id === undefined || id.includes("{{")) return null;
  for (const r of world.routes) {
    if (r === route || r.resource !== route.resource || r.action !== "update" || !plainWrite(r)) continue;
    if (r.status !== "canonical" || !["PUT", "PATCH"].includes(r.method.toUpperCase())) continue;
    const own = `{${idField}}`;
    if (!r.path.startsWith(`${route.path}/`) || r.path.split("{").length !== 2 || !r.path.includes(own))
      continue;
    const url = r.path.replace(own, id);
    const write = (version: string | null, last: boolean): RestStep => ({
      ...rest,
      capture: last ? rest.capture : {},
      request: {
        ...rest.request,
        method: r.method,
        url,
        body: version === null ? body : { ...body, version: `{{${version}}}` },
      },
    });
    if (!r.concurrency) return [write(null, true)];
    const read = world.routes.find((g) => g.method === "GET" && g.path === r.path && g.action === "get");
    if (!read || r.concurrency.mode !== "body") continue;
    const { "Content-Type": _ct, "content-type": _lc, ...headers } = rest.request.headers ?? {};
    const version = (k: number): RestStep => ({
      op: "execute",
      request: { method: "GET", url, headers },
      capture: { [`version_${f.index}_${k}`]: "version" },
    });
    return [
      version(1),
      write(`version_${f.index}_1`, false),
      version(2),
      write(`version_${f.index}_2`, true),
    ];
  }
  return null;
}

/** A write route with no behaviour a variant would skip or trip (a version conflict is the agent's to resolve): no scope, throttle, transient or partial write, validator, job. */
function plainWrite(r: Route): boolean {
  return (
    r.scopes.length === 0 && !r.throttle && !r.transient && !r.partial_write && !r.validator && !r.async_job
  );
}

/** Whether a call predicate of the task holds body key `key` of the request step `f` sends (the client's own values a repair keeps). */
function bodyHeld(task: Task, f: StepFacts, key: string): boolean {
  return task.grader.g1.some(
    (p) =>
      p.kind === "call" &&
      p.sent !== undefined &&
      Object.hasOwn(p.sent, key) &&
      (p.method === undefined || p.method.toUpperCase() === f.rest?.request.method.toUpperCase()) &&
      stepMatches(f, p.url_pattern),
  );
}

/**
 * Whether a chain's read must stay where the golden sends it. A chain's segments share the
 * collection's listings and sit in a world earlier segments changed, so the read stays when:
 * - a data flow requires it to carry a credential (a header slot of its URL): a segment's flow
 *   keeps its own destination (see `composeChain`), or the token an earlier segment minted would
 *   hold this segment's requirement;
 * - a data flow reads its value off it and accepts no other route (no `also_from`): the generator
 *   kept the source alone, and the listing the variant walks may not show what the record's own
 *   route does.
 * A solo task's read still moves, so a grader that dropped its other sources is caught.
 */
function chainKeepsRead(task: Task, f: StepFacts): boolean {
  return task.grader.g1.some((p) => {
    if (p.kind !== "data_flow") return false;
    if (p.used_in_slot?.in === "header" && stepMatches(f, p.used_in_request_url_pattern)) return true;
    return p.also_from === undefined && stepMatches(f, p.from_response_url_pattern);
  });
}

/** Whether the step's URL (as written, or as sent) matches the pattern; an invalid pattern matches nothing. */
function stepMatches(f: StepFacts, pattern: string | null | undefined): boolean {
  if (!pattern) return false;
  try {
    const re = new RegExp(pattern);
    return re.test((f.rest as RestStep).request.url) || (f.sentUrl !== undefined && re.test(f.sentUrl));
  } catch {
    return false;
  }
}

/** The ids of the records of `resource` a run of `steps` deletes; null when one is not a literal id. */
function deletedBefore(world: World, resource: string, steps: readonly GoldenStep[]): Set<string> | null {
  const out = new Set<string>();
  for (const s of steps) {
    if (s.op !== "execute" || s.request.method.toUpperCase() !== "DELETE") continue;
    const hit = routeFor(world, "DELETE", s.request.url);
    if (!hit || hit.route.resource !== resource) continue;
    const idField = world.resources[resource]?.id_field ?? "";
    const id = hit.params[idField];
    if (id === undefined || id.includes("{{")) return null;
    out.add(id);
  }
  return out;
}

/**
 * The requests that list the record at place `at` — the first page, or the page holding it at the
 * largest page size the route serves (a cursor listing walked page by page, each request sending
 * the cursor the one before it answered) — and its index in the last one.
 */
function listingPages(
  list: Route,
  at: number,
  request: RestStep["request"],
  name: string,
): { steps: RestStep[]; index: number } {
  const get = (query: string, capture: Record<string, string> = {}): RestStep => ({
    op: "execute",
    request: { ...request, url: `${list.path}${query}` },
    capture,
  });
  if (!list.pagination) return { steps: [get("")], index: at };
  const size = list.pagination.page_size ?? DEFAULT_PAGE_SIZE;
  if (at < size) return { steps: [get("")], index: at };
  const max = list.pagination.max_page_size ?? DEFAULT_MAX_PAGE_SIZE;
  const page = Math.floor(at / max);
  switch (list.pagination.style) {
    case "page":
    case "link":
      return { steps: [get(`?page=${page + 1}&per_page=${max}`)], index: at % max };
    case "offset":
      return { steps: [get(`?offset=${page * max}&limit=${max}`)], index: at % max };
    case "cursor": {
      const cursor = (k: number) => `${name}__cursor${k}`;
      const steps = Array.from({ length: page + 1 }, (_, k) =>
        get(
          k === 0 ? `?limit=${max}` : `?limit=${max}&cursor={{${cursor(k)}}}`,
          k < page ? { [cursor(k + 1)]: "next_cursor" } : {},
        ),
      );
      return { steps, index: at % max };
    }
  }
}
