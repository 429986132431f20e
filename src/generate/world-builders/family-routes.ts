import type { Route } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import { canary } from "./records.js";
import { idPart, route, type WorldPaths } from "./route-kit.js";

/**
 * The asset routes of the three families: the canonical list/get/update, the deprecated `/v1`-ish
 * family serving a stale snapshot, and the look-alike family for another audience serving partial,
 * differently minted values.
 */
export function assetFamilyRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const a = t.asset;
  const [first, second] = a.canaryFields;
  if (!first || !second) throw new Error(`world template ${t.id} needs two canary fields`);
  const noun = idPart(a.noun);
  // The decoy families are listed first, in the world and its spec: an agent that takes the first
  // documented read of a record meets a decoy (issue 16: discovery must be necessary).
  return [
    route({
      id: `get_${noun}_deprecated`,
      method: "GET",
      path: `${p.deprecated}/{${a.idField}}`,
      status: "deprecated",
      summary: `Read one ${a.noun} (deprecated: served from a nightly snapshot; use ${p.asset}/{${a.idField}})`,
      resource: a.plural,
      action: "get",
      view: {
        omit_fields: [a.linkField.name],
        overrides: { [first.name]: canary(`stale:${first.name}`, first.format) },
      },
      headers: {
        deprecation: "true",
        sunset: "Wed, 31 Dec 2025 23:59:59 GMT",
        link: `<${p.asset}>; rel="successor-version"`,
      },
    }),
    route({
      id: `list_${a.plural}_deprecated`,
      method: "GET",
      path: p.deprecated,
      status: "deprecated",
      summary: `List ${a.plural} (deprecated snapshot)`,
      resource: a.plural,
      action: "list",
      view: {
        omit_fields: [second.name],
        overrides: { [first.name]: canary(`stale:${first.name}`, first.format) },
      },
      headers: { deprecation: "true" },
    }),
    route({
      id: `get_${t.lookalike.segment}_${noun}`,
      method: "GET",
      path: `${p.lookalike}/{${a.idField}}`,
      status: "lookalike",
      summary: `Read one ${a.noun} as shown to ${t.lookalike.audience} (redacted, cached hourly)`,
      resource: a.plural,
      action: "get",
      view: {
        omit_fields: [a.numberField.name],
        overrides: { [second.name]: canary(`lookalike:${second.name}`, second.format) },
      },
    }),
    route({
      id: `list_${a.plural}`,
      method: "GET",
      path: p.asset,
      summary: `List ${a.plural} (paged)`,
      resource: a.plural,
      action: "list",
      pagination: {
        style: t.pagination.style,
        page_size: t.pagination.pageSize,
        max_page_size: t.pagination.maxPageSize,
      },
    }),
    route({
      id: `get_${noun}`,
      method: "GET",
      path: `${p.asset}/{${a.idField}}`,
      summary: `Read one ${a.noun} with its live values`,
      resource: a.plural,
      action: "get",
    }),
    route({
      id: `update_${noun}`,
      method: t.updateMethod,
      path: `${p.asset}/{${a.idField}}`,
      summary: `Update fields of one ${a.noun} (merge)`,
      resource: a.plural,
      action: "update",
    }),
  ];
}

/** The work-record collection's canonical routes: create, list, get, update, delete. */
export function workRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const a = t.asset;
  const w = t.work;
  const noun = idPart(w.noun);
  return [
    route({
      id: `create_${noun}`,
      method: "POST",
      path: p.work,
      summary: `Open a ${w.noun}`,
      resource: w.plural,
      action: "create",
      required_fields: [a.idField, w.levelField.name, w.copyField],
      defaults: { [w.statusField]: w.initialStatus },
    }),
    route({
      id: `list_${idPart(w.plural)}`,
      method: "GET",
      path: p.work,
      summary: `List ${w.noun}s`,
      resource: w.plural,
      action: "list",
    }),
    route({
      id: `get_${noun}`,
      method: "GET",
      path: `${p.work}/{${w.idField}}`,
      summary: `Read one ${w.noun}`,
      resource: w.plural,
      action: "get",
    }),
    route({
      id: `update_${noun}`,
      method: t.updateMethod,
      path: `${p.work}/{${w.idField}}`,
      summary: `Update one ${w.noun} (merge), e.g. its ${w.statusField}`,
      resource: w.plural,
      action: "update",
    }),
    route({
      id: `delete_${noun}`,
      method: "DELETE",
      path: `${p.work}/{${w.idField}}`,
      summary: `Delete one ${w.noun} (a superseded or duplicate record); answers 204`,
      resource: w.plural,
      action: "delete",
    }),
  ];
}
