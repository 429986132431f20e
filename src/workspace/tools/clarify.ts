import type { ToolResult } from "../tool-result.js";
import type { ToolArgs } from "../workspace-state.js";
import { abstain } from "./abstain.js";

/**
 * `clarify(question)`: abstain by asking the user; ends the trial.
 *
 * @example clarifyTool({ question: "Which valve?" }).ends // "clarify"
 */
export function clarifyTool(a: ToolArgs): ToolResult {
  return abstain(a, "question", "clarify");
}
