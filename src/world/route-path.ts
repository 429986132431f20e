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
