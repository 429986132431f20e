import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Hono } from "hono";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import { credentialHeader, schemeLabel, tokenGrants } from "./credential.js";
import type { WorldAppEnv } from "./engine.js";
import { requestBodySchema } from "./openapi.js";
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, PAGINATION_PARAMS } from "./paginate.js";
import { serveOperation } from "./protocol-operation.js";
import { MCP_TOKEN_TOOL } from "./token-wording.js";
import type { TrialWorld } from "./trial-world.js";

/** Where an MCP world is served (Streamable HTTP, stateless, JSON responses). */
export const MCP_WORLD_PATH = "/mcp";
/** The tool that mints a token (the world's OAuth client-credentials endpoint). */
export { MCP_TOKEN_TOOL };

/** How a route's tool arguments map onto the REST request it stands for. */
interface ToolPlan {
  route: Route | "token";
  pathParams: string[];
  queryParams: string[];
  takesBody: boolean;
}

function plans(world: World): Map<string, ToolPlan> {
  const out = new Map<string, ToolPlan>();
  out.set(MCP_TOKEN_TOOL, { route: "token", pathParams: [], queryParams: [], takesBody: true });
  for (const route of world.routes) {
    out.set(route.id, {
      route,
      pathParams: [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
      queryParams: [
        ...(route.query_params ?? []).map((p) => p.name),
        ...(route.pagination ? PAGINATION_PARAMS[route.pagination.style] : []),
      ],
      takesBody: route.action === "create" || route.action === "update" || route.action === "job_confirm",
    });
  }
  return out;
}

/**
 * A world as MCP tools: one tool per route, named by the route id (`get_vessel`), plus
 * `issue_token`. Arguments are the route's path parameters, its query parameters (pagination
 * included, with the REST names) and `body` for writes; the token tool takes the token request's
 * fields. The bearer token and the other REST headers (`if-match`, `idempotency-key`,
 * `x-apiflow-wait`) travel as HTTP headers of the MCP request, as MCP's authorization does.
 *
 * @example worldMcpTools(world).map((t) => t.name) // ["issue_token", "list_vessels", ...]
 */
export function worldMcpTools(world: World): Tool[] {
  const tools: Tool[] = [];
  for (const [name, plan] of plans(world)) {
    if (plan.route === "token") {
      tools.push({
        name,
        description: `Mint an access token (${schemeLabel(world.auth)}; REST: POST ${world.auth.token_path}). Send it as the HTTP header ${credentialHeader(world.auth, "<token>").join(": ")} of later calls.`,
        inputSchema: {
          type: "object",
          properties: {
            grant_type: {
              type: "string",
              enum: tokenGrants(world.auth),
            },
            client_id: { type: "string" },
            client_secret: { type: "string" },
            scope: { type: "string" },
            ...(world.auth.refresh ? { refresh_token: { type: "string" } } : {}),
          },
          required: ["grant_type"],
        },
      });
      continue;
    }
    const route = plan.route;
    const properties: Record<string, object> = {};
    for (const p of plan.pathParams) properties[p] = { type: "string" };
    const pg = route.pagination;
    // The limits the OpenAPI spec documents for the REST page size.
    const size = pg
      ? `Records per page (at most ${pg.max_page_size ?? DEFAULT_MAX_PAGE_SIZE}, default ${pg.page_size ?? DEFAULT_PAGE_SIZE})`
      : undefined;
    for (const q of plan.queryParams) {
      const declared = route.query_params?.find((p) => p.name === q);
      const description = declared?.description ?? (pg ? (PAGE_ARGS[q] ?? size) : undefined);
      properties[q] = {
        type: "string",
        ...(description ? { description } : {}),
        ...(declared?.allowed ? { enum: declared.allowed } : {}),
      };
    }
    if (plan.takesBody)
      properties.body = {
        ...(route.action === "job_confirm" ? { type: "object" } : requestBodySchema(world, route)),
        description: "The request body, as the REST route takes it",
      };
    tools.push({
      name,
      description: `${route.summary} (REST: ${route.method} ${route.path})${route.status === "deprecated" ? ` — deprecated: ${route.version}` : ""}`,
      inputSchema: {
        type: "object",
        properties,
        ...(plan.pathParams.length ? { required: plan.pathParams } : {}),
      },
    });
  }
  return tools;
}

/** What the OpenAPI spec says of the REST pagination parameters (the page size is per route). */
const PAGE_ARGS: Record<string, string | undefined> = {
  page: "1-based page number (default 1)",
  offset: "Records to skip (default 0)",
  cursor: "next_cursor of the previous page",
};

function toolError(code: string, message: string): CallToolResult {
  const body = { error: code, message };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
}

/** Serve one tool call of an MCP world: the route's REST semantics, logged as a neutral exchange. */
function callTool(
  trial: TrialWorld,
  toolPlans: Map<string, ToolPlan>,
  headers: Headers,
  name: string,
  args: Record<string, unknown>,
  tick: boolean,
): CallToolResult {
  const plan = toolPlans.get(name);
  if (!plan)
    return toolError("unknown_tool", `there is no tool ${JSON.stringify(name)}; tools/list names them`);
  const allowed = new Set([
    ...plan.pathParams,
    ...plan.queryParams,
    ...(plan.takesBody && plan.route !== "token" ? ["body"] : []),
  ]);
  let body: JsonValue | null = null;
  const params: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  if (plan.route === "token") body = args as JsonObject;
  else {
    for (const [key, value] of Object.entries(args)) {
      if (!allowed.has(key)) {
        return toolError(
          "unknown_argument",
          `${name} takes no argument ${JSON.stringify(key)}; it takes ${[...allowed].join(", ") || "no arguments"}`,
        );
      }
      if (key === "body") {
        body = value as JsonValue;
        continue;
      }
      if (value === undefined || value === null) continue;
      if (typeof value === "object") {
        return toolError(
          "invalid_argument",
          `${key} must be a string, number or boolean, got ${Array.isArray(value) ? "an array" : "an object"}`,
        );
      }
      if (plan.pathParams.includes(key)) params[key] = String(value);
      else query.push([key, String(value)]);
    }
  }
  const reply = serveOperation(
    trial,
    { protocol: "mcp", target: plan.route, params, query, body, headers },
    tick,
  );
  const result = { status: reply.status, headers: reply.headers, body: reply.body };
  return {
    ...(reply.status >= 400 ? { isError: true } : {}),
    content: [{ type: "text", text: JSON.stringify(result) }],
    structuredContent: result,
  };
}

/**
 * Serve a world as an MCP server at `POST /mcp` (Streamable HTTP, stateless, JSON responses) on
 * the engine's app. Every request gets a fresh SDK server bound to the trial, so one app serves
 * every trial as the REST engine does. A tool result is `{status, headers, body}` (in
 * `structuredContent` and as JSON text), `isError` when the status is 4xx/5xx.
 *
 * @example mountMcpWorld(app, world) // then POST /mcp {"jsonrpc":"2.0","id":1,"method":"tools/list"}
 */
export function mountMcpWorld(app: Hono<WorldAppEnv>, world: World): void {
  const tools = worldMcpTools(world);
  const toolPlans = plans(world);
  app.post(MCP_WORLD_PATH, async (c) => {
    const bodyError = c.get("bodyError");
    if (bodyError) {
      return sized(
        Response.json(
          { jsonrpc: "2.0", id: null, error: { code: -32700, message: bodyError.message } },
          { status: 400 },
        ),
      );
    }
    const headers = c.req.raw.headers;
    let served = 0;
    const server = new Server({ name: world.id, version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const result = callTool(
        c.env.trial,
        toolPlans,
        headers,
        request.params.name,
        (request.params.arguments ?? {}) as Record<string, unknown>,
        served > 0,
      );
      served += 1;
      return result;
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await sized(
        await transport.handleRequest(c.req.raw, { parsedBody: c.get("body") ?? undefined }),
      );
    } finally {
      await server.close();
    }
  });
  app.on(["GET", "DELETE"], MCP_WORLD_PATH, () =>
    sized(
      Response.json(
        {
          error: "method_not_allowed",
          message: `this MCP world is stateless: send JSON-RPC requests as POST ${MCP_WORLD_PATH}`,
        },
        { status: 405, headers: { allow: "POST" } },
      ),
    ),
  );
}

/**
 * The response with its body buffered and a `content-length`, as the REST engine answers: the
 * HTTP server would add one and the in-process call would not, and both transports must send the
 * same headers.
 *
 * @example await sized(Response.json({ ok: true })) // content-length: 11
 */
export async function sized(response: Response): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.set("content-length", String(bytes.byteLength));
  return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
}
