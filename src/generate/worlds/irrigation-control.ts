import type { WorldTemplate } from "../world-template.js";

/** Verdant Irrigation Control API: Irrigation control for orchards and vineyards: valve zones, soil-moisture probes, and watering schedules. */
export const IRRIGATION_CONTROL: WorldTemplate = {
  id: "irrigation-control",
  title: "Verdant Irrigation Control API",
  description:
    "Irrigation control for orchards and vineyards: valve zones, soil-moisture probes, and watering schedules.",
  port: 9003,
  base: "/v3/farm",
  deprecatedBase: "/v2/farm",
  lookalike: { segment: "consultant", audience: "agronomy consultants" },
  tokenPath: "/oauth/token",
  tokenPrefix: "vd_",
  ttl: 6,
  updateMethod: "PATCH",
  pagination: { style: "page", pageSize: 14 },
  reporters: [
    "the orchard manager",
    "Tom\u00e1s on the night shift",
    "the agronomist",
    "the pump-house operator",
  ],
  systems: [
    "the valve controller",
    "the moisture dashboard",
    "the weather-sync job",
    "the fertigation planner",
  ],
  asset: {
    plural: "zones",
    noun: "zone",
    idField: "zone_id",
    idPattern: "z-xxxx",
    nameField: "label",
    names: [
      "East Terrace",
      "Old Pinot Block",
      "Creek Rows",
      "Hilltop Apples",
      "Nursery Beds",
      "South Cherries",
    ],
    canaryFields: [
      { name: "controller_fw", description: "Firmware of the zone controller", format: "CF-{code}" },
      { name: "probe_serial", description: "Serial of the soil-moisture probe", format: "PR-{code}" },
    ],
    enumField: {
      name: "soil_type",
      description: "Dominant soil type",
      values: ["loam", "clay", "sandy-loam"],
    },
    numberField: {
      name: "moisture_pct",
      description: "Volumetric soil moisture in percent",
      min: 8,
      max: 45,
    },
    linkField: { name: "current_schedule_id", description: "The watering schedule currently attached" },
  },
  work: {
    plural: "schedules",
    noun: "watering schedule",
    idField: "schedule_id",
    idTemplate: "SCH-{canary}",
    levelField: { name: "intensity", values: ["light", "normal", "deep"] },
    copyField: "controller_fw",
    statusField: "phase",
    initialStatus: "draft",
    nextStatuses: ["armed", "finished"],
    noteField: "comment",
  },
  errors: { shape: "errors", code_case: "upper" },
};
