import type { Versioning } from "../bank/versioning-schema.js";
import type { World } from "../bank/world-schema.js";
import { fail, type Reply } from "./reply.js";

/**
 * A world's API version as the client names it (issue 16): in the path (`/billing/v3/invoices`,
 * the canonical form every route, log line and predicate uses), or, in a world versioned by
 * `header` or `query`, beside a path without it (`/billing/invoices` with `Api-Version: 3`, or
 * `?api-version=3`). The engine folds the version back into the path where the request enters
 * (`versionedRequest`), so routing, the event log, forbids and discovery predicates see one form
 * whatever the style; the golden player and the world's own callers go the other way
 * (`wireRequest`).
 */
type Carried = Extract<Versioning, { style: "header" | "query" }>;

/** The world's versioning when the version is not in the path; null for the path style. */
export function carriedVersion(world: Pick<World, "versioning">): Carried | null {
  const v = world.versioning;
  return v && v.style !== "path" ? v : null;
}

const VERSION_SEGMENT = /^v(\d+)$/;

/** The version segment right after `prefix` in a canonical path, and the rest; null when there is none. */
function splitVersion(v: Carried, path: string): { version: string; rest: string } | null {
  if (path !== v.prefix && !path.startsWith(`${v.prefix}/`)) return null;
  const after = path.slice(v.prefix.length);
  const slash = after.indexOf("/", 1);
  const segment = slash === -1 ? after.slice(1) : after.slice(1, slash);
  const m = VERSION_SEGMENT.exec(segment);
  return m ? { version: m[1] as string, rest: slash === -1 ? "" : after.slice(slash) } : null;
}

/** The query string (`?a=1&api-version=3`, or "") without the version parameter. */
function dropParam(query: string, name: string): string {
  if (query === "") return "";
  const kept = query
    .slice(1)
    .split("&")
    .filter((pair) => {
      const key = pair.split("=")[0] ?? "";
      let decoded = key;
      try {
        decoded = decodeURIComponent(key.replace(/\+/g, " "));
      } catch {}
      return decoded.toLowerCase() !== name.toLowerCase();
    });
  return kept.length > 0 ? `?${kept.join("&")}` : "";
}

/**
 * The query of a request as the log and the predicates read it: without the version parameter in
 * a query-versioned world, as sent otherwise.
 */
export function canonicalQuery(world: World, query: string): string {
  const v = world.versioning;
  return v?.style === "query" ? dropParam(query, v.name) : query;
}

/** The versions a world's routes are published in, as numbers (`["2", "3"]`). */
export function worldVersions(world: World): string[] {
  return [...new Set(world.routes.map((r) => r.version.slice(1)))].sort((a, b) => Number(a) - Number(b));
}

/** The wire form of one canonical path (`/billing/v3/invoices` → `/billing/invoices`), and its version. */
export function wirePath(v: Carried, path: string): { path: string; version: string | null } {
  const split = splitVersion(v, path);
  return split
    ? { path: `${v.prefix}${split.rest}` || "/", version: split.version }
    : { path, version: null };
}

/**
 * A request in canonical form (the version in the path) as the world wants it on the wire: the
 * version segment taken out and sent as the world's header or query parameter. Unchanged in a
 * path-versioned world, or for a path without a version segment (the token endpoint).
 *
 * @example wireRequest({ style: "header", name: "Api-Version", prefix: "/billing" }, { url: "/billing/v2/invoices?page=2", headers: {} })
 * // { url: "/billing/invoices?page=2", headers: { "Api-Version": "2" } }
 */
export function wireRequest<R extends { url: string; headers?: Record<string, string> }>(
  versioning: Versioning | undefined,
  request: R,
): R {
  if (!versioning || versioning.style === "path") return request;
  const v = versioning;
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(request.url)?.[0] ?? "";
  const rest = request.url.slice(origin.length);
  const q = rest.search(/[?#]/);
  const path = q === -1 ? rest : rest.slice(0, q);
  const tail = q === -1 ? "" : rest.slice(q);
  const wire = wirePath(v, path);
  if (wire.version === null) return request;
  if (v.style === "header")
    return {
      ...request,
      url: origin + wire.path + tail,
      headers: { ...request.headers, [v.name]: wire.version },
    };
  const param = `${encodeURIComponent(v.name)}=${wire.version}`;
  const query = tail.startsWith("?") ? `?${param}&${tail.slice(1)}` : `?${param}${tail}`;
  return { ...request, url: origin + wire.path + query };
}

/**
 * A link the world hands out (a job's `poll_url` and `Location`, a listing's `Link` targets),
 * from its canonical path and query to what a client follows as written: the path form in a
 * path-versioned world; the path without its version in a header-versioned one (the client sends
 * the header, as on every call); the version as the query parameter in a query-versioned one.
 *
 * @example wireLink({ versioning: { style: "query", name: "api-version", prefix: "/billing" } }, "/billing/v3/jobs/J1")
 * // "/billing/jobs/J1?api-version=3"
 */
export function wireLink(world: Pick<World, "versioning">, target: string): string {
  return wireRequest(world.versioning, { url: target }).url;
}

/** What the engine makes of a request's version: the canonical path and query, or a refusal. */
export type VersionedRequest = { path: string; query: string } | { refused: Reply };

/**
 * The canonical path and query of a request to a world versioned by header or query (the path
 * already canonical, see `canonicalPath`): the version the client named folded into the path
 * after the world's prefix, and the version parameter dropped from the query. A path that
 * already names a version is refused (404: this world does not take it there); so is a version
 * that is not a number (400). Without a version the path is kept as sent (the token endpoint and
 * the spec take none; a versioned route then answers `missingVersion`'s 400).
 *
 * @example versionedRequest(world, "/billing/invoices", "", () => "3") // { path: "/billing/v3/invoices", query: "" }
 */
export function versionedRequest(
  world: World,
  path: string,
  query: string,
  header: (name: string) => string | undefined,
): VersionedRequest {
  const v = carriedVersion(world);
  if (!v) return { path, query };
  const named =
    v.style === "header"
      ? header(v.name)
      : (new URLSearchParams(query.slice(1)).get(v.name) ??
        [...new URLSearchParams(query.slice(1))].find(
          ([k]) => k.toLowerCase() === v.name.toLowerCase(),
        )?.[1]);
  const sentQuery = canonicalQuery(world, query);
  const inPath = splitVersion(v, path);
  if (inPath) {
    return {
      refused: fail(
        404,
        "not_found",
        `no route ${path}: this API takes its version in the ${describeCarrier(v)}, not in the path; the published routes are in /openapi.json`,
      ),
    };
  }
  if (named === undefined || named === null || named.trim() === "" || unversioned(world, path))
    return { path, query: sentQuery };
  const m = /^v?(\d{1,4})$/i.exec(named.trim());
  if (!m)
    return {
      refused: fail(
        400,
        "invalid_api_version",
        `${describeCarrier(v)} must be a version number such as ${worldVersions(world).at(-1) ?? "3"}, got ${JSON.stringify(named)}`,
      ),
    };
  const rest = path.slice(v.prefix.length);
  if (path !== v.prefix && !path.startsWith(`${v.prefix}/`)) return { path, query: sentQuery };
  return { path: `${v.prefix}/v${m[1]}${rest === "/" ? "" : rest}`, query: sentQuery };
}

/** Paths of a world that take no version (the token endpoint and the spec, when unversioned). */
function unversioned(world: World, path: string): boolean {
  return path === "/openapi.json" || path === world.auth.token_path;
}

/** `Api-Version header`, `api-version query parameter`. */
export function describeCarrier(v: Carried): string {
  return v.style === "header" ? `${v.name} header` : `${v.name} query parameter`;
}

/**
 * The 400 a header- or query-versioned world answers a versioned route sent without a version, or
 * null when `path` with no version would not be a route of the world either.
 */
export function missingVersion(world: World, path: string, routes: (path: string) => boolean): Reply | null {
  const v = carriedVersion(world);
  if (!v || (path !== v.prefix && !path.startsWith(`${v.prefix}/`))) return null;
  const versions = worldVersions(world);
  const rest = path.slice(v.prefix.length);
  if (!versions.some((n) => routes(`${v.prefix}/v${n}${rest}`))) return null;
  return fail(
    400,
    "api_version_required",
    `${path} needs an API version in the ${describeCarrier(v)} (published: ${versions.join(", ")})`,
  );
}

/** How `versioningNote` begins. */
export const VERSIONING_NOTE_OPENING = "This API takes its version in the";

/**
 * The sentence a ticket of a header- or query-versioned world carries: the ticket (like the
 * spec's paths) names routes with their version in the path; the wire takes it elsewhere.
 *
 * @example versioningNote(world) // "This API takes its version in the Api-Version header, …"
 */
export function versioningNote(world: World): string | null {
  const v = carriedVersion(world);
  if (!v) return null;
  const sample = world.routes.find((r) => r.status === "canonical" && splitVersion(v, r.path))?.path;
  const example = sample
    ? (() => {
        const w = wireRequest(v, { url: sample, headers: {} });
        return v.style === "header"
          ? ` (\`${sample}\` is \`${w.url}\` with \`${v.name}: ${sample.match(/\/v(\d+)/)?.[1]}\`)`
          : ` (\`${sample}\` is \`${w.url}\`)`;
      })()
    : "";
  return `${VERSIONING_NOTE_OPENING} ${describeCarrier(v)}, not in the path, and the routes named here carry it as a path segment${example}.`;
}
