import type { ToolResult } from "../tool-result.js";
import type { ToolArgs } from "../workspace-state.js";
import { abstain } from "./abstain.js";

/**
 * `report_blocked(reason)`: abstain, declaring the job impossible; ends the trial.
 *
 * @example reportBlockedTool({ reason: "no such route" }).ends // "report_blocked"
 */
export function reportBlockedTool(a: ToolArgs): ToolResult {
  return abstain(a, "reason", "report_blocked");
}
