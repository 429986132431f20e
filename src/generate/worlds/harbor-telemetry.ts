import type { WorldTemplate } from "../world-template.js";

/** Container-harbour vessel telemetry: the walking skeleton's domain, as a template. */
export const HARBOR_TELEMETRY: WorldTemplate = {
  id: "harbor-telemetry",
  title: "Harborline Telemetry API",
  description:
    "Vessel telemetry and maintenance for a container harbour: berths, firmware builds of on-board telemetry units, and maintenance orders.",
  port: 9001,
  base: "/v3",
  deprecatedBase: "/v2",
  lookalike: { segment: "partner", audience: "shipping-line partners" },
  tokenPath: "/v3/oauth/token",
  tokenPrefix: "tk_hb_",
  ttl: 6,
  updateMethod: "PATCH",
  reporters: ["the harbour master", "the night berth planner", "Ilse from port IT", "the telemetry on-call"],
  systems: ["the berth board", "the firmware audit job", "the tug scheduler", "our port dashboard"],
  asset: {
    plural: "vessels",
    noun: "vessel",
    idField: "vessel_id",
    idPattern: "V-###",
    nameField: "name",
    names: [
      "Nordic Tern",
      "Cape Halcyon",
      "Ostra Bay",
      "Baltic Wren",
      "Kestrel Sound",
      "Mira Star",
      "Fjord Lantern",
      "Sea Juniper",
    ],
    canaryFields: [
      { name: "firmware_build", description: "Build of the on-board telemetry unit", format: "FW-{code}" },
      { name: "berth", description: "Current berth assignment", format: "BX-{code}" },
    ],
    enumField: {
      name: "firmware_channel",
      description: "Release channel of the telemetry unit",
      values: ["maritime-lts", "maritime-edge", "maritime-beta"],
    },
    numberField: { name: "draft_m", description: "Current draught in metres", min: 6, max: 16 },
    linkField: { name: "open_order_id", description: "The maintenance order currently open for this vessel" },
  },
  work: {
    plural: "maintenance-orders",
    noun: "maintenance order",
    idField: "order_id",
    idTemplate: "MO-{canary}",
    levelField: { name: "priority", values: ["routine", "urgent", "critical"] },
    copyField: "firmware_build",
    statusField: "status",
    initialStatus: "queued",
    nextStatuses: ["dispatched", "closed"],
    noteField: "note",
  },
};
