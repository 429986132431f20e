import type { WorldTemplate } from "../world-template.js";
import { HARBOR_TELEMETRY } from "./harbor-telemetry.js";

/** Every world template, in bank order (the default shape gives the last four shorter storylines). */
export const WORLD_TEMPLATES: readonly WorldTemplate[] = [HARBOR_TELEMETRY];
