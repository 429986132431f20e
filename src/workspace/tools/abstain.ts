import type { ToolResult } from "../tool-result.js";
import { error } from "../tool-result.js";
import type { ToolArgs } from "../workspace-state.js";

/** An abstention (`clarify` or `report_blocked`): its text argument must be a non-empty string. */
export function abstain(a: ToolArgs, field: string, ends: "clarify" | "report_blocked"): ToolResult {
  const text = a[field];
  if (typeof text !== "string" || text.trim() === "") {
    return error("missing_field", `${ends} needs \`${field}\` (a non-empty string)`);
  }
  return {
    ok: true,
    content: `${ends === "clarify" ? "question sent to the user" : "blocked reported"}; the trial ends`,
    ends,
  };
}
