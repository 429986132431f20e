import type { JsonObject, JsonValue } from "../../bank/json.js";
import { normalizeEntityRef, parseMaybeJson } from "../entity-ref.js";
import { parseRequestContent } from "../request-content.js";
import { error, errorOf, type ToolResult, zodMessage } from "../tool-result.js";
import { parseScope, type ToolArgs, type WorkspaceState } from "../workspace-state.js";

/**
 * `write(entity_ref, content, scope?)`: create or replace a request or a variable (local by
 * default; the vault is read-only). A variable's content is `{"value": v}` or a bare value.
 *
 * @example writeTool(state, { entity_ref: "variable:id", content: { value: "7" } }).content // "variable local:id written"
 */
export function writeTool(state: WorkspaceState, a: ToolArgs): ToolResult {
  const ref = normalizeEntityRef(a.entity_ref);
  if (!ref.success) return errorOf(ref.error);
  const contentParsed = parseMaybeJson(a.content, "content");
  if (!contentParsed.success) return errorOf(contentParsed.error);
  const content = contentParsed.data;
  if (content === undefined) return error("missing_field", "write needs `content`");
  const { kind, id } = ref.data;
  if (kind === "variable") return writeVariable(state, id, content, a.scope);
  if (kind === "request") {
    const request = parseRequestContent(content);
    if (!request.success)
      return error("bad_request", `request content is invalid: ${zodMessage(request.error)}`);
    state.requests.set(id, request.data as JsonObject);
    return { ok: true, content: `request ${id} written` };
  }
  return error("read_only", `${kind} entities are read-only; you can write requests and variables`);
}

function writeVariable(state: WorkspaceState, id: string, content: unknown, rawScope: unknown): ToolResult {
  const scope = parseScope(rawScope);
  if (!scope.success) return errorOf(scope.error);
  const target = scope.data ?? "local";
  if (target === "vault") return error("read_only", "the vault is read-only; write to scope local or global");
  let value: JsonValue;
  if (content !== null && typeof content === "object" && !Array.isArray(content)) {
    if (!("value" in content)) {
      return error(
        "bad_content",
        'variable content must be {"value": <v>} (or a bare string, number or boolean)',
      );
    }
    value = (content as { value: JsonValue }).value;
  } else value = content as JsonValue;
  state.vars[target].set(id, value);
  state.opts.log.append({ type: "variable_write", scope: target, name: id, value });
  return { ok: true, content: `variable ${target}:${id} written` };
}
