import { placeholderNames } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { PAGINATION_PARAMS } from "../world/paginate.js";
import { FIX_KEYS } from "../world/reply.js";
import { matchRoute } from "../world/route-path.js";

/**
 * What makes a task hard, measured on its data (issue 16): the API calls its golden needs, the
 * decoy routes on its path, how much of what it must send the ticket spells out, and the values
 * only a live response reveals. The datasheet prints them per task; `measuredDifficulty` labels
 * the task from them.
 */
export interface TaskFeatures {
  /** The golden's sends (token mints included): the calls no solution can skip. */
  calls: number;
  /** Golden calls whose route has a decoy sibling (deprecated or look-alike, same resource and action). */
  decoys: number;
  /** Share of the literals the golden sends (path ids, query names and values, body keys and values) that the ticket spells out, 0..1. */
  spelled: number;
  /** How explicit the ticket is, from `spelled`: `explicit` ≥ 0.75, `partial` ≥ 0.4, else `implicit`. */
  hint: "explicit" | "partial" | "implicit";
  /** Further pages of a listing an earlier send began (among `calls`): a walk of many pages is still a plain read. */
  pages: number;
  /** Values the golden reads from a live response (not a token, not a walk's pointer to its next page) and sends in a later call. */
  live_values: number;
  /** Sends that repeat an earlier send's method and URL: a re-mint, a poll, a retry, a re-read after a change. */
  repeats: number;
  /** The golden reads its fix off an error body (an allowed value, an expected name): the error must name it. */
  fix_from_error: boolean;
  /**
   * The golden is a plain read: apart from its token mint, it only GETs, re-sends nothing, and goes
   * to one record route and at most one listing walked by its paging parameters alone (no filter
   * combined with the paging). A one-route read, or a walk of a listing to the record it names.
   */
  plain: boolean;
}

type Send = Extract<GoldenStep, { op: "execute" | "execute_native" }>;
const isSend = (s: GoldenStep): s is Send => s.op === "execute" || s.op === "execute_native";

/** The route a send goes to, with the path parameters it fills; `token` for the token endpoint. */
function routeOf(world: World, step: Send): { route: Route; params: string[] } | "token" | null {
  if (step.op !== "execute") return null;
  const path = step.request.url.split("?")[0] ?? step.request.url;
  if (path === world.auth.token_path) return "token";
  const hit = matchRoute(world.routes, step.request.method.toUpperCase(), path);
  return hit ? { route: hit.route, params: Object.values(hit.params) } : null;
}

/**
 * The literals a send carries (placeholders left out): the path parameters it fills (not the
 * route's own segments, which the spec shows), query names and values, body keys and scalars.
 */
export function literalsOf(step: Send, pathParams: readonly string[] = []): string[] {
  const out: string[] = [];
  const plain = (s: string) => s !== "" && !s.includes("{{");
  const walk = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object")
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
    else if (plain(String(v))) out.push(String(v));
  };
  if (step.op === "execute") {
    const query = step.request.url.split("?")[1];
    for (const p of pathParams) if (plain(p)) out.push(decodeURIComponent(p));
    for (const [k, v] of new URLSearchParams(query ?? "")) out.push(k, ...(plain(v) ? [v] : []));
    walk(step.request.body);
  } else walk(step.request.protocol === "mcp" ? step.request.arguments : step.request.variables);
  return out;
}

/**
 * Whether a send reads a further page of a listing an earlier send began: a GET to the same
 * paginated route and path, whose query differs from that earlier one's only in the paging
 * parameters (the same URL again is a repeat, not a further page).
 */
function furtherPage(
  step: Send,
  route: ReturnType<typeof routeOf>,
  before: readonly Send[],
  routesBefore: ReadonlyArray<ReturnType<typeof routeOf>>,
): boolean {
  if (step.op !== "execute" || route === null || route === "token" || !route.route.pagination) return false;
  if (step.request.method.toUpperCase() !== "GET") return false;
  const paging = PAGINATION_PARAMS[route.route.pagination.style];
  const rest = (url: string) => {
    const [path, query] = url.split("?");
    const q = new URLSearchParams(query ?? "");
    for (const p of paging) q.delete(p);
    q.sort();
    return `${path}?${q}`;
  };
  const url = step.request.url;
  if (before.some((b) => sameTarget(b, step))) return false;
  return before.some((b, j) => {
    const r = routesBefore[j];
    return (
      b.op === "execute" &&
      r !== null &&
      r !== "token" &&
      r !== undefined &&
      r.route.id === route.route.id &&
      rest(b.request.url) === rest(url)
    );
  });
}

/** Two sends to the same method and URL (a walk's next page is another URL, not a repeat). */
function sameTarget(a: Send, b: Send): boolean {
  if (a.op !== "execute" || b.op !== "execute") return false;
  return a.request.method.toUpperCase() === b.request.method.toUpperCase() && a.request.url === b.request.url;
}

/**
 * A task's measured features.
 *
 * @example taskFeatures(task, world) // { calls: 4, decoys: 2, spelled: 0.5, hint: "partial", live_values: 1 }
 */
export function taskFeatures(task: Task, world: World): TaskFeatures {
  const sends = task.golden.filter(isSend);
  const routes = sends.map((s) => routeOf(world, s));
  // Distinct routes, not calls: a walk of five pages passes one decoyed route, not five.
  const decoyed = new Set(
    routes
      .flatMap((r) => (r === null || r === "token" ? [] : [r.route]))
      .filter((r) =>
        world.routes.some(
          (d) =>
            d.status !== "canonical" &&
            d.resource === r.resource &&
            d.action === r.action &&
            d.method === r.method,
        ),
      )
      .map((r) => r.id),
  );
  const decoys = decoyed.size;
  const literals = sends.flatMap((s, i) => {
    const r = routes[i];
    return r === "token" ? [] : literalsOf(s, r ? r.params : []);
  });
  const ticket = task.ticket.toLowerCase();
  const spelled =
    literals.length === 0
      ? 1
      : literals.filter((l) => ticket.includes(l.toLowerCase())).length / literals.length;
  const tokens = new Set(
    sends.filter((_, i) => routes[i] === "token").flatMap((s) => Object.keys(s.capture)),
  );
  const captured = new Map<string, number>();
  sends.forEach((s, i) => {
    for (const name of Object.keys(s.capture))
      if (!tokens.has(name) && !captured.has(name)) captured.set(name, i);
  });
  const further = sends.map((s, i) =>
    furtherPage(s, routes[i] ?? null, sends.slice(0, i), routes.slice(0, i)),
  );
  // A value a walk reads only to ask for its own next page (a cursor) is the walk, not a live value.
  const used = new Set<string>();
  const elsewhere = new Set<string>();
  sends.forEach((s, i) => {
    for (const name of placeholderNames(JSON.stringify(s.request)))
      if ((captured.get(name) ?? Number.POSITIVE_INFINITY) < i) {
        used.add(name);
        if (!further[i]) elsewhere.add(name);
      }
  });
  const repeats = sends.filter((s, i) => sends.slice(0, i).some((e) => sameTarget(e, s))).length;
  return {
    calls: sends.length,
    decoys,
    spelled: Math.round(spelled * 100) / 100,
    hint: spelled >= 0.75 ? "explicit" : spelled >= 0.4 ? "partial" : "implicit",
    pages: further.filter(Boolean).length,
    live_values: [...used].filter((name) => elsewhere.has(name)).length,
    repeats,
    fix_from_error: sends.some((s) =>
      Object.values(s.capture).some((path) => path.split(".").some((k) => FIX_KEYS.includes(k))),
    ),
    plain: repeats === 0 && plainRead(sends, routes),
  };
}

/**
 * Whether every send but the token mints is a GET to one record route or to one listing whose
 * query holds only its paging parameters (see `TaskFeatures.plain`). A send to no known route (a
 * GraphQL or MCP call) is not plain: what it does is not measured here.
 */
function plainRead(sends: readonly Send[], routes: ReadonlyArray<ReturnType<typeof routeOf>>): boolean {
  const listings = new Set<string>();
  const records = new Set<string>();
  for (const [i, s] of sends.entries()) {
    const r = routes[i];
    if (r === "token") continue;
    if (!r || s.op !== "execute" || s.request.method.toUpperCase() !== "GET") return false;
    const paging = r.route.pagination ? PAGINATION_PARAMS[r.route.pagination.style] : null;
    if (!paging) {
      records.add(r.route.id);
      continue;
    }
    const query = new URLSearchParams(s.request.url.split("?")[1] ?? "");
    if ([...query.keys()].some((k) => !paging.includes(k))) return false;
    listings.add(r.route.id);
  }
  return listings.size <= 1 && records.size <= 1;
}

/**
 * The published difficulty rule: points for calls (4-5: 1, 6-7: 2, 8+: 3), repeated sends (1: 1,
 * 2+: 2), decoyed routes on the path (2+: 1; every world has a deprecated sibling of its main
 * read, so one is the floor), live values (1-2: 1, 3+: 2; a walk's pointer to its next page is
 * the walk, not a live value) and hints (partial: 2, implicit: 3); easy ≤ 2 points, medium 3-4,
 * hard ≥ 5 (no one feature reaches 5: a hard task has several). A hard task needs more than a
 * plain read: a task whose golden is a plain one-route read or a plain walk of a listing
 * (`plain`) is at most medium, however many pages or hidden parameters it has. A task whose
 * golden reads its fix off an error body is at most medium: a hard task's errors say what is
 * wrong, not how to fix it.
 *
 * @example measuredDifficulty({ calls: 9, pages: 0, decoys: 2, spelled: 0.3, hint: "implicit", live_values: 3, repeats: 2, fix_from_error: false, plain: false }) // "hard"
 */
export function measuredDifficulty(f: TaskFeatures): Task["difficulty"] {
  const label = difficultyOfPoints(difficultyPoints(f));
  return label === "hard" && (f.fix_from_error || f.plain) ? "medium" : label;
}

/** A task's points under the published rule (see `measuredDifficulty`). */
export function difficultyPoints(f: TaskFeatures): number {
  return (
    (f.calls >= 8 ? 3 : f.calls >= 6 ? 2 : f.calls >= 4 ? 1 : 0) +
    Math.min(f.repeats, 2) +
    (f.decoys >= 2 ? 1 : 0) +
    (f.live_values >= 3 ? 2 : f.live_values >= 1 ? 1 : 0) +
    (f.hint === "implicit" ? 3 : f.hint === "partial" ? 2 : 0)
  );
}

const difficultyOfPoints = (points: number): Task["difficulty"] =>
  points >= 5 ? "hard" : points >= 3 ? "medium" : "easy";

/** The rule of `measuredDifficulty`, as the datasheet prints it. */
export const DIFFICULTY_RULE =
  "points = calls (4-5: 1, 6-7: 2, 8+: 3) + repeated sends (1: 1, 2+: 2) + decoyed routes on the path (2+: 1) + live values (1-2: 1, 3+: 2; a walk's pointer to its next page, such as a cursor, is not one) + hints (partial: 2, implicit: 3); easy ≤ 2, medium 3-4, hard ≥ 5; a plain read (apart from token mints, only GETs, nothing re-sent, one record route and at most one listing walked by its paging parameters alone) is at most medium: a one-route read or a plain walk of a listing is not hard, however many pages it takes; a golden that reads its fix off an error body (allowed values, an expected name) is at most medium";
