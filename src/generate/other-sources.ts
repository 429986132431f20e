import type { ForbidConstraint, G1Predicate, OtherSource } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { matchRoute } from "../world/route-path.js";
import { re } from "./story-state.js";

/** One record a data flow reads off its own route: the resource, its id field and the id. */
interface RecordRead {
  route: Route;
  resource: string;
  idField: string;
  id: string;
}

/**
 * A grader's data flows, each widened to the other routes that serve the same record's value
 * (issue 15, legitimate variants): a flow whose source is one seeded record's own plain route
 * (`^/v3/vessels/V-412$`) also accepts the value from the record's item in a canonical listing or
 * search of its collection, and from its other canonical `get` routes (nested ones), as
 * `also_from`; a token or key that must be sent on that record's read (a header slot) may be sent
 * on any of those reads instead, as `also_used_in`. Routes the grader forbids, decoys and routes
 * whose view rewrites the field are never added. A source whose route has a behaviour (a throttle,
 * a scope, a version, a query parameter that hides, reveals or is required) keeps its route alone:
 * reading the record elsewhere would skip the skill the ticket asks for. A walk over a listing
 * (`covered`) is widened to the collection's other canonical listings (`withOtherWalks`).
 *
 * @example withOtherSources(world, g1, constraints)[0].also_from // [{ url_pattern: "^/v3/vessels(\\?.*)?$", status: 200, body_key: "vessels.berth", where: { vessel_id: "V-412" } }]
 */
export function withOtherSources(
  world: World,
  g1: readonly G1Predicate[],
  constraints: readonly ForbidConstraint[],
): G1Predicate[] {
  return g1.map((p) => {
    if (p.kind === "call") return withOtherUpdates(world, p, constraints);
    if (p.kind === "covered") return withOtherWalks(world, p, constraints);
    if (p.kind !== "data_flow") return p;
    const out = { ...p };
    const read = plainRecordRead(world, p.from_response_url_pattern);
    if (read && !p.from_body_key.includes(".")) {
      const sources = otherReads(world, read, constraints, p.from_body_key);
      if (sources.length > 0) out.also_from = sources;
    }
    const listed = read
      ? []
      : otherListings(world, p.from_response_url_pattern, p.from_body_key, constraints);
    if (listed.length > 0) out.also_from = listed;
    const created =
      p.from_status === 201 ? otherCreates(world, p.from_response_url_pattern, constraints) : [];
    if (created.length > 0)
      out.also_from = [
        ...(out.also_from ?? []),
        { url_pattern: `^(?:${created.join("|")})$`, status: 201, body_key: p.from_body_key },
      ];
    const used = p.used_in_request_url_pattern;
    const dest = used ? plainRecordRead(world, used) : null;
    if (dest && p.used_in_slot?.in === "header") {
      const patterns = otherReads(world, dest, constraints, null).map((s) => s.url_pattern);
      if (patterns.length > 0) out.also_used_in = patterns;
    }
    // A value written in a body may be written through another documented route that takes it:
    // the record's parent's create route, the record's own sub-routes that update it.
    if (used && p.used_in_slot?.in === "body") {
      const patterns = [
        ...otherCreates(world, used, constraints),
        ...(dest ? otherUpdates(world, dest, constraints) : []),
      ];
      if (patterns.length > 0) out.also_used_in = [`^(?:${patterns.join("|")})$`];
    }
    return out;
  });
}

/**
 * A walk over a plain listing (`covered`: every record shown) is also done through the
 * collection's other canonical listings (a category registry answering a category in one call, a
 * search read through its own pages), alone or mixed with the listing: any of them may show a
 * record. Decoys and forbidden routes are never added, nor a route that rewrites or hides the id.
 */
function withOtherWalks(
  world: World,
  p: Extract<G1Predicate, { kind: "covered" }>,
  constraints: readonly ForbidConstraint[],
): G1Predicate {
  const own = p.url_patterns[0];
  const listed = own === undefined ? [] : otherListings(world, own, p.body_key, constraints);
  const added = listed.map((s) => s.url_pattern).filter((u) => !p.url_patterns.includes(u));
  return added.length > 0 ? { ...p, url_patterns: [...p.url_patterns, ...added] } : p;
}

/**
 * A write checked on a record's own update route (`^/v3/vessels/V-412$`, PUT or PATCH) is also
 * accepted through the record's update sub-routes that take the same body (its settings, see
 * `otherUpdates`): the same record gets the same values.
 */
function withOtherUpdates(
  world: World,
  p: Extract<G1Predicate, { kind: "call" }>,
  constraints: readonly ForbidConstraint[],
): G1Predicate {
  if (!p.method || !["PUT", "PATCH"].includes(p.method.toUpperCase())) return p;
  const read = plainRecordRead(world, p.url_pattern);
  const own = read ? literalPath(p.url_pattern) : null;
  const patterns = read && own ? otherUpdates(world, read, constraints) : [];
  if (!read || own === null || patterns.length === 0) return p;
  return { ...p, url_pattern: `^(?:${[re(own), ...patterns].join("|")})$` };
}

/**
 * The other canonical routes that create a record where the plain create route `pattern` names
 * (`^/v3/farm/schedules$`) does: the resource's creates nested under a parent
 * (`/v3/farm/zones/{zone_id}/schedules`, the parent from the path), without a behaviour. Each is a
 * pattern body (no anchors), any parent.
 */
function otherCreates(world: World, pattern: string, constraints: readonly ForbidConstraint[]): string[] {
  const path = literalPath(pattern);
  const own = path === null ? undefined : matchRoute(world.routes, "POST", path)?.route;
  if (own?.action !== "create" || !plain(own) || own.async_job) return [];
  return world.routes
    .filter(
      (r) =>
        r !== own &&
        r.resource === own.resource &&
        r.method === "POST" &&
        r.action === "create" &&
        r.path.includes("{") &&
        plain(r) &&
        !r.async_job &&
        !forbidden(constraints, r.path.replace(/\{[^}]+\}/g, "x"), "POST"),
    )
    .map((r) =>
      r.path
        .split(/\{[A-Za-z_][A-Za-z0-9_]*\}/)
        .map(re)
        .join("[^/]+"),
    );
}

/**
 * The other canonical routes that update the record `read` names (its own update route's sub-routes,
 * `/v3/farm/zones/{zone_id}/settings`): they take the same body, and a version conflict they raise
 * is the agent's to resolve, not a skill skipped. Each a pattern body naming the record.
 */
function otherUpdates(world: World, read: RecordRead, constraints: readonly ForbidConstraint[]): string[] {
  const out: string[] = [];
  for (const r of world.routes) {
    if (r.resource !== read.resource || r.action !== "update" || r.status !== "canonical") continue;
    if (!["PUT", "PATCH"].includes(r.method.toUpperCase()) || r.scopes.length > 0 || r.throttle) continue;
    if (r.transient || r.partial_write || r.validator) continue;
    const parts = r.path.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/);
    // A sub-route of the record: its id parameter, then more path.
    const at = parts.findIndex((p, i) => i % 2 === 1 && p === read.idField);
    if (at < 0 || (parts.length === at + 2 && parts[at + 1] === "")) continue;
    if (parts.some((p, i) => i % 2 === 1 && p !== read.idField)) continue;
    const sample = parts.map((p, i) => (i % 2 === 0 ? p : read.id)).join("");
    if (forbidden(constraints, sample, r.method)) continue;
    out.push(parts.map((p, i) => (i % 2 === 0 ? re(p) : re(read.id))).join(""));
  }
  return out;
}

/**
 * The record a URL pattern names, when it is one literal path (as `re` escapes it, optionally
 * with any query string) that a plain canonical `get` route of a resource takes.
 */
function plainRecordRead(world: World, pattern: string): RecordRead | null {
  const path = literalPath(pattern);
  if (path === null) return null;
  const hit = matchRoute(world.routes, "GET", path);
  const route = hit?.route;
  if (!hit || !route || route.action !== "get" || !plain(route)) return null;
  const resource = world.resources[route.resource];
  const id = resource ? hit.params[resource.id_field] : undefined;
  // A seeded record: the path names it by a literal id (a POST path such as `/v3/runs/async` is
  // taken by the same template, but names no record).
  if (!resource || id === undefined || !resource.records.some((r) => String(r[resource.id_field]) === id))
    return null;
  return { route, resource: route.resource, idField: resource.id_field, id };
}

/** A canonical route without behaviours, views or query parameters: any other canonical read of the record is no easier. */
function plain(route: Route): boolean {
  return (
    route.status === "canonical" &&
    route.scopes.length === 0 &&
    !route.throttle &&
    !route.transient &&
    !route.partial_write &&
    !route.concurrency &&
    !route.view.where &&
    route.view.omit_fields.length === 0 &&
    Object.keys(route.view.overrides).length === 0 &&
    (route.query_params ?? []).length === 0
  );
}

/**
 * The other canonical GET routes that serve the record, as at most two sources of `field` (of the
 * record's id when `field` is null): its collection's listings and searches (the record's item),
 * and its other `get` routes, each group as one pattern.
 */
function otherReads(
  world: World,
  read: RecordRead,
  constraints: readonly ForbidConstraint[],
  field: string | null,
): OtherSource[] {
  const lists: string[] = [];
  const gets: string[] = [];
  for (const route of world.routes) {
    if (route === read.route || route.resource !== read.resource) continue;
    if (route.method !== "GET" || route.status !== "canonical") continue;
    if (route.action !== "get" && route.action !== "list") continue;
    if (field !== null && Object.hasOwn(route.view.overrides, field)) continue;
    if (field !== null && route.view.omit_fields.includes(field) && !revealable(route, field)) continue;
    const parts = route.path.split(/\{([A-Za-z_][A-Za-z0-9_]*)\}/);
    const own = (name: string) => route.action === "get" && name === read.idField;
    if (route.action === "get" && !parts.some((p, i) => i % 2 === 1 && own(p))) continue;
    const sample = parts.map((p, i) => (i % 2 === 0 ? p : own(p) ? read.id : "x")).join("");
    if (forbidden(constraints, sample)) continue;
    const pattern = parts.map((p, i) => (i % 2 === 0 ? re(p) : own(p) ? re(read.id) : "[^/]+")).join("");
    (route.action === "list" ? lists : gets).push(pattern);
  }
  const key = field ?? read.idField;
  const where = { [read.idField]: read.id };
  const source = (paths: string[], body_key: string): OtherSource => ({
    url_pattern: `^${paths.length === 1 ? paths[0] : `(?:${paths.join("|")})`}(\\?.*)?$`,
    status: 200,
    body_key,
    where,
  });
  return [
    ...(lists.length > 0 ? [source(lists, `${read.resource}.${key}`)] : []),
    ...(gets.length > 0 ? [source(gets, key)] : []),
  ];
}

/**
 * A flow whose source is a plain canonical listing of a collection and a field of its rows
 * (`^/v3/vessels(\\?.*)?$`, key `vessels.vessel_id`: a name resolved to its id; `vessels.berth`: a
 * ranking's runner-up's value) also takes the value from the collection's other canonical listings
 * (a registry or catalog route, filtered by category), which list the same live rows: as one
 * source, without `where` (as the listing itself, any row's value). Decoys and forbidden routes are
 * never added, nor a route that rewrites or hides the field.
 */
function otherListings(
  world: World,
  pattern: string,
  bodyKey: string,
  constraints: readonly ForbidConstraint[],
): OtherSource[] {
  // The source is one plain listing, or that listing and the collection's search route (a search
  // world's `listedIdUsed`: either names the record).
  const sources = literalPaths(pattern);
  const [collection, field, ...rest] = bodyKey.split(".");
  if (sources === null || !collection || !field || rest.length > 0) return [];
  const owns = sources.map((path) => matchRoute(world.routes, "GET", path)?.route);
  const own = owns[0];
  if (own?.action !== "list" || !plain(own)) return [];
  if (owns.some((r) => r?.action !== "list" || r.resource !== own.resource)) return [];
  const paths = world.routes
    .filter(
      (r) =>
        !owns.includes(r) &&
        r.resource === own.resource &&
        r.method === "GET" &&
        r.action === "list" &&
        r.status === "canonical" &&
        !r.path.includes("{") &&
        !Object.hasOwn(r.view.overrides, field) &&
        (!r.view.omit_fields.includes(field) || revealable(r, field)) &&
        !forbidden(constraints, r.path),
    )
    .map((r) => re(r.path));
  if (paths.length === 0) return [];
  const url_pattern = `^${paths.length === 1 ? paths[0] : `(?:${paths.join("|")})`}(\\?.*)?$`;
  return [{ url_pattern, status: 200, body_key: bodyKey }];
}

/**
 * The literal paths a URL pattern matches: one for `^<path>(\?.*)?$`, several for an alternation
 * `^(?:<path>|<path>)(\?.*)?$` (as `listedIdUsed` writes a search world's); null otherwise.
 */
function literalPaths(pattern: string): string[] | null {
  const one = literalPath(pattern);
  if (one !== null) return [one];
  const alternatives = pattern.match(/^\^\(\?:(.*)\)\(\\\?\.\*\)\?\$$/s)?.[1];
  if (alternatives === undefined) return null;
  const paths = alternatives.split("|").map((p) => literalPath(`^${p}$`));
  return paths.every((p): p is string => p !== null) ? paths : null;
}

/** Whether a query parameter of the route shows the omitted field. */
function revealable(route: Route, field: string): boolean {
  return (route.query_params ?? []).some((q) => q.reveals_fields?.includes(field));
}

function forbidden(constraints: readonly ForbidConstraint[], path: string, method = "GET"): boolean {
  return constraints.some(
    (c) =>
      (c.method === undefined || c.method.toUpperCase() === method) &&
      (new RegExp(c.url_pattern).test(path) || new RegExp(c.url_pattern).test(`${path}?page=2`)),
  );
}

/**
 * The literal path a URL pattern matches, when it is `^<escaped path>$` or `^<escaped path>(\?.*)?$`
 * (as the templates write them); null for any other pattern (a `[^/]+` for a minted id, …).
 */
export function literalPath(pattern: string): string | null {
  const body = pattern.match(/^\^(.*?)(?:\(\\\?\.\*\)\?)?\$$/s)?.[1];
  if (body === undefined) return null;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === "\\") {
      const next = body[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return null;
      out += next;
      i++;
    } else if (/[.*+?^${}()|[\]]/.test(c)) return null;
    else out += c;
  }
  return out.startsWith("/") ? out : null;
}
