import type { JsonObject, JsonValue } from "../bank/json.js";
import { wholePlaceholder } from "../bank/placeholder-grammar.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { aggregateField, GRAPHQL_TOKEN_FIELD, graphqlFieldName } from "./graphql-schema.js";
import { MCP_TOKEN_TOOL } from "./mcp-world.js";
import { errorKeyPath } from "./reply.js";
import { matchRoute } from "./route-path.js";

/** A protocol a world can be re-served in. */
export type VariantProtocol = "graphql" | "mcp";

/** The response key every converted GraphQL operation is aliased to, so capture paths are fixed. */
const ALIAS = "r";

interface Mapped {
  target: Route | "token";
  params: Record<string, string>;
  query: Array<[string, string]>;
}

/** Which route (or the token endpoint) a golden REST request calls, with its parameters (`matchRoute`'s rule). */
function mapRequest(world: World, method: string, url: string): Mapped | null {
  const [path = "", search = ""] = url.split("?", 2) as [string, string?];
  const query = [...new URLSearchParams(search)].map(([k, v]) => [k, v] as [string, string]);
  if (method.toUpperCase() === "POST" && path === world.auth.token_path)
    return { target: "token", params: {}, query };
  const hit = matchRoute(world.routes, method.toUpperCase(), path);
  if (!hit) return null;
  const params: Record<string, string> = {};
  for (const [name, s] of Object.entries(hit.params))
    params[name] = wholePlaceholder(s) !== null ? s : decodeURIComponent(s);
  return { target: hit.route, params, query };
}

/** `{{x}}` stays a string; a number-looking literal becomes a number (GraphQL Int arguments). */
function intValue(v: string): JsonValue {
  return /^-?\d+$/.test(v) ? Number(v) : v;
}

const GRAPHQL_PAGINATION: Record<string, { arg: string; type: "Int" | "String" }> = {
  cursor: { arg: "after", type: "String" },
  limit: { arg: "limit", type: "Int" },
  offset: { arg: "offset", type: "Int" },
  page: { arg: "page", type: "Int" },
  per_page: { arg: "perPage", type: "Int" },
};

function graphqlCall(m: Mapped, body: JsonValue | undefined): { query: string; variables: JsonObject } {
  const decl: string[] = [];
  const args: string[] = [];
  const variables: JsonObject = {};
  const add = (name: string, type: string, value: JsonValue) => {
    const v = `v${decl.length}`;
    decl.push(`$${v}: ${type}`);
    args.push(`${name}: $${v}`);
    variables[v] = value;
  };
  if (m.target === "token") {
    const form = (body ?? {}) as JsonObject;
    for (const [k, v] of Object.entries(form)) add(k, k === "grant_type" ? "String!" : "String", v);
    return {
      query: `mutation(${decl.join(", ")}) { ${ALIAS}: ${GRAPHQL_TOKEN_FIELD}(${args.join(", ")}) }`,
      variables,
    };
  }
  const route = m.target;
  for (const [k, v] of Object.entries(m.params)) add(k, "String!", v);
  for (const [k, v] of m.query) {
    const pg = route.pagination ? GRAPHQL_PAGINATION[k] : undefined;
    if (pg) add(pg.arg, pg.type, pg.type === "Int" ? intValue(v) : v);
    else add(k, "String", v);
  }
  if (body !== undefined && (route.action === "create" || route.action === "update"))
    add("input", "JSON!", body);
  const op = route.method === "GET" ? "query" : "mutation";
  const derived = aggregateField(route);
  const selection =
    route.action === "list"
      ? ` { nodes totalCount notice${derived !== undefined ? ` ${derived}` : ""} pageInfo { hasNextPage endCursor } }`
      : "";
  const argText = args.length ? `(${args.join(", ")})` : "";
  return {
    query: `${op}${decl.length ? `(${decl.join(", ")})` : ""} { ${ALIAS}: ${graphqlFieldName(route.id)}${argText}${selection} }`,
    variables,
  };
}

/** Where a REST response path lives in the GraphQL answer (`trucks.3.x` → `data.r.nodes.3.x`). */
function graphqlCapturePath(world: World, m: Mapped, restPath: string): string {
  // A value read from an error (a validator's `errors`): GraphQL carries the error's fields in the
  // `extensions` of its one entry of `errors[]`.
  const errors = errorKeyPath(world.errors, "errors");
  if (restPath === errors || restPath.startsWith(`${errors}.`))
    return `errors.0.extensions.errors${restPath.slice(errors.length)}`;
  const prefix = `data.${ALIAS}`;
  if (m.target === "token" || m.target.action !== "list") return `${prefix}.${restPath}`;
  const [head, ...rest] = restPath.split(".");
  const tail = rest.length ? `.${rest.join(".")}` : "";
  if (head === m.target.resource) return `${prefix}.nodes${tail}`;
  if (head === "next_cursor") return `${prefix}.pageInfo.endCursor`;
  if (head === "total") return `${prefix}.totalCount`;
  return `${prefix}.${restPath}`;
}

/**
 * One golden REST step as the same call in `protocol` (an `execute_native` step), or a sentence
 * saying why it maps to no route. The generator's protocol variants translate goldens with it, and
 * certification's exploits use it to speak a variant world's protocol.
 *
 * @example convertStep(world, "mcp", { op: "execute", request: { method: "GET", url: "/v3/vessels/V-1" }, capture: {} }, "probe")
 */
export function convertStep(
  world: World,
  protocol: VariantProtocol,
  step: GoldenStep,
  where: string,
): GoldenStep | string {
  if (step.op !== "execute") return step;
  const { method, url, headers = {}, body } = step.request;
  const m = mapRequest(world, method, url);
  if (!m) return `${where}: ${method} ${url} matches no route of world ${world.id}`;
  // The workspace builds the carrier request (content type, JSON-RPC envelope); the REST headers
  // that mean something to the world (the bearer token, if-match, idempotency keys) travel as they are.
  const carried: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== "content-type") carried[k] = v;
  const withHeaders = Object.keys(carried).length ? { headers: carried } : {};
  if (protocol === "graphql") {
    const call = graphqlCall(m, body);
    return {
      op: "execute_native",
      request: { protocol: "graphql", query: call.query, variables: call.variables, ...withHeaders },
      capture: Object.fromEntries(
        Object.entries(step.capture).map(([k, p]) => [k, graphqlCapturePath(world, m, p)]),
      ),
    };
  }
  const args: JsonObject = {};
  if (m.target === "token") Object.assign(args, (body ?? {}) as JsonObject);
  else {
    Object.assign(args, m.params);
    for (const [k, v] of m.query) args[k] = v;
    if (body !== undefined) args.body = body;
  }
  return {
    op: "execute_native",
    request: {
      protocol: "mcp",
      tool: m.target === "token" ? MCP_TOKEN_TOOL : m.target.id,
      arguments: args,
      ...withHeaders,
    },
    // The workspace stores an MCP world's tool result (the JSON-RPC envelope taken off).
    capture: Object.fromEntries(
      Object.entries(step.capture).map(([k, p]) => [k, `structuredContent.body.${p}`]),
    ),
  };
}
