import { printSchema } from "graphql";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import type { EventLog } from "../world/event-log.js";
import { worldGraphqlSchema } from "../world/graphql-schema.js";
import { MCP_WORLD_PATH, worldMcpTools } from "../world/mcp-world.js";
import { renderOpenApi } from "../world/openapi.js";
import type { PlainResponse, WorldTransport } from "../world/transport.js";
import {
  describe,
  formatEntityRef,
  normalizeEntityRef,
  type Parsed,
  parseMaybeJson,
  type ToolArgError,
} from "./entity-ref.js";
import { resolvePlaceholders } from "./placeholders.js";
import { parseRequestContent } from "./request-content.js";
import {
  type RequestContent,
  type RestRequest,
  type Scope,
  ScopeSchema,
  TOOL_NAMES,
  type ToolName,
} from "./tool-definitions.js";

/** What a tool call returns to the agent. `ends` is set by `clarify` and `report_blocked`. */
export interface ToolResult {
  ok: boolean;
  /** The text the agent sees (JSON for data, a sentence for errors). */
  content: string;
  error?: ToolArgError;
  ends?: "clarify" | "report_blocked";
}

interface StoredResponse {
  parent: string;
  status: number;
  headers: Record<string, string>;
  body: JsonValue | null;
}

export interface WorkspaceOptions {
  world: World;
  transport: WorldTransport;
  log: EventLog;
  variables: {
    vault: Record<string, JsonValue>;
    local: Record<string, JsonValue>;
    global: Record<string, JsonValue>;
  };
  /** Characters of the response body shown in `execute`'s preview. */
  previewChars?: number;
}

const SCOPE_ORDER: Scope[] = ["vault", "local", "global"];

/**
 * One trial's workspace: its entities (requests, responses, variables in three scopes, the spec,
 * handles) and the seven tools over them. Every call returns a `ToolResult`; an agent's mistake is
 * an error message it can act on, never an exception.
 *
 * @example const r = await ws.call("read", { entity_ref: { kind: "spec", id: "openapi" } });
 */
export class Workspace {
  private readonly vars: Record<Scope, Map<string, JsonValue>>;
  private readonly requests = new Map<string, JsonObject>();
  private readonly responses = new Map<string, StoredResponse>();
  private readonly handles = new Map<string, JsonObject>();
  private seq = 0;
  private rpcSeq = 0;
  private readonly spec: JsonObject;

  constructor(private readonly opts: WorkspaceOptions) {
    this.vars = {
      vault: new Map(Object.entries(opts.variables.vault)),
      local: new Map(Object.entries(opts.variables.local)),
      global: new Map(Object.entries(opts.variables.global)),
    };
    this.spec = worldSpec(opts.world);
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
    const copy = new Workspace({ ...this.opts, ...to, variables: { vault: {}, local: {}, global: {} } });
    for (const scope of SCOPE_ORDER) for (const [k, v] of this.vars[scope]) copy.vars[scope].set(k, v);
    for (const [k, v] of this.requests) copy.requests.set(k, v);
    for (const [k, v] of this.responses) copy.responses.set(k, v);
    for (const [k, v] of this.handles) copy.handles.set(k, v);
    copy.seq = this.seq;
    copy.rpcSeq = this.rpcSeq;
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
    const a = args as Record<string, unknown>;
    switch (name as ToolName) {
      case "read":
        return this.read(a);
      case "write":
        return this.write(a);
      case "edit":
        return this.edit(a);
      case "search":
        return this.search(a);
      case "execute":
        return this.execute(a);
      case "clarify":
        return this.abstain(a, "question", "clarify");
      case "report_blocked":
        return this.abstain(a, "reason", "report_blocked");
    }
  }

  /** Variables of one scope as they stand now (for the grader's workspace-value predicates). */
  variables(scope: Scope): ReadonlyMap<string, JsonValue> {
    return this.vars[scope];
  }

  private lookupVariable(name: string): { scope: Scope; value: JsonValue } | null {
    for (const scope of SCOPE_ORDER) {
      const v = this.vars[scope];
      if (v.has(name)) return { scope, value: v.get(name) as JsonValue };
    }
    return null;
  }

  private read(a: Record<string, unknown>): ToolResult {
    const ref = normalizeEntityRef(a.entity_ref);
    if (!ref.success) return errorOf(ref.error);
    const { kind, id } = ref.data;
    switch (kind) {
      case "variable": {
        const scope = parseScope(a.scope);
        if (!scope.success) return errorOf(scope.error);
        const found = scope.data
          ? this.vars[scope.data].has(id)
            ? { scope: scope.data, value: this.vars[scope.data].get(id) as JsonValue }
            : null
          : this.lookupVariable(id);
        if (!found) {
          return error(
            "not_found",
            `no variable "${id}"${scope.data ? ` in scope ${scope.data}` : ""}; search(query: "", kind: "variable") lists them`,
          );
        }
        return ok({ scope: found.scope, name: id, value: found.value });
      }
      case "spec":
        if (id !== "openapi" && id !== this.specId) {
          return error("not_found", `no spec "${id}"; the workspace has spec:${this.specId}`);
        }
        return { ok: true, content: specText(this.opts.world, this.specId, this.spec) };
      case "request": {
        const content = this.requests.get(id);
        if (!content) return error("not_found", `no request "${id}"`);
        return ok({ ref: formatEntityRef(ref.data), content });
      }
      case "response": {
        const stored = this.responses.get(id);
        if (!stored) return error("not_found", `no response "${id}"`);
        const { parent, ...content } = stored;
        return okKept({ ref: formatEntityRef({ kind, id, parent }), content });
      }
      case "handle": {
        const content = this.handles.get(id);
        if (!content) return error("not_found", `no handle "${id}"`);
        return ok({ ref: formatEntityRef(ref.data), content });
      }
    }
  }

  private write(a: Record<string, unknown>): ToolResult {
    const ref = normalizeEntityRef(a.entity_ref);
    if (!ref.success) return errorOf(ref.error);
    const contentParsed = parseMaybeJson(a.content, "content");
    if (!contentParsed.success) return errorOf(contentParsed.error);
    const content = contentParsed.data;
    if (content === undefined) return error("missing_field", "write needs `content`");
    const { kind, id } = ref.data;
    if (kind === "variable") {
      const scope = parseScope(a.scope);
      if (!scope.success) return errorOf(scope.error);
      const target = scope.data ?? "local";
      if (target === "vault")
        return error("read_only", "the vault is read-only; write to scope local or global");
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
      this.vars[target].set(id, value);
      this.opts.log.append({ type: "variable_write", scope: target, name: id, value });
      return { ok: true, content: `variable ${target}:${id} written` };
    }
    if (kind === "request") {
      const request = parseRequestContent(content);
      if (!request.success)
        return error("bad_request", `request content is invalid: ${zodMessage(request.error)}`);
      this.requests.set(id, request.data as JsonObject);
      return { ok: true, content: `request ${id} written` };
    }
    return error("read_only", `${kind} entities are read-only; you can write requests and variables`);
  }

  private edit(a: Record<string, unknown>): ToolResult {
    const ref = normalizeEntityRef(a.entity_ref);
    if (!ref.success) return errorOf(ref.error);
    const patchParsed = parseMaybeJson(a.patch, "patch");
    if (!patchParsed.success) return errorOf(patchParsed.error);
    const patch = patchParsed.data;
    if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
      return error("bad_patch", `patch must be an object, got ${describe(patch)}`);
    }
    const { kind, id } = ref.data;
    if (kind === "request") {
      const current = this.requests.get(id);
      if (!current) return error("not_found", `no request "${id}" to edit; write it first`);
      const merged = parseRequestContent({ ...current, ...(patch as JsonObject) });
      if (!merged.success)
        return error("bad_request", `patched request is invalid: ${zodMessage(merged.error)}`);
      this.requests.set(id, merged.data as JsonObject);
      return { ok: true, content: `request ${id} edited` };
    }
    if (kind === "variable") {
      const found = this.lookupVariable(id);
      if (!found) return error("not_found", `no variable "${id}" to edit`);
      if (found.scope === "vault") return error("read_only", "the vault is read-only");
      const current = found.value;
      if (current === null || typeof current !== "object" || Array.isArray(current)) {
        return error(
          "bad_patch",
          `variable ${id} holds a ${describe(current)}, not an object; write a new value instead`,
        );
      }
      const value = { ...current, ...(patch as JsonObject) };
      this.vars[found.scope].set(id, value);
      this.opts.log.append({ type: "variable_write", scope: found.scope, name: id, value });
      return { ok: true, content: `variable ${found.scope}:${id} edited` };
    }
    return error("read_only", `${kind} entities are read-only`);
  }

  private search(a: Record<string, unknown>): ToolResult {
    const query = a.query === undefined || a.query === null ? "" : a.query;
    if (typeof query !== "string") return error("bad_type", `query must be a string, got ${describe(query)}`);
    const kind = a.kind;
    if (
      kind !== undefined &&
      kind !== null &&
      !["request", "response", "variable", "spec", "handle"].includes(String(kind))
    ) {
      return error(
        "unknown_kind",
        `kind ${JSON.stringify(kind)} is not one of request, response, variable, spec, handle`,
      );
    }
    const q = query.toLowerCase();
    const hits: JsonValue[] = [];
    const want = (k: string) => kind === undefined || kind === null || kind === k;
    const match = (text: string) => q === "" || text.toLowerCase().includes(q);
    if (want("spec") && match(`spec:${this.specId} ${this.specId}`)) hits.push(`spec:${this.specId}`);
    if (want("variable")) {
      for (const scope of SCOPE_ORDER) {
        for (const name of this.vars[scope].keys())
          if (match(name)) hits.push({ kind: "variable", id: name, scope });
      }
    }
    if (want("request")) for (const id of this.requests.keys()) if (match(id)) hits.push(`request:${id}`);
    if (want("response")) {
      for (const [id, r] of this.responses)
        if (match(id) || match(r.parent)) hits.push(`request:${r.parent}/response:${id}`);
    }
    if (want("handle")) for (const id of this.handles.keys()) if (match(id)) hits.push(`handle:${id}`);
    return ok(hits);
  }

  private async execute(a: Record<string, unknown>): Promise<ToolResult> {
    let content: RequestContent;
    let requestId: string;
    if (a.request !== undefined && a.request !== null) {
      const parsed = parseMaybeJson(a.request, "request");
      if (!parsed.success) return errorOf(parsed.error);
      const checked = parseRequestContent(parsed.data);
      if (!checked.success) return error("bad_request", `request is invalid: ${zodMessage(checked.error)}`);
      content = checked.data;
      requestId = this.nextId("req");
      this.requests.set(requestId, content as JsonObject);
    } else if (a.target !== undefined && a.target !== null) {
      const ref = normalizeEntityRef(a.target, "target");
      if (!ref.success) return errorOf(ref.error);
      if (ref.data.kind !== "request")
        return error("bad_target", `target must be a request, got ${ref.data.kind}`);
      const stored = this.requests.get(ref.data.id);
      if (!stored)
        return error("not_found", `no request "${ref.data.id}"; write it first or pass request={...}`);
      content = stored as RequestContent;
      requestId = ref.data.id;
    } else {
      return error("missing_field", "execute needs `request` (inline) or `target` (a stored request)");
    }
    const protocol = this.opts.world.protocol ?? "rest";
    if (content.protocol !== "rest" && content.protocol !== protocol) {
      return error(
        "unsupported_protocol",
        `this world speaks ${protocol}, not ${content.protocol}; ${PROTOCOL_HINT[protocol]}`,
      );
    }
    const request = this.carrier(content);
    const resolved = resolvePlaceholders(request, (name) => this.lookupVariable(name)?.value);
    if (!resolved.success) return errorOf(resolved.error);
    const req = resolved.data;
    const method = req.method.toUpperCase();
    const target = worldTarget(req.url, this.opts.world.base_url);
    if (target === null) return error("bad_url", `url ${JSON.stringify(req.url)} is not a URL or a path`);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      try {
        headers.set(k, v);
      } catch {
        return error("bad_header", `header ${JSON.stringify(k)} is not a valid HTTP header`);
      }
    }
    let body: string | undefined;
    if (req.body !== undefined && req.body !== null && method !== "GET" && method !== "HEAD") {
      body = typeof req.body === "string" ? req.body : JSON.stringify(req.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    let response: PlainResponse | Response;
    try {
      const { transport } = this.opts;
      response = transport.plain
        ? await transport.plain({ url: target, method, headers }, body)
        : await transport(new Request(target, { method, headers, body }));
    } catch (e) {
      return error("transport_failed", `the request could not be sent: ${(e as Error).message}`);
    }
    const text = response instanceof Response ? await response.text() : response.text;
    let parsedBody: JsonValue | null = null;
    try {
      parsedBody = text ? (JSON.parse(text) as JsonValue) : null;
    } catch {
      parsedBody = text;
    }
    if (content.protocol === "mcp") parsedBody = unwrapJsonRpc(parsedBody);
    const responseHeaders = Object.fromEntries(response.headers.entries());
    const responseId = this.nextId("resp");
    this.responses.set(responseId, {
      parent: requestId,
      status: response.status,
      headers: responseHeaders,
      body: parsedBody,
    });
    if (response.status === 202) {
      const location = response.headers.get("location");
      const handleId = location ? location.split("/").filter(Boolean).pop() : undefined;
      if (handleId)
        this.handles.set(handleId, {
          location: location as string,
          from: `request:${requestId}/response:${responseId}`,
        });
    }
    const preview = this.opts.previewChars ?? 4000;
    const shown = content.protocol === "mcp" ? JSON.stringify(parsedBody) : text;
    return okKept({
      response_ref: `request:${requestId}/response:${responseId}`,
      status: response.status,
      headers: responseHeaders,
      body_preview:
        shown.length > preview
          ? `${shown.slice(0, preview)}… (${shown.length} chars; read the response for all of it)`
          : shown,
    });
  }

  private abstain(a: Record<string, unknown>, field: string, ends: "clarify" | "report_blocked"): ToolResult {
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

  /**
   * The HTTP request that carries a request entity: REST as it is, GraphQL as `POST /graphql`
   * with `{query, variables, operationName}`, MCP as a JSON-RPC `tools/call` to `POST /mcp`.
   */
  private carrier(content: RequestContent): RestRequest {
    if (content.protocol === "rest") return content;
    if (content.protocol === "graphql") {
      return {
        protocol: "rest",
        method: "POST",
        url: "/graphql",
        headers: { "content-type": "application/json", ...(content.headers ?? {}) },
        body: {
          query: content.query,
          ...(content.variables !== undefined ? { variables: content.variables } : {}),
          ...(content.operationName !== undefined ? { operationName: content.operationName } : {}),
        },
      };
    }
    this.rpcSeq += 1;
    return {
      protocol: "rest",
      method: "POST",
      url: MCP_WORLD_PATH,
      headers: {
        "content-type": "application/json",
        ...(content.headers ?? {}),
        accept: "application/json, text/event-stream",
      },
      body: {
        jsonrpc: "2.0",
        id: this.rpcSeq,
        method: "tools/call",
        params: { name: content.tool, arguments: content.arguments ?? {} },
      },
    };
  }

  private get specId(): string {
    return SPEC_IDS[this.opts.world.protocol ?? "rest"];
  }

  private nextId(prefix: string): string {
    this.seq += 1;
    return `${prefix}-${String(this.seq).padStart(4, "0")}`;
  }
}

const SPEC_IDS = { rest: "openapi", graphql: "graphql", mcp: "mcp" } as const;

// Trials send the same URLs over and over, and parsing one against the world's base URL (two URL
// parses) was a few percent of a certification run: remember each answer (a pure function).
const targets = new Map<string, string | null>();

/** The in-process request URL for `url` (absolute or a path) on a world at `base`; null if invalid. */
function worldTarget(url: string, base: string): string | null {
  const key = `${base}\u0000${url}`;
  let target = targets.get(key);
  if (target === undefined) {
    try {
      const parsed = new URL(url, base);
      target = `http://world.local${parsed.pathname}${parsed.search}`;
    } catch {
      target = null;
    }
    if (targets.size >= 20_000) targets.clear();
    if (key.length <= 2048) targets.set(key, target);
  }
  return target;
}

const PROTOCOL_HINT = {
  rest: 'send {protocol: "rest", method, url, headers?, body?}',
  graphql: 'send {protocol: "graphql", query, variables?, operationName?, headers?}',
  mcp: 'send {protocol: "mcp", tool, arguments?, headers?}',
} as const;

// The spec is a pure function of the world, and rendering and serialising it (tens of KB) was a
// large share of a short trial: build each once per world object.
const specs = new WeakMap<World, JsonObject>();
const specTexts = new WeakMap<World, string>();

/**
 * The spec entity `read` returns for a world (cached per world object): what an agent can know
 * of the API without calling it. Certification's discoverability gate searches it.
 *
 * @example worldSpec(world).format // "graphql-sdl"
 */
export function worldSpec(world: World): JsonObject {
  let spec = specs.get(world);
  if (!spec) {
    spec = renderWorldSpec(world);
    specs.set(world, spec);
  }
  return spec;
}

/** What `read` of the spec returns: the same text `ok({ref, content})` would build. */
function specText(world: World, specId: string, spec: JsonObject): string {
  let text = specTexts.get(world);
  if (text === undefined) {
    text = JSON.stringify({ ref: `spec:${specId}`, content: spec });
    specTexts.set(world, text);
  }
  return text;
}

/** The spec entity of a world: OpenAPI for REST, the SDL for GraphQL, the tool list for MCP. */
function renderWorldSpec(world: World): JsonObject {
  const protocol = world.protocol ?? "rest";
  if (protocol === "graphql") {
    return {
      format: "graphql-sdl",
      title: world.title,
      served_at: "POST /graphql",
      description: `GraphQL schema of ${world.title}, inlined below. Send operations with execute({request: {protocol: "graphql", query, variables?, headers?}}); the bearer token goes in headers.authorization. Listings are connections: follow pageInfo.endCursor with after.`,
      document: printSchema(worldGraphqlSchema(world)),
    };
  }
  if (protocol === "mcp") {
    return {
      format: "mcp-tools",
      title: world.title,
      served_at: `POST ${MCP_WORLD_PATH}`,
      description: `MCP tools of ${world.title}, listed below. Call one with execute({request: {protocol: "mcp", tool, arguments?, headers?}}); the bearer token goes in headers.authorization. A result is {status, headers, body}.`,
      document: { tools: worldMcpTools(world) as unknown as JsonValue },
    };
  }
  return {
    format: "openapi-3.1",
    title: world.title,
    served_at: "/openapi.json",
    description: `OpenAPI 3.1 spec for ${world.title}, inlined below. Endpoints are paths on ${world.base_url}; send them with execute().`,
    document: renderOpenApi(world) as unknown as JsonObject,
  };
}

/** An MCP world's JSON-RPC answer, as the agent needs it: the tool result, or the protocol error. */
function unwrapJsonRpc(body: JsonValue | null): JsonValue | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  if ("result" in body) return body.result ?? null;
  if ("error" in body) return { error: body.error ?? null };
  return body;
}

function parseScope(raw: unknown): Parsed<Scope | undefined> {
  if (raw === undefined || raw === null || raw === "") return { success: true, data: undefined };
  const s = ScopeSchema.safeParse(raw);
  if (!s.success) {
    return {
      success: false,
      error: {
        code: "bad_scope",
        message: `scope ${JSON.stringify(raw)} is not one of vault, local, global`,
      },
    };
  }
  return { success: true, data: s.data };
}

function zodMessage(e: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? `${i.path.map(String).join(".")}: ` : ""}${i.message}`)
    .join("; ");
}

function ok(data: unknown): ToolResult {
  return { ok: true, content: JSON.stringify(data) };
}

// The values whose JSON text some results' content is (see `toolResultValue`).
const resultValues = new WeakMap<ToolResult, unknown>();

/**
 * `ok` for data that is plain JSON already (numbers, strings, parsed response bodies): the data is
 * kept beside the result, so an in-process agent need not parse the text it was just written as.
 */
function okKept(data: unknown): ToolResult {
  const result = ok(data);
  resultValues.set(result, data);
  return result;
}

/**
 * What `JSON.parse(result.content)` returns, without parsing, for the results that keep it
 * (`execute`'s summary and a response `read`); undefined for the others. The golden interpreter
 * reads every response it captures from: parsing each one back was a large share of its time.
 * The value is shared with the workspace's stored entities and must not be changed.
 *
 * @example const summary = toolResultValue(result) ?? JSON.parse(result.content);
 */
export function toolResultValue(result: ToolResult): unknown {
  return resultValues.get(result);
}

function error(code: string, message: string): ToolResult {
  return { ok: false, content: `error (${code}): ${message}`, error: { code, message } };
}

function errorOf(e: ToolArgError): ToolResult {
  return error(e.code, e.message);
}
