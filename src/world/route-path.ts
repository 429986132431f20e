/** A path parameter in a route's path template: `{vessel_id}`. */
const PARAM = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * A route's path template as a regex over a request path: each `{param}` matches one segment and
 * is captured, in the order of `params`; everything else matches literally. The engine routes by
 * it, and the gates and the baseline agent match URLs to routes by the same rule.
 *
 * @example const { re, params } = routePathPattern("/v3/vessels/{vessel_id}"); re.exec("/v3/vessels/V-2")?.[1] // "V-2"
 */
export function routePathPattern(path: string): { re: RegExp; params: string[] } {
  const params: string[] = [];
  const source = path
    .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
    .map((part, i) => {
      if (i % 2 === 0) return part.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");
      params.push(part.slice(1, -1));
      return "([^/]+)";
    })
    .join("");
  return { re: new RegExp(`^${source}$`), params };
}

/** The template in Hono's syntax: `/v3/vessels/:vessel_id`. */
export function honoRoutePath(path: string): string {
  return path.replace(PARAM, ":$1");
}

/** What matching needs of a route: its method and its path template. */
export interface PathRoute {
  method: string;
  path: string;
}

/** The route a request goes to, with its path parameters (raw segments, not percent-decoded). */
export interface RouteMatch<T> {
  route: T;
  params: Record<string, string>;
}

interface Compiled<T> {
  route: T;
  re: RegExp;
  params: string[];
}

interface CompiledTable<T> {
  /** Declaration order. */
  declared: Compiled<T>[];
  /** Matching order: see `routeOrder`. */
  ordered: Compiled<T>[];
}

// Route lists are matched against over and over (every request the engine serves, every golden step
// the gates look up): compile each list once.
const tables = new WeakMap<readonly PathRoute[], CompiledTable<PathRoute>>();

function compiled<T extends PathRoute>(routes: readonly T[]): CompiledTable<T> {
  let table = tables.get(routes) as CompiledTable<T> | undefined;
  if (!table) {
    const declared = routes.map((route) => ({ route, ...routePathPattern(route.path) }));
    const flags = new Map(declared.map((c) => [c, segmentFlags(c.route.path)]));
    const ordered = [...declared].sort((a, b) => compareFlags(flags.get(a) ?? [], flags.get(b) ?? []));
    table = { declared, ordered };
    tables.set(routes, table as CompiledTable<PathRoute>);
  }
  return table;
}

/** Per segment of a path template: 0 for a literal segment, 1 for a parameter. */
function segmentFlags(path: string): number[] {
  return path.split("/").map((s) => (/\{[A-Za-z_][A-Za-z0-9_]*\}/.test(s) ? 1 : 0));
}

function compareFlags(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * The order routes are tried in: at the first segment where two templates differ in kind, the
 * literal one first (`/v3/vessels/search` before `/v3/vessels/{id}`); otherwise in declaration
 * order. Templates of different segment counts never take the same path, so their relative order
 * does not matter. The engine registers its routes in this order, so Hono and the plain path agree.
 *
 * @example routeOrder([{ method: "GET", path: "/v/{id}" }, { method: "GET", path: "/v/search" }])[0].path // "/v/search"
 */
export function routeOrder<T extends PathRoute>(routes: readonly T[]): T[] {
  return compiled(routes).ordered.map((c) => c.route);
}

/**
 * The one rule for which route a request takes: the first route in `routeOrder` whose method is
 * `method` (compared as given: pass it upper-case) and whose template matches `path` (no query
 * string), with its parameters as raw path segments. The engine, the gates and the protocol
 * variants all route through it.
 *
 * @example matchRoute(world.routes, "GET", "/v3/vessels/V-2") // { route: get_vessel, params: { vessel_id: "V-2" } }
 */
export function matchRoute<T extends PathRoute>(
  routes: readonly T[],
  method: string,
  path: string,
): RouteMatch<T> | null {
  for (const { route, re, params: names } of compiled(routes).ordered) {
    if (route.method !== method) continue;
    const m = re.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < names.length; i++) params[names[i] as string] = m[i + 1] as string;
    return { route, params };
  }
  return null;
}

/**
 * The routes whose template matches `path` whatever their method, in declaration order: a path
 * some route takes answers 405 with these methods, not 404.
 *
 * @example routesOnPath(world.routes, "/v3/vessels/V-2").map((r) => r.method) // ["GET", "PATCH"]
 */
export function routesOnPath<T extends PathRoute>(routes: readonly T[], path: string): T[] {
  return compiled(routes)
    .declared.filter((c) => c.re.test(path))
    .map((c) => c.route);
}

/**
 * The template of the route a path belongs to, whatever the method: the first route in
 * `routeOrder` whose template matches it (so `/v3/orders/dispatch` is the dispatch route's, not
 * `/v3/orders/{order_id}`'s); null when no route's does.
 *
 * @example routeTemplateOnPath(world.routes, "/v3/vessels/V-2") // "/v3/vessels/{vessel_id}"
 */
export function routeTemplateOnPath(routes: readonly PathRoute[], path: string): string | null {
  for (const { route, re } of compiled(routes).ordered) if (re.test(path)) return route.path;
  return null;
}
