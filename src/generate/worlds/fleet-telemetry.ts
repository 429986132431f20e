import type { WorldTemplate } from "../world-template.js";

/** Roadline Fleet Telemetry API: Telematics for a long-haul truck fleet: trucks, their ECU firmware, odometer and fuel data, and workshop jobs. */
export const FLEET_TELEMETRY: WorldTemplate = {
  id: "fleet-telemetry",
  title: "Roadline Fleet Telemetry API",
  description:
    "Telematics for a long-haul truck fleet: trucks, their ECU firmware, odometer and fuel data, and workshop jobs.",
  port: 9002,
  base: "/api/v3",
  deprecatedBase: "/api/v1",
  lookalike: { segment: "dealer", audience: "dealership service desks" },
  tokenPath: "/api/v3/auth/token",
  tokenPrefix: "rl_",
  ttl: 5,
  updateMethod: "PUT",
  pagination: { style: "cursor", pageSize: 16 },
  reporters: ["the fleet controller", "Marek from the workshop", "the telematics lead", "the night planner"],
  systems: [
    "the route planner",
    "the fuel-card reconciler",
    "the workshop scheduler",
    "the driver app backend",
  ],
  asset: {
    plural: "trucks",
    noun: "truck",
    idField: "truck_id",
    idPattern: "TRK-####",
    nameField: "callsign",
    names: [
      "Ridgeback",
      "Polar Haul",
      "Iron Finch",
      "Dune Runner",
      "Cobalt Mule",
      "North Star",
      "Grey Heron",
    ],
    canaryFields: [
      { name: "ecu_build", description: "Engine control unit firmware build", format: "ECU-{code}" },
      { name: "tachograph_seal", description: "Current tachograph seal number", format: "TS-{code}" },
    ],
    enumField: {
      name: "emission_class",
      description: "Emission class",
      values: ["euro-5", "euro-6", "euro-6d"],
    },
    numberField: { name: "fuel_level_pct", description: "Fuel level in percent", min: 5, max: 98 },
    linkField: { name: "active_job_id", description: "The workshop job currently open for this truck" },
  },
  work: {
    plural: "workshop-jobs",
    noun: "workshop job",
    idField: "job_ref",
    idTemplate: "WJ-{canary}",
    levelField: { name: "urgency", values: ["low", "standard", "roadside"] },
    copyField: "ecu_build",
    statusField: "state",
    initialStatus: "booked",
    nextStatuses: ["in_bay", "released"],
    noteField: "remarks",
  },
};
