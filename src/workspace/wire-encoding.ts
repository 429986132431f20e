import type { JsonValue } from "../bank/json.js";
import { MCP_WORLD_PATH } from "../world/mcp-world.js";
import type { RequestContent, RestRequest } from "./tool-definitions.js";

/**
 * The HTTP request that carries a request entity: REST as it is, GraphQL as `POST /graphql`
 * with `{query, variables, operationName}`, MCP as a JSON-RPC `tools/call` to `POST /mcp` whose
 * id is `rpcId` (called only for MCP content).
 *
 * @example carrier({ protocol: "graphql", query: "{ x }" }, () => 1).url // "/graphql"
 */
export function carrier(content: RequestContent, rpcId: () => number): RestRequest {
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
      id: rpcId(),
      method: "tools/call",
      params: { name: content.tool, arguments: content.arguments ?? {} },
    },
  };
}

/** An MCP world's JSON-RPC answer, as the agent needs it: the tool result, or the protocol error. */
export function unwrapJsonRpc(body: JsonValue | null): JsonValue | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  if ("result" in body) return body.result ?? null;
  if ("error" in body) return { error: body.error ?? null };
  return body;
}

/** What to send instead, when a request names a protocol the world does not speak. */
export const PROTOCOL_HINT = {
  rest: 'send {protocol: "rest", method, url, headers?, body?}',
  graphql: 'send {protocol: "graphql", query, variables?, operationName?, headers?}',
  mcp: 'send {protocol: "mcp", tool, arguments?, headers?}',
} as const;

// Trials send the same URLs over and over, and parsing one against the world's base URL (two URL
// parses) was a few percent of a certification run: remember each answer (a pure function).
const targets = new Map<string, string | null>();

/** The in-process request URL for `url` (absolute or a path) on a world at `base`; null if invalid. */
export function worldTarget(url: string, base: string): string | null {
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
