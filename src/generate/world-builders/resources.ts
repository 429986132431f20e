import type { JsonObject } from "../../bank/json.js";
import type { World } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import { CONFLICT_FIELD } from "./behaviour-routes.js";
import type { SymRecord } from "./records.js";

/** The two resources: the seeded assets (with their field docs) and the empty work-record collection. */
export function worldResources(t: WorldTemplate, assets: SymRecord[]): World["resources"] {
  const a = t.asset;
  const w = t.work;
  const copied = a.canaryFields.find((f) => f.name === w.copyField);
  return {
    [a.plural]: {
      id_field: a.idField,
      id_template: "{canary}",
      fields: {
        [a.idField]: { type: "string", description: `${a.noun} id` },
        [a.nameField]: { type: "string", description: `Display name of the ${a.noun}` },
        ...Object.fromEntries(
          a.canaryFields.map((f) => [f.name, { type: "string", description: f.description }]),
        ),
        [a.enumField.name]: {
          type: "string",
          description: `${a.enumField.description} (one of ${a.enumField.values.join(", ")})`,
        },
        [a.numberField.name]: { type: "number", description: a.numberField.description },
        [a.linkField.name]: { type: "string", description: a.linkField.description },
        version: { type: "integer", description: "Record version (optimistic concurrency)" },
        [CONFLICT_FIELD]: { type: "string", description: "Last note left by whoever changed the settings" },
      },
      records: assets as JsonObject[],
    },
    [w.plural]: {
      id_field: w.idField,
      id_template: w.idTemplate,
      fields: {
        [w.idField]: { type: "string", description: `${w.noun} id (minted by the server)` },
        [a.idField]: { type: "string", description: `The ${a.noun} this ${w.noun} is for` },
        [w.levelField.name]: { type: "string", description: `One of ${w.levelField.values.join(", ")}` },
        [w.copyField]: {
          type: "string",
          description: `${copied?.description ?? w.copyField}, as the ${a.noun} reports it now`,
        },
        [w.statusField]: {
          type: "string",
          description: `Set by the server on create; then one of ${w.nextStatuses.join(", ")}`,
        },
        [w.noteField]: { type: "string", description: "Free text for the crew" },
      },
      records: [],
    },
  };
}
