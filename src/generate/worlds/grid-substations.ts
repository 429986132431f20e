import type { WorldTemplate } from "../world-template.js";

/** Kilowatt Grid Asset API: Asset management for a regional power grid: substations, protection relays, and switching orders. */
export const GRID_SUBSTATIONS: WorldTemplate = {
  id: "grid-substations",
  title: "Kilowatt Grid Asset API",
  description:
    "Asset management for a regional power grid: substations, protection relays, and switching orders.",
  port: 9008,
  base: "/grid/v3",
  deprecatedBase: "/grid/v1",
  lookalike: { segment: "market", audience: "energy-market participants" },
  tokenPath: "/grid/token",
  tokenPrefix: "kw_",
  ttl: 6,
  updateMethod: "PUT",
  pagination: { style: "offset", pageSize: 12, maxPageSize: 20 },
  collectionSize: 66,
  reporters: [
    "the grid control engineer",
    "Oona from protection",
    "the outage planner",
    "the substation crew lead",
  ],
  systems: ["the SCADA bridge", "the outage calendar", "the relay-settings audit", "the switching assistant"],
  asset: {
    plural: "substations",
    noun: "substation",
    idField: "substation_id",
    idPattern: "SS-@@#",
    nameField: "site_name",
    names: ["Marsh Lane", "Kiln Hill", "Threeways", "Bramble Cross", "Weir Road", "Gallows Green"],
    canaryFields: [
      {
        name: "relay_settings_rev",
        description: "Revision of the protection relay settings",
        format: "RS-{code}",
      },
      { name: "lockout_key", description: "Current lockout key number", format: "LK-{code}" },
    ],
    enumField: { name: "voltage_level", description: "Voltage level", values: ["11kV", "33kV", "132kV"] },
    numberField: { name: "load_mw", description: "Current load in MW", min: 2, max: 180 },
    linkField: { name: "active_switching_order", description: "The switching order in force" },
  },
  work: {
    plural: "switching-orders",
    noun: "switching order",
    idField: "order_no",
    idTemplate: "SWO-{canary}",
    levelField: { name: "risk", values: ["low-risk", "elevated", "critical-path"] },
    copyField: "relay_settings_rev",
    statusField: "order_state",
    initialStatus: "drafted",
    nextStatuses: ["authorised", "executed"],
    noteField: "safety_note",
  },
  errors: { shape: "fault", message_template: "E{status}: {message}" },
};
