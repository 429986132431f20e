import type { WorldTemplate } from "../world-template.js";

/** Pickwise Warehouse Robotics API: Control plane for autonomous mobile robots in a fulfilment centre: robots, their navigation maps, and missions. */
export const WAREHOUSE_ROBOTICS: WorldTemplate = {
  id: "warehouse-robotics",
  title: "Pickwise Warehouse Robotics API",
  description:
    "Control plane for autonomous mobile robots in a fulfilment centre: robots, their navigation maps, and missions.",
  port: 9006,
  base: "/v3/fc",
  deprecatedBase: "/v2/fc",
  lookalike: { segment: "integrator", audience: "system integrators" },
  tokenPath: "/v3/fc/oauth/token",
  tokenPrefix: "pw_",
  ttl: 6,
  updateMethod: "PATCH",
  pagination: { style: "cursor", pageSize: 16, maxPageSize: 30 },
  collectionSize: 96,
  reporters: [
    "the shift lead in aisle 9",
    "Jonas from robotics support",
    "the fulfilment manager",
    "the maintenance tech",
  ],
  systems: ["the wave planner", "the charging-dock monitor", "the mission dispatcher", "the WMS bridge"],
  asset: {
    plural: "robots",
    noun: "robot",
    idField: "robot_id",
    idPattern: "amr-xxxxx",
    nameField: "nickname",
    names: ["Pallas", "Moth", "Quokka", "Tinker", "Basil", "Ferro", "Juno"],
    canaryFields: [
      { name: "nav_map_rev", description: "Revision of the navigation map loaded", format: "MAP-{code}" },
      { name: "safety_cert", description: "Current safety-scanner certificate", format: "SC-{code}" },
    ],
    enumField: { name: "zone", description: "Assigned zone", values: ["ambient", "chilled", "bulk"] },
    numberField: { name: "battery_pct", description: "Battery charge in percent", min: 12, max: 100 },
    linkField: { name: "current_mission_id", description: "The mission the robot is on" },
  },
  work: {
    plural: "missions",
    noun: "mission",
    idField: "mission_id",
    idTemplate: "MSN-{canary}",
    levelField: { name: "lane", values: ["standard", "express", "hazmat"] },
    copyField: "nav_map_rev",
    statusField: "mission_state",
    initialStatus: "planned",
    nextStatuses: ["running", "done"],
    noteField: "instructions",
  },
  errors: { shape: "errors", code_case: "kebab", message_template: "{message} [{code}]" },
};
