import type { JsonObject } from "../../bank/json.js";
import type { Rng } from "../../bank/rng.js";
import type { Route, World } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import type { SymRecord } from "./records.js";
import { idPart, route, type WorldPaths } from "./route-kit.js";
import { workflowResources, workflowRoutes } from "./workflow-archetype.js";

/** The resource graphs a world may have beyond the core every axis needs (see `WorldSchema.archetype`). */
export type Archetype = NonNullable<World["archetype"]>;

/**
 * The archetypes a bank's worlds are dealt, in order. `workflow` took `flat`'s place in the deal
 * (the same worlds, the same spread): a flat world is the shared core with nothing of its own, so
 * every dealt world now has a resource graph beyond the core. `flat` stays a world's default.
 */
export const ARCHETYPES: readonly Archetype[] = ["workflow", "nested", "ledger", "search"];

/** The ledger resource of a `ledger` world. */
export const LEDGER_RESOURCE = "ledger-entries";

const ENTRY_KINDS = ["credit", "debit", "adjustment"] as const;

/**
 * The routes that give a world its archetype's resource graph, on top of the shared core:
 * - `flat`: none (top-level collections only);
 * - `nested`: the work records as a sub-resource of their asset —
 *   `GET|POST <asset>/{id}/<work>` and `GET <asset>/{id}/<work>/{work_id}`;
 * - `ledger`: an append-only entry ledger under each asset — `GET <asset>/{id}/entries` (with the
 *   derived `balance`), `POST` to append, `GET …/entries/{entry_id}`; no update, no delete;
 * - `search`: `GET <base>/search/<assets>`, paged, ranked by the number field, with documented
 *   filters on the category and on text in the name (near namesakes match too);
 * - `workflow`: change requests that move through states, only along allowed transitions
 *   (`workflow-archetype.ts`).
 *
 * @example archetypeRoutes(FLEET, paths, "nested").map((r) => r.path)
 */
export function archetypeRoutes(t: WorldTemplate, p: WorldPaths, archetype: Archetype): Route[] {
  const a = t.asset;
  const w = t.work;
  const parent = `${p.asset}/{${a.idField}}`;
  switch (archetype) {
    case "flat":
      return [];
    case "nested":
      return [
        route({
          id: `list_${idPart(a.noun)}_${idPart(w.plural)}`,
          method: "GET",
          path: `${parent}/${w.plural}`,
          summary: `List the ${w.noun}s of one ${a.noun}`,
          resource: w.plural,
          action: "list",
        }),
        route({
          id: `create_${idPart(a.noun)}_${idPart(w.noun)}`,
          method: "POST",
          path: `${parent}/${w.plural}`,
          summary: `Open a ${w.noun} for this ${a.noun} (the ${a.noun} comes from the path)`,
          resource: w.plural,
          action: "create",
          required_fields: [w.levelField.name, w.copyField],
          defaults: { [w.statusField]: w.initialStatus },
        }),
        route({
          id: `get_${idPart(a.noun)}_${idPart(w.noun)}`,
          method: "GET",
          path: `${parent}/${w.plural}/{${w.idField}}`,
          summary: `Read one ${w.noun} of this ${a.noun}`,
          resource: w.plural,
          action: "get",
        }),
      ];
    case "ledger":
      return [
        route({
          id: `list_${idPart(a.noun)}_entries`,
          method: "GET",
          path: `${parent}/entries`,
          summary: `The append-only ledger of one ${a.noun}: its entries and the balance derived from them`,
          resource: LEDGER_RESOURCE,
          action: "list",
          aggregate: { field: "amount", as: "balance" },
        }),
        route({
          id: `append_${idPart(a.noun)}_entry`,
          method: "POST",
          path: `${parent}/entries`,
          summary: `Append an entry to one ${a.noun}'s ledger (entries are never changed or deleted)`,
          resource: LEDGER_RESOURCE,
          action: "create",
          required_fields: ["amount", "kind"],
        }),
        route({
          id: `get_${idPart(a.noun)}_entry`,
          method: "GET",
          path: `${parent}/entries/{entry_id}`,
          summary: `Read one ledger entry of one ${a.noun}`,
          resource: LEDGER_RESOURCE,
          action: "get",
        }),
      ];
    case "workflow":
      return workflowRoutes(t);
    case "search":
      return [
        route({
          id: `search_${idPart(a.plural)}`,
          method: "GET",
          path: `${t.base}/search/${a.plural}`,
          summary: `Search ${a.plural} by ${a.enumField.name} and by text in their ${a.nameField} (paged); results are ranked by ${a.numberField.name}, highest first, so a near namesake may come before an exact match`,
          resource: a.plural,
          action: "list",
          // Ranked, not listed in record order: a namesake can come before the record asked for.
          sort: { field: a.numberField.name, order: "desc" },
          pagination: {
            style: t.pagination.style,
            page_size: t.pagination.pageSize,
            max_page_size: t.pagination.maxPageSize,
          },
          query_params: [
            {
              name: a.enumField.name,
              description: `Only ${a.plural} with this ${a.enumField.name}`,
              allowed: [...a.enumField.values],
              filter_field: a.enumField.name,
            },
            {
              name: a.nameField,
              description: `Only ${a.plural} whose ${a.nameField} contains this text (any case)`,
              filter_field: a.nameField,
              match: "contains",
            },
          ],
        }),
      ];
  }
}

/**
 * The resources an archetype adds: a `ledger` world's entries, a few seeded per asset for the
 * first assets (amounts with two decimals, so a balance is a sum an agent can check).
 *
 * @example archetypeResources(FLEET, assets, "ledger", rng)["ledger-entries"].records.length
 */
export function archetypeResources(
  t: WorldTemplate,
  assets: readonly SymRecord[],
  archetype: Archetype,
  rng: Rng,
): World["resources"] {
  if (archetype === "workflow") return workflowResources(t, assets, rng);
  if (archetype !== "ledger") return {};
  const a = t.asset;
  const records: JsonObject[] = [];
  let n = 0;
  for (const asset of assets.slice(0, 24)) {
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) {
      n += 1;
      records.push({
        entry_id: `E-${String(n).padStart(5, "0")}`,
        [a.idField]: asset[a.idField] as string,
        kind: rng.pick(ENTRY_KINDS),
        amount: rng.int(-50000, 90000) / 100,
        memo: rng.pick(["opening", "correction", "monthly", "manual", "carried over"]),
      });
    }
  }
  return {
    [LEDGER_RESOURCE]: {
      id_field: "entry_id",
      // Minted per trial: a new entry's id is a canary, traced from the append that minted it.
      id_template: "E-{canary}",
      fields: {
        entry_id: { type: "string", description: "Entry id (minted by the server)" },
        [a.idField]: { type: "string", description: `The ${a.noun} whose ledger holds this entry` },
        kind: { type: "string", description: `One of ${ENTRY_KINDS.join(", ")}` },
        amount: { type: "number", description: "Signed amount; the balance is the sum of the entries" },
        memo: { type: "string", description: "Free text" },
      },
      records,
    },
  };
}
