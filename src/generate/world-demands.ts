import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { matchRoute } from "../world/route-path.js";

type Send = { method: string; url: string; capture: Record<string, string> };

function sendsOf(task: Task): Send[] {
  return task.golden.flatMap((s) =>
    s.op === "execute" && "method" in s.request
      ? [{ method: s.request.method.toUpperCase(), url: s.request.url, capture: s.capture }]
      : [],
  );
}

/**
 * Solo tasks whose world makes a demand of its own (issue 16), counted on the tasks' goldens:
 * - `transitions`: it moves a record through a workflow of states (a route with `workflow`) in
 *   more than one step;
 * - `changed_between_reads`: it reads a record again after the world changed it on its own (a
 *   workflow state that stamps a value later, `on_enter` with `after_seconds`);
 * - `decoy_first`: it takes a record from a ranked listing (a route with `sort`) beyond the first
 *   one listed, the first being a near miss.
 *
 * @example worldDemandCounts(content.worlds, content.tasks).transitions // 3
 */
export function worldDemandCounts(
  worlds: readonly World[],
  tasks: readonly Task[],
): { transitions: number; changed_between_reads: number; decoy_first: number } {
  const counts = { transitions: 0, changed_between_reads: 0, decoy_first: 0 };
  const byId = new Map(worlds.map((w) => [w.id, w]));
  for (const task of tasks) {
    const world = byId.get(task.world);
    if (task.kind !== "solo" || !world) continue;
    const sends = sendsOf(task).map((s) => ({
      ...s,
      route: matchRoute(world.routes, s.method, s.url.split("?")[0] ?? "")?.route,
    }));
    const moves = sends.filter((s) => s.route?.workflow);
    if (moves.length > 1) counts.transitions += 1;
    const later = moves.some(
      (m) =>
        Object.values(m.route?.workflow?.on_enter ?? {}).some((e) => (e.after_seconds ?? 0) > 0) &&
        sends.slice(sends.indexOf(m) + 1).some((s) => s.method === "GET" && s.url === m.url),
    );
    if (later) counts.changed_between_reads += 1;
    if (
      sends.some(
        (s) =>
          s.route?.sort &&
          Object.values(s.capture).some((p) => Number(/^[^.]+\.(\d+)\./.exec(p)?.[1] ?? 0) > 0),
      )
    )
      counts.decoy_first += 1;
  }
  return counts;
}

/**
 * The datasheet line for `worldDemandCounts`.
 *
 * @example worldDemandLine(content.worlds, content.tasks) // "Solo tasks on … : 3 move a record …"
 */
export function worldDemandLine(worlds: readonly World[], tasks: readonly Task[]): string {
  const c = worldDemandCounts(worlds, tasks);
  return `Solo tasks whose world demands it: ${c.transitions} move a record through its workflow one allowed transition at a time, ${c.changed_between_reads} read a record again after the world changed it between reads, ${c.decoy_first} take a record listed after a near-miss decoy.\n`;
}
