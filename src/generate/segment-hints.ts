import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { FIX_KEYS, hintLevelFor } from "../world/reply.js";
import { matchRoute, routeTemplateOnPath } from "../world/route-path.js";

/** A path segment that holds a placeholder: it fills a route parameter, never a literal segment. */
const FILLED = "\u0000";

/**
 * The route template a request URL goes to (`/v3/vessels/{{vid}}?x=1` → `/v3/vessels/{vessel_id}`):
 * the route its method takes, or, for a method the path does not take (a quoted 405), the first
 * route on the path in routing order; null when no route's template matches the path.
 *
 * @example routeTemplateOf(world, "PUT", "/v3/vessels/{{vid}}") // "/v3/vessels/{vessel_id}"
 */
export function routeTemplateOf(world: World, method: string, url: string): string | null {
  const path = (url.split("?")[0] ?? url)
    .split("/")
    .map((s) => (s.includes("{{") ? FILLED : s))
    .join("/");
  const hit = matchRoute(world.routes, method.toUpperCase(), path);
  if (hit) return hit.route.path;
  return routeTemplateOnPath(world.routes, path);
}

/**
 * A chain's per-segment hint levels: each segment keeps the level of its own solo task (`terse`
 * when that task is hard), and a terse segment names the routes its work goes to: its solo task's
 * quoted calls and golden calls, the token route aside (every segment mints there). The world
 * serves every error on those routes terse. Where a full segment of the chain reads its fix off an
 * error on one of those routes (a medium enum recovery takes the allowed levels from the 422), the
 * route stays full: the full segment keeps the hint its solo task has, and the certification gate
 * (`hint_grading`) still fails the chain if a hard segment's own quoted error or golden then names
 * its fix there.
 *
 * @example segmentHints(chain, solos, world) // [{ segment: 1, level: "full", routes: [] }, { segment: 2, level: "terse", routes: ["/v3/orders/dispatch"] }]
 */
export function segmentHints(
  chain: Task,
  solos: readonly Task[],
  world: World,
): NonNullable<Task["segment_hints"]> {
  const segments = chain.positions.map((segment) => {
    const solo = solos.find((t) => t.positions[0] === segment);
    return { segment, solo, level: solo ? hintLevelFor(solo.difficulty) : ("full" as const) };
  });
  const hinted = new Set<string>();
  for (const { solo, level } of segments) {
    if (!solo || level === "terse") continue;
    for (const s of solo.golden)
      if (s.op === "execute" && Object.values(s.capture).some(readsFix)) {
        const route = routeTemplateOf(world, s.request.method, s.request.url);
        if (route !== null) hinted.add(route);
      }
  }
  return segments.map(({ segment, solo, level }) => {
    if (!solo || level === "full") return { segment, level, routes: [] };
    const calls = [
      ...(solo.premises ?? []).flatMap((p) => (p.kind === "call" ? [{ method: p.method, url: p.url }] : [])),
      ...solo.golden.flatMap((s) => (s.op === "execute" ? [s.request] : [])),
    ];
    const routes = new Set<string>();
    for (const c of calls) {
      const route = routeTemplateOf(world, c.method, c.url);
      if (route !== null && route !== world.auth.token_path && !hinted.has(route)) routes.add(route);
    }
    return { segment, level, routes: [...routes].sort() };
  });
}

/** Whether a golden capture path reads a fix off an error body (`errors.0.allowed.2`). */
const readsFix = (path: string) => path.split(".").some((k) => FIX_KEYS.includes(k));
