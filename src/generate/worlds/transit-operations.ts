import type { WorldTemplate } from "../world-template.js";

/** Metrolink Transit Operations API: Operations for a city bus and tram network: vehicles, their onboard validators, and service disruptions. */
export const TRANSIT_OPERATIONS: WorldTemplate = {
  id: "transit-operations",
  title: "Metrolink Transit Operations API",
  description:
    "Operations for a city bus and tram network: vehicles, their onboard validators, and service disruptions.",
  port: 9004,
  base: "/v3/ops",
  deprecatedBase: "/v2/ops",
  lookalike: { segment: "public", audience: "the public journey planner" },
  tokenPath: "/v3/ops/token",
  tokenPrefix: "ml_",
  ttl: 6,
  updateMethod: "PATCH",
  pagination: { style: "link", pageSize: 14, maxPageSize: 25 },
  collectionSize: 80,
  reporters: [
    "the control-room supervisor",
    "Aisha from depot engineering",
    "the service planner",
    "the tram duty manager",
  ],
  systems: [
    "the passenger-information feed",
    "the depot allocation tool",
    "the fare-validator monitor",
    "the disruption bot",
  ],
  asset: {
    plural: "vehicles",
    noun: "vehicle",
    idField: "fleet_no",
    idPattern: "####",
    nameField: "depot_name",
    names: [
      "Tram Lindenhof",
      "Bus Kesselberg",
      "Tram Rosenau",
      "Bus Hafenring",
      "Tram Altmarkt",
      "Bus Weidenweg",
    ],
    canaryFields: [
      { name: "validator_build", description: "Build of the onboard ticket validator", format: "VB-{code}" },
      { name: "radio_key", description: "Current radio encryption key id", format: "RK-{code}" },
    ],
    enumField: {
      name: "service_state",
      description: "Allocation state",
      values: ["in-service", "standby", "workshop"],
    },
    numberField: { name: "odometer_kkm", description: "Odometer in thousands of km", min: 20, max: 900 },
    linkField: {
      name: "open_disruption_id",
      description: "The disruption this vehicle is currently part of",
    },
  },
  work: {
    plural: "disruptions",
    noun: "disruption",
    idField: "disruption_id",
    idTemplate: "DSR-{canary}",
    levelField: { name: "severity", values: ["minor", "major", "severe"] },
    copyField: "validator_build",
    statusField: "stage",
    initialStatus: "reported",
    nextStatuses: ["acknowledged", "resolved"],
    noteField: "details",
  },
  errors: { shape: "fault", code_case: "upper", message_template: "Request refused: {message}." },
};
