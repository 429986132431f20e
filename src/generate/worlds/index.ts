import type { WorldTemplate } from "../world-template.js";
import { BILLING_LEDGER } from "./billing-ledger.js";
import { CLINICAL_SCHEDULING } from "./clinical-scheduling.js";
import { EVENT_TICKETING } from "./event-ticketing.js";
import { FLEET_TELEMETRY } from "./fleet-telemetry.js";
import { GRID_SUBSTATIONS } from "./grid-substations.js";
import { HARBOR_TELEMETRY } from "./harbor-telemetry.js";
import { HOTEL_HOUSEKEEPING } from "./hotel-housekeeping.js";
import { IRRIGATION_CONTROL } from "./irrigation-control.js";
import { LAB_SAMPLES } from "./lab-samples.js";
import { SATELLITE_GROUND } from "./satellite-ground.js";
import { TRANSIT_OPERATIONS } from "./transit-operations.js";
import { WAREHOUSE_ROBOTICS } from "./warehouse-robotics.js";
import { WATER_UTILITY } from "./water-utility.js";

/** Every world template, in bank order (the default shape gives the last four shorter storylines). */
export const WORLD_TEMPLATES: readonly WorldTemplate[] = [
  HARBOR_TELEMETRY,
  FLEET_TELEMETRY,
  IRRIGATION_CONTROL,
  TRANSIT_OPERATIONS,
  CLINICAL_SCHEDULING,
  WAREHOUSE_ROBOTICS,
  BILLING_LEDGER,
  GRID_SUBSTATIONS,
  LAB_SAMPLES,
  SATELLITE_GROUND,
  HOTEL_HOUSEKEEPING,
  WATER_UTILITY,
  EVENT_TICKETING,
];
