import type { JsonValue } from "../../bank/json.js";
import { formatEntityRef, normalizeEntityRef } from "../entity-ref.js";
import { error, errorOf, ok, okKept, type ToolResult } from "../tool-result.js";
import { parseScope, type ToolArgs, type WorkspaceState } from "../workspace-state.js";
import { specText } from "../world-spec.js";

/**
 * `read(entity_ref, scope?)`: the full content of one entity.
 *
 * @example readTool(state, { entity_ref: "variable:token" }).content // '{"scope":"vault","name":"token","value":"…"}'
 */
export function readTool(state: WorkspaceState, a: ToolArgs): ToolResult {
  const ref = normalizeEntityRef(a.entity_ref);
  if (!ref.success) return errorOf(ref.error);
  const { kind, id } = ref.data;
  switch (kind) {
    case "variable":
      return readVariable(state, id, a.scope);
    case "spec":
      if (id !== "openapi" && id !== state.specId) {
        return error("not_found", `no spec "${id}"; the workspace has spec:${state.specId}`);
      }
      return { ok: true, content: specText(state.opts.world, state.specId, state.spec) };
    case "request": {
      const content = state.requests.get(id);
      if (!content) return error("not_found", `no request "${id}"`);
      return ok({ ref: formatEntityRef(ref.data), content });
    }
    case "response": {
      const stored = state.responses.get(id);
      if (!stored) return error("not_found", `no response "${id}"`);
      const { parent, ...content } = stored;
      return okKept({ ref: formatEntityRef({ kind, id, parent }), content });
    }
    case "handle": {
      const content = state.handles.get(id);
      if (!content) return error("not_found", `no handle "${id}"`);
      return ok({ ref: formatEntityRef(ref.data), content });
    }
  }
}

function readVariable(state: WorkspaceState, id: string, rawScope: unknown): ToolResult {
  const scope = parseScope(rawScope);
  if (!scope.success) return errorOf(scope.error);
  const found = scope.data
    ? state.vars[scope.data].has(id)
      ? { scope: scope.data, value: state.vars[scope.data].get(id) as JsonValue }
      : null
    : state.lookupVariable(id);
  if (!found) {
    return error(
      "not_found",
      `no variable "${id}"${scope.data ? ` in scope ${scope.data}` : ""}; search(query: "", kind: "variable") lists them`,
    );
  }
  return ok({ scope: found.scope, name: id, value: found.value });
}
