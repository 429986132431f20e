import { placeholderNames } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
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
}

type Send = Extract<GoldenStep, { op: "execute" | "execute_native" }>;
const isSend = (s: GoldenStep): s is Send => s.op === "execute" || s.op === "execute_native";

function routeOf(world: World, step: Send): Route | "token" | null {
  if (step.op !== "execute") return null;
  const path = step.request.url.split("?")[0] ?? step.request.url;
  if (path === world.auth.token_path) return "token";
  return matchRoute(world.routes, step.request.method.toUpperCase(), path)?.route ?? null;
}

/** The literals a send carries (placeholders left out): path segments, query names and values, body keys and scalars. */
function literalsOf(step: Send): string[] {
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
    const [path, query] = step.request.url.split("?");
    for (const seg of (path ?? "").split("/")) if (plain(seg) && /\d/.test(seg)) out.push(seg);
    for (const [k, v] of new URLSearchParams(query ?? "")) out.push(k, ...(plain(v) ? [v] : []));
    walk(step.request.body);
  } else walk(step.request.protocol === "mcp" ? step.request.arguments : step.request.variables);
  return out;
}

/**
 * A task's measured features.
 *
 * @example taskFeatures(task, world) // { calls: 4, decoys: 2, spelled: 0.5, hint: "partial", live_values: 1 }
 */
export function taskFeatures(task: Task, world: World): TaskFeatures {
  const sends = task.golden.filter(isSend);
  const routes = sends.map((s) => routeOf(world, s));
  const decoys = routes.filter(
    (r) =>
      r !== null &&
      r !== "token" &&
      world.routes.some(
        (d) =>
          d.status !== "canonical" &&
          d.resource === r.resource &&
          d.action === r.action &&
          d.method === r.method,
      ),
  ).length;
  const literals = sends.filter((_, i) => routes[i] !== "token").flatMap(literalsOf);
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
  };
}

/**
 * The published difficulty rule: points for calls (4-7: 1, 8+: 2), decoys on the path (1 each,
 * at most 2), live values (1-2: 1, 3+: 2) and hints (partial: 1, implicit: 2); easy ≤ 2 points,
 * medium 3-4, hard ≥ 5.
 *
 * @example measuredDifficulty({ calls: 9, decoys: 2, spelled: 0.3, hint: "implicit", live_values: 3 }) // "hard"
 */
export function measuredDifficulty(f: TaskFeatures): Task["difficulty"] {
  const points =
    (f.calls >= 8 ? 2 : f.calls >= 4 ? 1 : 0) +
    Math.min(f.decoys, 2) +
    (f.live_values >= 3 ? 2 : f.live_values >= 1 ? 1 : 0) +
    (f.hint === "implicit" ? 2 : f.hint === "partial" ? 1 : 0);
  return points >= 5 ? "hard" : points >= 3 ? "medium" : "easy";
}

/** The rule of `measuredDifficulty`, as the datasheet prints it. */
export const DIFFICULTY_RULE =
  "points = calls (4-7: 1, 8+: 2) + decoys on the path (1 each, at most 2) + live values (1-2: 1, 3+: 2) + hints (partial: 1, implicit: 2); easy ≤ 2, medium 3-4, hard ≥ 5";
