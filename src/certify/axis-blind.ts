import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import type { Premise } from "../bank/premise-schema.js";
import type { Axis, GoldenStep } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { isCredentialHeader } from "../world/credential.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { isMintStep, isSendStep, renamePlaceholder, routeFor } from "./certify-kit.js";

/** What an axis-blind rewrite of one golden segment sees. */
export interface BlindContext {
  world: World;
  /** The whole golden, as the rewrite of later segments has left it (earlier ones untouched). */
  steps: GoldenStep[];
  /** The exchange each golden send step produced in the golden's own run, by step index. */
  seen: ReadonlyMap<number, ExchangeEvent>;
  /** The client's calls the segment's ticket quotes (its `call` premises). */
  premises: readonly Premise[];
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
 * - auth: never re-mints or refreshes: a mint after the session's first token is dropped and its
 *   token replaced by the earlier one;
 * - discovery: each call goes to the first documented route of its resource and action, without
 *   undocumented query parameters;
 * - schema_repair: the call the ticket quotes is sent as the client sent it (its body unchanged),
 *   wherever the golden sent its repaired form;
 * - error_recovery: likewise, the quoted call retried plainly (same request, no wait, no
 *   idempotency key or version header);
 * - statefulness: acts on what it read first: a GET of a URL already read is not sent again, its
 *   values are taken from the first read;
 * - multistep: skips the poll and the confirm of an async job.
 *
 * @example blindSegment("pagination", ctx, 0, ctx.steps.length).what // ["one page of /v3/vessels at per_page=100"]
 */
export function blindSegment(axis: Axis, ctx: BlindContext, start: number, end: number): BlindSegment {
  const range = ctx.steps.slice(start, end);
  const at = (i: number) => ctx.seen.get(start + i);
  switch (axis) {
    case "pagination":
      return onePage(ctx, range, at);
    case "auth":
      return neverRemint(ctx, range, start);
    case "discovery":
      return firstCandidate(ctx, range);
    case "schema_repair":
      return clientCall(ctx, range, at);
    case "error_recovery":
      return clientCall(ctx, range, at);
    case "statefulness":
      return noReread(ctx, range, start);
    case "multistep":
      return skipJobSteps(ctx, range, at);
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
    let key = "";
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

function neverRemint(ctx: BlindContext, range: GoldenStep[], start: number): BlindSegment {
  const isMint = (s: GoldenStep) => isMintStep(ctx.world, s);
  const earlier = ctx.steps.slice(0, start).filter(isMint).at(-1);
  const mints = range.filter(isMint);
  const kept = earlier ?? mints[0];
  if (!kept || (isExecute(kept) && mints.length <= (earlier ? 0 : 1)))
    return { steps: range, renames: [], what: [] };
  const keptCaptures = isExecute(kept) ? kept.capture : {};
  const renames: Array<[string, string]> = [];
  const dropped = mints.filter((m) => m !== kept);
  for (const m of dropped)
    for (const [name, path] of Object.entries(isExecute(m) ? m.capture : {})) {
      const to = Object.entries(keptCaptures).find(([, p]) => p === path)?.[0];
      if (to && to !== name) renames.push([name, to]);
    }
  const steps = range.filter((s) => !dropped.includes(s)).map((s) => renameStep(s, renames));
  return { steps, renames, what: [`${dropped.length} re-mint(s) dropped`] };
}

function firstCandidate(ctx: BlindContext, range: GoldenStep[]): BlindSegment {
  const what: string[] = [];
  const steps = range.map((s) => {
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
  return { steps, renames: [], what };
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
    const sends = range
      .map((s, i) => ({ s, i }))
      .filter(({ s, i }) => isExecute(s) && !used.has(i) && pathOf(at(i)?.url ?? "") === path);
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
    if (k === undefined) {
      firstRead.set(ex.url, i);
      continue;
    }
    if (i < start) continue;
    const reader = steps[k];
    if (isExecute(reader) && isExecute(s))
      steps[k] = { ...reader, capture: { ...reader.capture, ...s.capture } };
    dropped.add(i);
    what.push(`GET ${ex.url} not read again`);
  }
  // Captures moved onto an earlier read: the rewrite of the segment owning it sees them (it runs later).
  for (let k = 0; k < start; k++) ctx.steps[k] = steps[k] as GoldenStep;
  return {
    steps: steps.slice(start, start + range.length).filter((_, i) => !dropped.has(start + i)),
    renames: [],
    what,
  };
}

function skipJobSteps(
  ctx: BlindContext,
  range: GoldenStep[],
  at: (i: number) => ExchangeEvent | undefined,
): BlindSegment {
  const what: string[] = [];
  const steps = range.filter((s, i) => {
    const ex = at(i);
    const action = ex ? routeFor(ctx.world, ex.method, ex.url)?.route.action : undefined;
    if (!isSendStep(s) || (action !== "job_status" && action !== "job_confirm")) return true;
    what.push(`${action === "job_status" ? "poll" : "confirm"} ${ex?.method} ${ex?.url} skipped`);
    return false;
  });
  return { steps, renames: [], what };
}
