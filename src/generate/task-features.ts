import { placeholderNames } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
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
  /** Values the golden reads from a live response (not a token) and sends in a later call. */
  live_values: number;
  /** Sends that repeat an earlier send's method and URL: a re-mint, a poll, a retry, a re-read after a change. */
  repeats: number;
  /** The golden reads its fix off an error body (an allowed value, an expected name): the error must name it. */
  fix_from_error: boolean;
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
  const used = new Set<string>();
  sends.forEach((s, i) => {
    for (const name of placeholderNames(JSON.stringify(s.request)))
      if ((captured.get(name) ?? Number.POSITIVE_INFINITY) < i) used.add(name);
  });
  return {
    calls: sends.length,
    decoys,
    spelled: Math.round(spelled * 100) / 100,
    hint: spelled >= 0.75 ? "explicit" : spelled >= 0.4 ? "partial" : "implicit",
    live_values: used.size,
    repeats: sends.filter((s, i) => sends.slice(0, i).some((e) => sameTarget(e, s))).length,
    fix_from_error: sends.some((s) =>
      Object.values(s.capture).some((path) => path.split(".").some((k) => FIX_KEYS.includes(k))),
    ),
  };
}

/**
 * The published difficulty rule: points for calls (4-5: 1, 6-7: 2, 8+: 3), repeated sends (1: 1,
 * 2+: 2), decoyed routes on the path (2+: 1; every world has a deprecated sibling of its main
 * read, so one is the floor), live values (1-2: 1, 3+: 2) and hints (partial: 2, implicit: 3);
 * easy ≤ 2 points, medium 3-4, hard ≥ 5. A task whose golden reads its fix off an error body is at
 * most medium: a hard task's errors say what is wrong, not how to fix it.
 *
 * @example measuredDifficulty({ calls: 9, decoys: 2, spelled: 0.3, hint: "implicit", live_values: 3, repeats: 2, fix_from_error: false }) // "hard"
 */
export function measuredDifficulty(f: TaskFeatures): Task["difficulty"] {
  const points =
    (f.calls >= 8 ? 3 : f.calls >= 6 ? 2 : f.calls >= 4 ? 1 : 0) +
    Math.min(f.repeats, 2) +
    (f.decoys >= 2 ? 1 : 0) +
    (f.live_values >= 3 ? 2 : f.live_values >= 1 ? 1 : 0) +
    (f.hint === "implicit" ? 3 : f.hint === "partial" ? 2 : 0);
  const label = points >= 5 ? "hard" : points >= 3 ? "medium" : "easy";
  return label === "hard" && f.fix_from_error ? "medium" : label;
}

/** The rule of `measuredDifficulty`, as the datasheet prints it. */
export const DIFFICULTY_RULE =
  "points = calls (4-5: 1, 6-7: 2, 8+: 3) + repeated sends (1: 1, 2+: 2) + decoyed routes on the path (2+: 1) + live values (1-2: 1, 3+: 2) + hints (partial: 2, implicit: 3); easy ≤ 2, medium 3-4, hard ≥ 5; a golden that reads its fix off an error body (allowed values, an expected name) is at most medium";
