import type { WorldTemplate } from "../world-template.js";

/** Orbitdesk Ground Segment API: Ground-station operations for a small-satellite constellation: satellites, their onboard software, and contact passes. */
export const SATELLITE_GROUND: WorldTemplate = {
  id: "satellite-ground",
  title: "Orbitdesk Ground Segment API",
  description:
    "Ground-station operations for a small-satellite constellation: satellites, their onboard software, and contact passes.",
  port: 9010,
  base: "/v3/gs",
  deprecatedBase: "/v2/gs",
  lookalike: { segment: "customer", audience: "imagery customers" },
  tokenPath: "/v3/gs/auth",
  tokenPrefix: "od_",
  ttl: 6,
  updateMethod: "PATCH",
  pagination: { style: "cursor", pageSize: 16, maxPageSize: 20 },
  collectionSize: 70,
  reporters: [
    "the flight-dynamics engineer",
    "Sven on console",
    "the mission planner",
    "the ground-station manager",
  ],
  systems: ["the pass scheduler", "the telemetry archiver", "the command uplinker", "the anomaly board"],
  asset: {
    plural: "satellites",
    noun: "satellite",
    idField: "norad_id",
    idPattern: "5####",
    nameField: "callsign",
    names: ["Kestrel-1", "Kestrel-2", "Aurora-A", "Aurora-B", "Tern-7", "Lynx-3"],
    canaryFields: [
      { name: "obsw_build", description: "Onboard software build", format: "OBSW-{code}" },
      { name: "crypto_epoch", description: "Current command-link crypto epoch", format: "EP-{code}" },
    ],
    enumField: {
      name: "orbit_plane",
      description: "Orbital plane",
      values: ["plane-a", "plane-b", "plane-c"],
    },
    numberField: {
      name: "battery_soc_pct",
      description: "Battery state of charge in percent",
      min: 20,
      max: 100,
    },
    linkField: { name: "next_pass_id", description: "The contact pass booked next" },
  },
  work: {
    plural: "passes",
    noun: "contact pass",
    idField: "pass_id",
    idTemplate: "PASS-{canary}",
    levelField: { name: "priority_class", values: ["bulk", "ops", "emergency"] },
    copyField: "obsw_build",
    statusField: "pass_state",
    initialStatus: "pending-review",
    nextStatuses: ["scheduled", "completed"],
    noteField: "purpose",
  },
  errors: { shape: "errors", message_template: "Error {status} - {message}" },
};
