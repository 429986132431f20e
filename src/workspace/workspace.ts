import type { JsonValue } from "../bank/json.js";
import type { EventLog } from "../world/event-log.js";
import type { WorldTransport } from "../world/transport.js";
import { describe, parseMaybeJson } from "./entity-ref.js";
import { type Scope, TOOL_NAMES, type ToolName } from "./tool-definitions.js";
import { error, errorOf, type ToolResult } from "./tool-result.js";
import { clarifyTool } from "./tools/clarify.js";
import { editTool } from "./tools/edit.js";
import { executeTool } from "./tools/execute.js";
import { readTool } from "./tools/read.js";
import { reportBlockedTool } from "./tools/report-blocked.js";
import { searchTool } from "./tools/search.js";
import { writeTool } from "./tools/write.js";
import { type ToolArgs, type WorkspaceOptions, WorkspaceState } from "./workspace-state.js";

export { type ToolResult, toolResultValue } from "./tool-result.js";
export type { WorkspaceOptions } from "./workspace-state.js";
export { worldSpec } from "./world-spec.js";

/** The seven tools, each over the workspace's state (one file per tool in `tools/`). */
const TOOLS: Record<ToolName, (state: WorkspaceState, args: ToolArgs) => ToolResult | Promise<ToolResult>> = {
  read: readTool,
  write: writeTool,
  edit: editTool,
  search: searchTool,
  execute: executeTool,
  clarify: (_state, args) => clarifyTool(args),
  report_blocked: (_state, args) => reportBlockedTool(args),
};

/**
 * One trial's workspace: its entities (requests, responses, variables in three scopes, the spec,
 * handles) and the seven tools over them. Every call returns a `ToolResult`; an agent's mistake is
 * an error message it can act on, never an exception.
 *
 * @example const r = await ws.call("read", { entity_ref: { kind: "spec", id: "openapi" } });
 */
export class Workspace {
  private readonly state: WorkspaceState;

  constructor(opts: WorkspaceOptions) {
    this.state = new WorkspaceState(opts);
  }

  /**
   * An independent copy of this workspace (variables, requests, responses, handles, id counters)
   * whose calls go to `transport` and write to `log`: given the same world state it answers every
   * later call exactly as this one would. Stored entities are replaced, never changed in place, so
   * the copy shares them.
   *
   * @example const copy = ws.fork({ transport: inProcessTransport(forkedTrial), log: forkedTrial.log });
   */
  fork(to: { transport: WorldTransport; log: EventLog }): Workspace {
    const copy = new Workspace({
      ...this.state.opts,
      ...to,
      variables: { vault: {}, local: {}, global: {} },
    });
    this.state.copyInto(copy.state);
    return copy;
  }

  /** Run one tool call. Arguments arrive as the model sent them (an object or a JSON string). */
  async call(name: string, rawArgs: unknown): Promise<ToolResult> {
    if (!TOOL_NAMES.includes(name as ToolName)) {
      return error("unknown_tool", `there is no tool "${name}"; the tools are ${TOOL_NAMES.join(", ")}`);
    }
    const argsParsed = parseMaybeJson(rawArgs ?? {}, "arguments");
    if (!argsParsed.success) return errorOf(argsParsed.error);
    const args = argsParsed.data;
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return error("bad_arguments", `arguments must be an object, got ${describe(args)}`);
    }
    return TOOLS[name as ToolName](this.state, args as ToolArgs);
  }

  /** Variables of one scope as they stand now (for the grader's workspace-value predicates). */
  variables(scope: Scope): ReadonlyMap<string, JsonValue> {
    return this.state.vars[scope];
  }
}
