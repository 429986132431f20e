import type { JsonObject } from "../../bank/json.js";
import { describe, normalizeEntityRef, parseMaybeJson } from "../entity-ref.js";
import { parseRequestContent } from "../request-content.js";
import { error, errorOf, type ToolResult, zodMessage } from "../tool-result.js";
import type { ToolArgs, WorkspaceState } from "../workspace-state.js";

/**
 * `edit(entity_ref, patch)`: shallow-merge a patch into a stored request (checked again after the
 * merge) or an object-valued local or global variable.
 *
 * @example editTool(state, { entity_ref: "request:r1", patch: { method: "PUT" } }).content // "request r1 edited"
 */
export function editTool(state: WorkspaceState, a: ToolArgs): ToolResult {
  const ref = normalizeEntityRef(a.entity_ref);
  if (!ref.success) return errorOf(ref.error);
  const patchParsed = parseMaybeJson(a.patch, "patch");
  if (!patchParsed.success) return errorOf(patchParsed.error);
  const patch = patchParsed.data;
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    return error("bad_patch", `patch must be an object, got ${describe(patch)}`);
  }
  const { kind, id } = ref.data;
  if (kind === "request") return editRequest(state, id, patch as JsonObject);
  if (kind === "variable") return editVariable(state, id, patch as JsonObject);
  return error("read_only", `${kind} entities are read-only`);
}

function editRequest(state: WorkspaceState, id: string, patch: JsonObject): ToolResult {
  const current = state.requests.get(id);
  if (!current) return error("not_found", `no request "${id}" to edit; write it first`);
  const merged = parseRequestContent({ ...current, ...patch });
  if (!merged.success) return error("bad_request", `patched request is invalid: ${zodMessage(merged.error)}`);
  state.requests.set(id, merged.data as JsonObject);
  return { ok: true, content: `request ${id} edited` };
}

function editVariable(state: WorkspaceState, id: string, patch: JsonObject): ToolResult {
  const found = state.lookupVariable(id);
  if (!found) return error("not_found", `no variable "${id}" to edit`);
  if (found.scope === "vault") return error("read_only", "the vault is read-only");
  const current = found.value;
  if (current === null || typeof current !== "object" || Array.isArray(current)) {
    return error(
      "bad_patch",
      `variable ${id} holds a ${describe(current)}, not an object; write a new value instead`,
    );
  }
  const value = { ...current, ...patch };
  state.vars[found.scope].set(id, value);
  state.opts.log.append({ type: "variable_write", scope: found.scope, name: id, value });
  return { ok: true, content: `variable ${found.scope}:${id} edited` };
}
