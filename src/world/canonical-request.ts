/**
 * The one canonical form of a request's path and query, computed where the request enters the
 * engine: the router routes by it, the event log records it (beside the raw form when they differ)
 * and every grader predicate matches it. So `/%762/vessels/V-4`, `/v3//partner/../partner/x` and
 * `/v3/vessels/V%2D633` read as `/v2/vessels/V-4`, `/v3/partner/x` and `/v3/vessels/V-633` to all
 * three, and an agent cannot route past a forbid or fail a predicate by spelling a path another way.
 *
 * The rule, per path segment: percent-decoded once (a malformed escape is kept as written); then
 * `%` and the delimiters `/ ? #` are re-escaped, so a decoded segment can never become two segments
 * or a query, and decoding the canonical form once more (as a route parameter is) gives the value
 * sent. `.` and `..` segments are resolved; empty segments from duplicate slashes are dropped (a
 * trailing slash is kept). Every world's paths are case-sensitive, so case is left as sent. The
 * query string is kept as sent (predicates that read a query parameter parse it, see
 * `queryParam`).
 */

/**
 * The canonical path of a raw request path (no query).
 *
 * @example canonicalPath("/%762//vessels/./V%2D633") // "/v2/vessels/V-633"
 */
export function canonicalPath(rawPath: string): string {
  // The common case: nothing to decode or resolve.
  if (!/%|\/\/|\/\.\.?(\/|$)/.test(rawPath)) return rawPath;
  const segments = rawPath.split("/");
  const trailing = segments.length > 1 && segments[segments.length - 1] === "";
  const out: string[] = [];
  for (const raw of segments) {
    if (raw === "") continue;
    const seg = decodeSegment(raw);
    if (seg === ".") continue;
    if (seg === "..") {
      out.pop();
      continue;
    }
    out.push(seg.replace(/[%/?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
  }
  const path = `/${out.join("/")}`;
  return trailing && out.length > 0 ? `${path}/` : path;
}

/**
 * A raw path-and-query (`/v3/vessels?page=2`) in canonical form: the path canonical, the query as
 * sent.
 *
 * @example canonicalUrl("/v3/%70artner/vessels?x=1") // "/v3/partner/vessels?x=1"
 */
export function canonicalUrl(rawPathAndQuery: string): string {
  const q = rawPathAndQuery.indexOf("?");
  if (q === -1) return canonicalPath(rawPathAndQuery);
  return canonicalPath(rawPathAndQuery.slice(0, q)) + rawPathAndQuery.slice(q);
}

/**
 * The path and query of a full URL as the client wrote it (no fragment), without the parser's own
 * normalisation: what the log records as `raw_url`.
 *
 * @example rawPathAndQuery("http://world.local/v3/../v2/x?a=1#f") // "/v3/../v2/x?a=1"
 */
export function rawPathAndQuery(href: string): string {
  const start = href.indexOf("/", href.indexOf(":") + 3);
  if (start === -1) return "/";
  const hash = href.indexOf("#", start);
  return href.slice(start, hash === -1 ? undefined : hash);
}

/**
 * A route parameter's value from its canonical path segment (decoded once more, as Hono decodes
 * parameters).
 *
 * @example paramValue("a%2Fb") // "a/b"
 */
export function paramValue(segment: string): string {
  return segment.includes("%") ? decodeSegment(segment) : segment;
}

/** The values of one query parameter of a (canonical or raw) URL, decoded. */
export function queryParam(url: string, name: string): string[] {
  const q = url.indexOf("?");
  if (q === -1) return [];
  return new URLSearchParams(url.slice(q + 1)).getAll(name);
}

/** The path segments of a canonical URL, each decoded to the value it carries. */
export function pathValues(url: string): string[] {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  return path
    .split("/")
    .filter((s) => s !== "")
    .map(paramValue);
}

function decodeSegment(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    // Decode the well-formed escapes and keep the rest as written.
    return raw.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}
