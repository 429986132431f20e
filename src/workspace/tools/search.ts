import type { JsonValue } from "../../bank/json.js";
import { describe, EntityKindSchema } from "../entity-ref.js";
import { error, ok, type ToolResult } from "../tool-result.js";
import { SCOPE_ORDER, type ToolArgs, type WorkspaceState } from "../workspace-state.js";

/**
 * `search(query, kind?)`: the refs of the entities whose id (a response: or its request's id)
 * contains `query`, case-insensitively; an empty query lists them all.
 *
 * @example searchTool(state, { query: "", kind: "variable" }).content // '[{"kind":"variable","id":"token","scope":"vault"}]'
 */
export function searchTool(state: WorkspaceState, a: ToolArgs): ToolResult {
  const query = a.query === undefined || a.query === null ? "" : a.query;
  if (typeof query !== "string") return error("bad_type", `query must be a string, got ${describe(query)}`);
  const kind = a.kind;
  if (kind !== undefined && kind !== null && !(EntityKindSchema.options as string[]).includes(String(kind))) {
    return error(
      "unknown_kind",
      `kind ${JSON.stringify(kind)} is not one of request, response, variable, spec, handle`,
    );
  }
  const q = query.toLowerCase();
  const hits: JsonValue[] = [];
  const want = (k: string) => kind === undefined || kind === null || kind === k;
  const match = (text: string) => q === "" || text.toLowerCase().includes(q);
  if (want("spec") && match(`spec:${state.specId} ${state.specId}`)) hits.push(`spec:${state.specId}`);
  if (want("variable")) {
    for (const scope of SCOPE_ORDER) {
      for (const name of state.vars[scope].keys())
        if (match(name)) hits.push({ kind: "variable", id: name, scope });
    }
  }
  if (want("request")) for (const id of state.requests.keys()) if (match(id)) hits.push(`request:${id}`);
  if (want("response")) {
    for (const [id, r] of state.responses)
      if (match(id) || match(r.parent)) hits.push(`request:${r.parent}/response:${id}`);
  }
  if (want("handle")) for (const id of state.handles.keys()) if (match(id)) hits.push(`handle:${id}`);
  return ok(hits);
}
