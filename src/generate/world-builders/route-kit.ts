import type { Route } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";

/** The paths of one world's route families. */
export interface WorldPaths {
  /** The canonical asset collection, e.g. `/v3/valves`. */
  asset: string;
  /** The deprecated family's asset collection, e.g. `/v2/valves`. */
  deprecated: string;
  /** The look-alike family's asset collection, e.g. `/v3/partner/valves`. */
  lookalike: string;
  /** The work-record collection, e.g. `/v3/work-orders`. */
  work: string;
  /** Base of the async job routes, e.g. `/v3/jobs`. */
  jobs: string;
}

/** @example worldPaths(FLEET).asset // "/v3/fleet/trucks" */
export function worldPaths(t: WorldTemplate): WorldPaths {
  return {
    asset: `${t.base}/${t.asset.plural}`,
    deprecated: `${t.deprecatedBase}/${t.asset.plural}`,
    lookalike: `${t.base}/${t.lookalike.segment}/${t.asset.plural}`,
    work: `${t.base}/${t.work.plural}`,
    jobs: `${t.base}/jobs`,
  };
}

/** A route's id-safe form of a noun: `work order` → `work_order`. */
export const idPart = (noun: string) => noun.replace(/\W+/g, "_");

const version = (base: string) => /\/(v\d+)/.exec(base)?.[1] ?? "v3";

/**
 * A route with the generator's defaults (canonical, authenticated, documented, no view changes,
 * version read off its path) under what `r` states.
 *
 * @example route({ id: "list_valves", method: "GET", path: "/v3/valves", summary: "…", resource: "valves", action: "list" })
 */
export function route(
  r: Partial<Route> & Pick<Route, "id" | "method" | "path" | "summary" | "resource" | "action">,
): Route {
  return {
    version: version(r.path),
    status: "canonical",
    auth_required: true,
    scopes: [],
    documented: true,
    view: { omit_fields: [], overrides: {} },
    required_fields: [],
    defaults: {},
    headers: {},
    ...r,
  } as Route;
}

/** The shared part of the routes that create a work record (the canonical one and its behaviour variants). */
export function createLike(t: WorldTemplate) {
  const w = t.work;
  return {
    method: "POST" as const,
    resource: w.plural,
    action: "create" as const,
    required_fields: [t.asset.idField, w.levelField.name, w.copyField],
    defaults: { [w.statusField]: w.initialStatus },
  };
}
