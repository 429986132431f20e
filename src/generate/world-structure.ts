import type { Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { schemeLabel } from "../world/credential.js";
import { matchRoute } from "../world/route-path.js";
import { ARCHETYPES, archetypeRoutes } from "./world-builders/archetype-routes.js";
import { worldPaths } from "./world-builders/route-kit.js";
import { WORLD_TEMPLATES } from "./worlds/index.js";

/** What one world is made of, nouns aside: the facts the datasheet compares across worlds. */
export interface WorldStructure {
  world: string;
  /** The archetype of its resource graph (`flat` when the world names none). */
  archetype: string;
  /** The resource graph with every noun and base path taken out (see `routeShape`), as one string. */
  graph: string;
  auth: string;
  pagination: string;
  /** Rows of the largest paginated collection. */
  rows: number;
  idFormat: string;
  versioning: string;
  errors: string;
}

/**
 * A route with its nouns taken out: method, action, status, how many path parameters, and the
 * behaviours it carries. Two worlds that differ only in nouns and base paths give the same shapes.
 *
 * @example routeShape(route) // "GET get canonical /{1} view"
 */
export function routeShape(r: Route): string {
  const params = (r.path.match(/\{[^}]+\}/g) ?? []).length;
  const behaviours = [
    r.pagination ? `paged:${r.pagination.style}` : "",
    r.async_job ? "async" : "",
    r.throttle ? "throttle" : "",
    r.partial_write ? "partial" : "",
    r.concurrency ? "concurrency" : "",
    r.transient ? "transient" : "",
    r.validator ? "validator" : "",
    r.scopes.length ? "scoped" : "",
    r.query_params?.length ? "filter" : "",
    r.aggregate ? "aggregate" : "",
  ].filter(Boolean);
  return [r.method, r.action, r.status, `/{${params}}`, ...behaviours].join(" ");
}

/** A route graph without its pagination style: the structure a renaming cannot change. */
const bareGraph = (w: World) =>
  w.routes
    .map((r) => routeShape(r).replace(/ paged:\w+/, " paged"))
    .sort()
    .join("\n");

/**
 * The structural facts of one world: its noun-free route graph, auth scheme, pagination, id
 * format, versioning and error style.
 *
 * @example worldStructure(world).auth // "oauth2 client credentials with scopes + refresh; token 24 s / 20 calls; short-lived: valves:audit 4 s"
 */
export function worldStructure(w: World): WorldStructure {
  const a = w.auth;
  const short = Object.entries(a.scope_ttl_seconds ?? {})
    .map(([s, n]) => `${s} ${n} s`)
    .join(", ");
  const auth = [
    schemeLabel(a),
    `; token ${a.ttl_seconds ?? "∞"} s / ${a.ttl_calls} calls`,
    short ? `; short-lived: ${short}` : "",
  ].join("");
  const paged = w.routes.filter((r) => r.pagination && r.status === "canonical");
  const pg = paged[0]?.pagination;
  const rows = Math.max(0, ...paged.map((r) => w.resources[r.resource]?.records.length ?? 0));
  const idField = paged[0] ? w.resources[paged[0].resource]?.id_field : undefined;
  const sample = idField ? String(w.resources[paged[0]?.resource ?? ""]?.records[0]?.[idField] ?? "") : "";
  const versions = [...new Set(w.routes.map((r) => r.version))].sort();
  return {
    world: w.id,
    archetype: w.archetype ?? "flat",
    graph: bareGraph(w),
    auth,
    pagination: pg
      ? `${pg.style}, ${pg.page_size ?? "-"} a page, at most ${pg.max_page_size ?? "-"}`
      : "none",
    rows,
    idFormat: sample.replace(/[0-9]/g, "9").replace(/[A-Z]/g, "A").replace(/[a-z]/g, "a"),
    versioning: `${versioningLabel(w)} (${versions.join(", ")})`,
    errors: w.errors ? `${w.errors.shape}${w.errors.code_case ? `/${w.errors.code_case}` : ""}` : "plain",
  };
}

/** How a world's clients name the version: `path`, `header Api-Version`, `query api-version`. */
function versioningLabel(w: World): string {
  const v = w.versioning;
  return !v || v.style === "path" ? "path" : `${v.style} ${v.name}`;
}

/**
 * The datasheet section on world structure: one row per world, then the structural figure —
 * how many distinct noun-free route graphs and auth schemes the worlds have. A bank of renamings
 * shows one graph; worlds that differ in structure show several.
 *
 * @example worldStructureSection(content.worlds).includes("distinct route graphs")
 */
export function worldStructureSection(worlds: readonly World[]): string {
  const rows = worlds.map(worldStructure);
  const distinct = (f: (s: WorldStructure) => string) => new Set(rows.map(f)).size;
  const shapes = new Set(worlds.flatMap((w) => w.routes.map(routeShape))).size;
  return `## World structure

| world | archetype | auth | pagination | rows | id format | versioning | errors |
|---|---|---|---|---:|---|---|---|
${rows.map((s) => `| ${s.world} | ${s.archetype} | ${s.auth} | ${s.pagination} | ${s.rows} | \`${s.idFormat}\` | ${s.versioning} | ${s.errors} |`).join("\n")}

Structural figure (nouns and base paths taken out of every route): ${distinct((s) => s.graph)} distinct route
graphs and ${distinct((s) => s.auth.split(";")[0] ?? "")} distinct auth schemes across ${worlds.length} worlds (${distinct((s) => s.archetype)} archetypes);
${shapes} distinct route shapes in all, ${distinct((s) => s.versioning.split(" (")[0] ?? "")} versioning styles, ${distinct((s) => s.pagination.split(",")[0] ?? "")} pagination styles, ${distinct((s) => s.pagination)} page-size settings, ${distinct((s) => s.idFormat)} id formats, ${distinct((s) => s.errors)} error styles.
`;
}

/**
 * The routes only a world's archetype gives it (none for `flat`, or for a world built from no
 * template of this generator).
 */
function ownArchetypeRoutes(w: World): Route[] {
  const t = WORLD_TEMPLATES.find((x) => x.id === w.id);
  if (!t || !w.archetype) return [];
  const ids = new Set(archetypeRoutes(t, worldPaths(t), w.archetype).map((r) => r.id));
  return w.routes.filter((r) => ids.has(r.id));
}

/**
 * Solo tasks whose golden itself calls a route only its world's archetype has (the nested
 * sub-collection, the ledger, the search route, the change requests' workflow), by archetype: tasks that navigate the world's
 * structure, not only the core every world shares. A solo task's setup (earlier positions
 * replayed) does not count.
 *
 * @example archetypeTaskCounts(content.worlds, content.tasks).ledger // 3
 */
export function archetypeTaskCounts(
  worlds: readonly World[],
  tasks: readonly Task[],
): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(
    ARCHETYPES.filter((a) => a !== "flat").map((a) => [a, 0]),
  );
  for (const w of worlds) {
    const own = ownArchetypeRoutes(w);
    if (own.length === 0 || !w.archetype) continue;
    const uses = (t: Task) =>
      t.golden.some(
        (s) =>
          s.op === "execute" &&
          "method" in s.request &&
          matchRoute(own, s.request.method.toUpperCase(), s.request.url.split("?")[0] ?? "") !== null,
      );
    counts[w.archetype] =
      (counts[w.archetype] ?? 0) +
      tasks.filter((t) => t.world === w.id && t.kind === "solo" && uses(t)).length;
  }
  return counts;
}

/**
 * The datasheet line that says how many solo tasks use their world's archetype routes.
 *
 * @example archetypeTaskLine(content.worlds, content.tasks) // "Solo tasks on archetype routes …: workflow 5, nested 5, ledger 3, search 3."
 */
export function archetypeTaskLine(worlds: readonly World[], tasks: readonly Task[]): string {
  const counts = Object.entries(archetypeTaskCounts(worlds, tasks));
  return `Solo tasks whose golden calls a route only its world's archetype has: ${counts.map(([a, n]) => `${a} ${n}`).join(", ")}.\n`;
}
