import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import type { Premise } from "../bank/premise-schema.js";
import type { Axis, GoldenStep } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { credentialField, isCredentialHeader, staleCredentialName } from "../world/credential.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { isMintStep, isSendStep, placeholdersOf, renamePlaceholder, routeFor } from "./certify-kit.js";

/** What an axis-blind rewrite of one golden segment sees. */
export interface BlindContext {
  world: World;
  /** The whole golden, as the rewrite of later segments has left it (earlier ones untouched). */
  steps: GoldenStep[];
  /** The exchange each golden send step produced in the golden's own run, by step index. */
  seen: ReadonlyMap<number, ExchangeEvent>;
  /** The client's calls the segment's ticket quotes (its `call` premises). */
  premises: readonly Premise[];
  /** The task's vault (the credentials and the token the ticket's client holds). */
  vault: Readonly<Record<string, JsonValue>>;
  /** Blind to one skill only: statefulness segments drop their re-reads and keep their stores; others are played as they are. */
  rereadOnly?: boolean;
}

/** A segment rewritten without its axis's skill: the new steps for `[start, end)`, and why. */
export interface BlindSegment {
  steps: GoldenStep[];
  /** Binding renames to apply to every later step (a dropped mint's token → the kept one's). */
  renames: Array<[string, string]>;
  /** What the blind agent did differently, for the report; empty when it did nothing differently. */
  what: string[];
}

type Execute = Extract<GoldenStep, { op: "execute" }>;
const isExecute = (s: GoldenStep | undefined): s is Execute => s?.op === "execute";
const pathOf = (url: string) => url.split("?")[0] ?? url;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The golden segment `[start, end)` as an agent blind to `axis` would play it (issue 16):
 *
 * - pagination: every listing walk is one request for the first page at the largest page size the
 *   route allows; a record the walk took from beyond that page is replaced by the page's first;
 * - auth: never re-mints or refreshes, and never signs (a signed request goes out unsigned): a
 *   mint after the session's first token is dropped and its token replaced by the earlier one (the
 *   pauses the ticket asks for are still taken); when the ticket's client held the vault's token,
 *   the blind agent keeps using that one and mints nothing;
 * - discovery: takes the first candidate: the first documented route of its resource, action and
 *   method in the spec's order (whatever route the ticket's client used), without undocumented
 *   query parameters; a record picked from a listing is the first one listed, from the first page
 *   it read;
 * - schema_repair: the call the ticket quotes is sent as the client sent it (its body unchanged),
 *   wherever the golden sent its repaired form;
 * - error_recovery: likewise, the quoted call retried plainly (same request, no wait, no
 *   idempotency key or version header);
 * - statefulness: acts on what it read first and keeps nothing: a GET of a URL already read is not
 *   sent again (its values are taken from the first read); a read of a record the golden wrote to
 *   is not sent either where an earlier response shows what it takes (the write's reply, the
 *   record's row in a listing: the last such view), so a re-read the task does not need is not
 *   made; and no value is stored in a variable for later work;
 * - multistep: skips the poll and the confirm of an async job, and the follow-through of a
 *   synchronous one (every call that uses what a write answered: its read-back, status move or
 *   link); what it reports comes from the write's own answer.
 *
 * @example blindSegment("pagination", ctx, 0, ctx.steps.length).what // ["one page of /v3/vessels at per_page=100"]
 */
export function blindSegment(axis: Axis, ctx: BlindContext, start: number, end: number): BlindSegment {
  const range = ctx.steps.slice(start, end);
  const at = (i: number) => ctx.seen.get(start + i);
  if (ctx.rereadOnly)
    return axis === "statefulness" ? noReread(ctx, range, start) : { steps: range, renames: [], what: [] };
  switch (axis) {
    case "pagination":
      return onePage(ctx, range, at);
    case "auth":
      return neverRemint(ctx, range, start);
    case "discovery":
      return firstCandidate(ctx, range, at);
    case "schema_repair":
      return clientCall(ctx, range, at);
    case "error_recovery":
      return clientCall(ctx, range, at);
    case "statefulness":
      return keepNothing(noReread(ctx, range, start));
    case "multistep":
      return skipFollowThrough(ctx, range, at);
  }
}

/** Apply renames to a step (placeholders, and a store's source). */
export function renameStep(step: GoldenStep, renames: ReadonlyArray<[string, string]>): GoldenStep {
  return renames.reduce<GoldenStep>((s, [from, to]) => {
    if (s.op === "store") return s.from === from ? { ...s, from: to } : s;
    return renamePlaceholder(s, from, to);
  }, step);
}

function onePage(
  ctx: BlindContext,
  range: GoldenStep[],
  at: (i: number) => ExchangeEvent | undefined,
): BlindSegment {
  const walks = new Map<string, number[]>();
  range.forEach((s, i) => {
    const ex = at(i);
    if (!isExecute(s) || !ex || s.request.method !== "GET") return;
    const route = routeFor(ctx.world, ex.method, ex.url)?.route;
    if (!route?.pagination) return;
    walks.set(route.id, [...(walks.get(route.id) ?? []), i]);
  });
  if (walks.size === 0) return { steps: range, renames: [], what: [] };
  const out: Array<GoldenStep | null> = [...range];
  const what: string[] = [];
  for (const [routeId, indexes] of walks) {
    const route = ctx.world.routes.find((r) => r.id === routeId);
    const style = route?.pagination;
    const first = range[indexes[0] as number] as Execute;
    if (!route || !style) continue;
    const max = style.max_page_size ?? 100;
    const pageQuery =
      style.style === "offset"
        ? { offset: "0", limit: String(max) }
        : style.style === "cursor"
          ? { limit: String(max) }
          : { page: "1", per_page: String(max) };
    const query = new URLSearchParams(first.request.url.split("?")[1] ?? "");
    for (const k of ["offset", "limit", "page", "per_page", "cursor"]) query.delete(k);
    for (const [k, v] of Object.entries(pageQuery)) query.set(k, v);
    // The collection in listing order, as the walk saw it; the blind page holds its first `max`.
    let key: string | undefined; // unset while no page showed a list: then no capture is a record's
    const items: JsonValue[] = [];
    const known = new Set<string>();
    for (const i of indexes) {
      const body = at(i)?.response_body;
      if (body === null || typeof body !== "object" || Array.isArray(body)) continue;
      for (const [k, v] of Object.entries(body))
        if (Array.isArray(v)) {
          key = k;
          for (const item of v) {
            const text = JSON.stringify(item);
            if (!known.has(text)) items.push(item);
            known.add(text);
          }
        }
    }
    const page = items.slice(0, max);
    const capture: Record<string, string> = {};
    for (const i of indexes) {
      const step = range[i] as Execute;
      for (const [name, path] of Object.entries(step.capture)) {
        const [head, index, ...rest] = path.split(".");
        if (head !== key || !/^\d+$/.test(index ?? "") || rest.length === 0) {
          capture[name] = path;
          continue;
        }
        const value = valuesAtPath(at(i)?.response_body ?? null, path)[0];
        const j = page.findIndex((item) => same(valuesAtPath(item, rest.join("."))[0], value));
        capture[name] = `${key}.${j >= 0 ? j : 0}.${rest.join(".")}`;
      }
    }
    indexes.forEach((i, n) => {
      out[i] =
        n === 0
          ? { ...first, request: { ...first.request, url: `${pathOf(first.request.url)}?${query}` }, capture }
          : null;
    });
    what.push(
      `one page of ${pathOf(first.request.url)} at ${style.style === "offset" || style.style === "cursor" ? "limit" : "per_page"}=${max}`,
    );
  }
  return { steps: out.filter((s): s is GoldenStep => s !== null), renames: [], what };
}

const WAIT = "x-apiflow-wait";
const waitOf = (s: GoldenStep) =>
  isExecute(s)
    ? Number(Object.entries(s.request.headers ?? {}).find(([k]) => k.toLowerCase() === WAIT)?.[1] ?? 0)
    : 0;

/** `step` with `seconds` more logical wait before it (`x-apiflow-wait`). */
function withWait(step: GoldenStep, seconds: number): GoldenStep {
  if (!isExecute(step) || seconds <= 0) return step;
  const headers = Object.fromEntries(
    Object.entries(step.request.headers ?? {}).filter(([k]) => k.toLowerCase() !== WAIT),
  );
  return {
    ...step,
    request: { ...step.request, headers: { ...headers, [WAIT]: String(waitOf(step) + seconds) } },
  };
}

/**
 * Auth-blind: never mints again. A dropped mint's token is replaced by the one the blind agent
 * already holds (the session's first token, or the vault's when the ticket's client held it), and
 * the pause a dropped mint carried is taken before the next call: the blind agent still honours
 * the ticket's waits, it only never renews.
 */
function neverRemint(ctx: BlindContext, range: GoldenStep[], start: number): BlindSegment {
  const blind = neverRemintOrSign(ctx, range, start);
  // Nor does it sign: a signed request goes out as written, without the signer.
  const signed = blind.steps.filter((s) => isExecute(s) && s.request.sign !== undefined).length;
  if (signed === 0) return blind;
  return {
    ...blind,
    steps: blind.steps.map((s) => {
      if (!isExecute(s) || s.request.sign === undefined) return s;
      const { sign: _unsigned, ...request } = s.request;
      return { ...s, request };
    }),
    what: [...blind.what, `${signed} signed request(s) sent unsigned`],
  };
}

function neverRemintOrSign(ctx: BlindContext, range: GoldenStep[], start: number): BlindSegment {
  const isMint = (s: GoldenStep) => isMintStep(ctx.world, s);
  const earlier = ctx.steps.slice(0, start).filter(isMint).at(-1);
  const mints = range.filter(isMint);
  if (mints.length === 0) return { steps: range, renames: [], what: [] };
  // The ticket's client went out with the vault's token (or API key, by the world's scheme): the
  // blind agent keeps using it.
  const staleName = staleCredentialName(ctx.world.auth);
  const minted = credentialField(ctx.world.auth);
  const vaultToken =
    !earlier && ctx.premises.some((p) => p.kind === "call" && p.token === "stale") && staleName in ctx.vault
      ? staleName
      : null;
  const kept = vaultToken ? null : (earlier ?? mints[0]);
  // By position, not identity: a generated chain may hold one mint object in several segments.
  const keptAt = vaultToken || earlier ? -1 : range.findIndex(isMint);
  const droppedAt = new Set(range.flatMap((s, i) => (isMint(s) && i !== keptAt ? [i] : [])));
  const dropped = [...droppedAt].map((i) => range[i] as GoldenStep);
  if (dropped.length === 0) return { steps: range, renames: [], what: [] };
  const keptCaptures = kept && isExecute(kept) ? kept.capture : {};
  const renames: Array<[string, string]> = [];
  for (const m of dropped)
    for (const [name, path] of Object.entries(isExecute(m) ? m.capture : {})) {
      const to = vaultToken
        ? path === minted
          ? vaultToken
          : undefined
        : Object.entries(keptCaptures).find(([, p]) => p === path)?.[0];
      if (to && to !== name) renames.push([name, to]);
    }
  const steps: GoldenStep[] = [];
  let carried = 0;
  for (const [i, s] of range.entries()) {
    if (droppedAt.has(i)) {
      carried += waitOf(s);
      continue;
    }
    const renamed = renameStep(s, renames);
    steps.push(isSendStep(renamed) ? withWait(renamed, carried) : renamed);
    if (isSendStep(renamed)) carried = 0;
  }
  const what = vaultToken
    ? [`the vault's ${vaultToken} kept, ${dropped.length} mint(s) dropped`]
    : [`${dropped.length} re-mint(s) dropped`];
  return { steps, renames, what };
}

/** An array index inside a capture path: `vessels.9.vessel_id` → ["vessels", 9, "vessel_id"]. */
function listedAt(path: string): [string, number, string] | null {
  const m = /^([^.]+)\.(\d+)\.(.+)$/.exec(path);
  return m ? [m[1] as string, Number(m[2]), m[3] as string] : null;
}

/**
 * Discovery-blind: the first candidate. Each call goes to the first documented route of its
 * resource, action and method, in the spec's order, without undocumented query parameters; a
 * record picked from a listing is the first one listed, from the first page read. Not the route
 * the ticket's client used: an agent that reads the spec's first candidate over the client's
 * decoy is as blind (agent audit mar: a right route that was simply the first `/v3` one passed),
 * so a world whose right route is listed first does not make discovery necessary.
 */
function firstCandidate(
  ctx: BlindContext,
  range: GoldenStep[],
  at: (i: number) => ExchangeEvent | undefined,
): BlindSegment {
  const what: string[] = [];
  const out: Array<GoldenStep | null> = range.map((s) => {
    if (!isExecute(s)) return s;
    const hit = routeFor(ctx.world, s.request.method, s.request.url);
    if (!hit) return s;
    const first = ctx.world.routes.find(
      (r) =>
        r.documented &&
        r.resource === hit.route.resource &&
        r.action === hit.route.action &&
        r.method === hit.route.method,
    );
    let path = pathOf(s.request.url);
    if (first && first.id !== hit.route.id) {
      let missing = false;
      const moved = first.path.replace(/\{([^}]+)\}/g, (_w, name: string) => {
        const v = hit.params[name];
        if (v === undefined) missing = true;
        return v ?? "";
      });
      if (!missing) {
        path = moved;
        what.push(`${s.request.method} ${first.path} instead of ${hit.route.path}`);
      }
    }
    const query = new URLSearchParams(s.request.url.split("?")[1] ?? "");
    for (const q of hit.route.query_params ?? [])
      if (q.documented === false && query.has(q.name)) {
        query.delete(q.name);
        what.push(`undocumented parameter ${q.name} left out`);
      }
    const qs = query.toString();
    const url = `${path}${qs ? `?${qs}` : ""}`;
    return url === s.request.url ? s : { ...s, request: { ...s.request, url } };
  });
  // Listing walks, by route: the blind agent takes the first record of the first page it reads.
  const walks = new Map<string, number[]>();
  range.forEach((s, i) => {
    const ex = at(i);
    if (!isExecute(s) || !ex || ex.method !== "GET") return;
    const route = routeFor(ctx.world, ex.method, ex.url)?.route;
    if (route?.action === "list") walks.set(route.id, [...(walks.get(route.id) ?? []), i]);
  });
  for (const [routeId, indexes] of walks) {
    const route = ctx.world.routes.find((r) => r.id === routeId);
    const picks = indexes.flatMap((i) =>
      Object.entries((range[i] as Execute).capture).flatMap(([name, path]) => {
        const l = listedAt(path);
        return l ? [{ i, name, l }] : [];
      }),
    );
    if (picks.length === 0) continue;
    const firstAt = route?.pagination ? (indexes[0] as number) : null;
    let changed = false;
    for (const { i, name, l } of picks) {
      const to = firstAt ?? i;
      if (to !== i || l[1] !== 0) changed = true;
      const from = out[i] as Execute;
      const { [name]: _moved, ...rest } = from.capture;
      out[i] = { ...from, capture: rest };
      const target = out[to] as Execute;
      out[to] = { ...target, capture: { ...target.capture, [name]: `${l[0]}.0.${l[2]}` } };
    }
    // Later pages are not read: their other captures come from the first page.
    if (firstAt !== null)
      for (const i of indexes.slice(1)) {
        const page = out[i] as Execute;
        const target = out[firstAt] as Execute;
        out[firstAt] = { ...target, capture: { ...page.capture, ...target.capture } };
        out[i] = null;
        changed = true;
      }
    if (changed)
      what.push(`the first record listed by GET ${route?.path ?? routeId} taken, from its first page`);
  }
  return { steps: out.filter((s): s is GoldenStep => s !== null), renames: [], what };
}

function clientCall(
  ctx: BlindContext,
  range: GoldenStep[],
  at: (i: number) => ExchangeEvent | undefined,
): BlindSegment {
  const out = [...range];
  const what: string[] = [];
  const used = new Set<number>();
  for (const p of ctx.premises) {
    if (p.kind !== "call" || p.status < 400 || p.status === 401) continue;
    const path = pathOf(p.url);
    const all = range.map((s, i) => ({ s, i })).filter(({ s, i }) => isExecute(s) && !used.has(i));
    let sends = all.filter(({ i }) => pathOf(at(i)?.url ?? "") === path);
    // The client's path was wrong too (a display name for an id): the golden's repaired form of a
    // write is its first write to another route than the token endpoint.
    if (sends.length === 0 && p.method !== "GET")
      sends = all.filter(
        ({ s, i }) =>
          (s as Execute).request.method !== "GET" && pathOf(at(i)?.url ?? "") !== ctx.world.auth.token_path,
      );
    const first =
      sends.find(({ s }) => (s as Execute).request.method === p.method) ??
      sends.find(({ s }) => (s as Execute).request.method !== "GET");
    if (!first) continue;
    // The client never repairs its call: wherever the golden sent the repaired form, it resends its own.
    const targets = sends.filter(
      ({ s, i }) => i >= first.i && (s as Execute).request.method === (first.s as Execute).request.method,
    );
    for (const { s, i } of targets) {
      const step = s as Execute;
      const auth = Object.entries(step.request.headers ?? {}).filter(([k]) => isCredentialHeader(k));
      out[i] = {
        ...step,
        request: {
          method: p.method,
          url: p.url,
          ...(auth.length ? { headers: Object.fromEntries(auth) } : {}),
          ...(p.body ? { body: p.body } : {}),
        },
      };
      used.add(i);
    }
    what.push(`${p.method} ${p.url} sent as the client sent it (${targets.length}×)`);
  }
  return { steps: out, renames: [], what };
}

function noReread(ctx: BlindContext, range: GoldenStep[], start: number): BlindSegment {
  const firstRead = new Map<string, number>();
  const dropped = new Set<number>();
  const what: string[] = [];
  const steps = [...ctx.steps];
  for (let i = 0; i < start + range.length; i++) {
    const ex = ctx.seen.get(i);
    const s = steps[i];
    if (!ex || ex.method !== "GET" || !isSendStep(s)) continue;
    const k = firstRead.get(ex.url);
    if (k === undefined) firstRead.set(ex.url, i);
    if (i < start) continue;
    // A read after a write to the record: the last view of it before (the write's reply, a listing
    // row shown since) stands in for the re-read where it shows every value the re-read took.
    const view = isExecute(s) ? lastView(ctx, s, i, dropped) : null;
    // Blind to the re-read alone, only a read after the record's change is left out.
    if ((k === undefined || ctx.rereadOnly) && !view) continue;
    const at = view?.at ?? (k as number);
    const reader = steps[at];
    if (isExecute(reader) && isExecute(s))
      steps[at] = { ...reader, capture: { ...reader.capture, ...(view?.capture ?? s.capture) } };
    dropped.add(i);
    what.push(
      view ? `GET ${ex.url} not read again after its change (${view.what})` : `GET ${ex.url} not read again`,
    );
  }
  // Captures moved onto an earlier read: the rewrite of the segment owning it sees them (it runs later).
  for (let k = 0; k < start; k++) ctx.steps[k] = steps[k] as GoldenStep;
  return {
    steps: steps.slice(start, start + range.length).filter((_, i) => !dropped.has(start + i)),
    renames: [],
    what,
  };
}

/**
 * For a read of a record (step `i`) after the golden wrote to the record's URL: the latest earlier
 * response that shows the record and every value the read captures — the write's own reply or the
 * record's row in a listing — with the read's captures as paths into it. Null when the record was
 * never written before, the read captures nothing, or no earlier response shows those values.
 */
function lastView(
  ctx: BlindContext,
  read: Execute,
  i: number,
  dropped: ReadonlySet<number>,
): { at: number; capture: Record<string, string>; what: string } | null {
  const url = ctx.seen.get(i)?.url ?? "";
  const captures = Object.entries(read.capture);
  if (captures.length === 0 || url.includes("?")) return null;
  const exchanges = [...ctx.seen.entries()].filter(([j]) => j < i && !dropped.has(j));
  const written = exchanges.some(
    ([, e]) => ["PATCH", "PUT", "POST"].includes(e.method) && e.status < 300 && pathOf(e.url) === url,
  );
  if (!written) return null;
  const resource = routeFor(ctx.world, "GET", url)?.route.resource;
  const idField = resource ? ctx.world.resources[resource]?.id_field : undefined;
  const id = decodeURIComponent(url.split("/").at(-1) ?? "");
  const shows = (body: JsonValue | null, prefix: string) =>
    captures.every(([, p]) => valuesAtPath(body, `${prefix}${p}`).length > 0);
  for (const [j, e] of exchanges.reverse()) {
    if (e.status >= 300 || !isExecute(ctx.steps[j])) continue;
    if (pathOf(e.url) === url && e.method !== "GET" && shows(e.response_body, ""))
      return { at: j, capture: read.capture, what: `its ${e.method} reply` };
    const body = e.response_body;
    if (e.method !== "GET" || !idField || body === null || typeof body !== "object" || Array.isArray(body))
      continue;
    for (const [key, rows] of Object.entries(body)) {
      if (!Array.isArray(rows)) continue;
      const row = rows.findIndex(
        (r) => r !== null && typeof r === "object" && !Array.isArray(r) && r[idField] === id,
      );
      if (row >= 0 && shows(body, `${key}.${row}.`))
        return {
          at: j,
          capture: Object.fromEntries(captures.map(([b, p]) => [b, `${key}.${row}.${p}`])),
          what: `its row in GET ${e.url}`,
        };
    }
  }
  return null;
}

/** Statefulness-blind, continued: nothing is kept in a variable for later work. */
function keepNothing(blind: BlindSegment): BlindSegment {
  const stores = blind.steps.filter((s) => s.op === "store");
  if (stores.length === 0) return blind;
  return {
    ...blind,
    steps: blind.steps.filter((s) => s.op !== "store"),
    what: [
      ...blind.what,
      ...stores.map((s) => (s.op === "store" ? `${s.scope} variable ${s.name} not kept` : "")),
    ],
  };
}

/**
 * Multistep-blind: the first write is the whole job. The poll and confirm of an async job, and
 * every later call that uses what the write answered (its read-back, status move, link), are
 * skipped; what those calls captured is taken from the write's own answer where it has it.
 */
function skipFollowThrough(
  ctx: BlindContext,
  range: GoldenStep[],
  at: (i: number) => ExchangeEvent | undefined,
): BlindSegment {
  const what: string[] = [];
  const out: Array<GoldenStep | null> = [...range];
  const writeAt = range.findIndex(
    (s, i) =>
      isExecute(s) &&
      s.request.method !== "GET" &&
      Object.keys(s.capture).length > 0 &&
      pathOf(at(i)?.url ?? "") !== ctx.world.auth.token_path,
  );
  const fresh = new Set(writeAt < 0 ? [] : Object.keys((range[writeAt] as Execute).capture));
  range.forEach((s, i) => {
    if (!isSendStep(s) || i === writeAt) return;
    const ex = at(i);
    const action = ex ? routeFor(ctx.world, ex.method, ex.url)?.route.action : undefined;
    const job = action === "job_status" || action === "job_confirm";
    const uses =
      i > writeAt &&
      writeAt >= 0 &&
      Object.values(placeholdersOf(s))
        .flat()
        .some((n) => fresh.has(n));
    if (!job && !uses) return;
    out[i] = null;
    for (const name of Object.keys(isExecute(s) ? s.capture : {})) fresh.add(name);
    if (writeAt >= 0 && isExecute(s)) {
      const write = out[writeAt] as Execute;
      out[writeAt] = { ...write, capture: { ...s.capture, ...write.capture } };
    }
    what.push(
      job
        ? `${action === "job_status" ? "poll" : "confirm"} ${ex?.method} ${ex?.url} skipped`
        : `${ex?.method} ${ex?.url} skipped (it follows up the write's answer)`,
    );
  });
  return { steps: out.filter((s): s is GoldenStep => s !== null), renames: [], what };
}
