import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type DocumentNode,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  parse,
  print,
  type ValueNode,
  visit,
} from "graphql";
import type { JsonValue } from "../bank/json.js";
import type { GoldenNativeRequest, GoldenStep } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { GRAPHQL_TOKEN_FIELD, graphqlFieldName, worldGraphqlSchema } from "../world/graphql-schema.js";
import { MCP_TOKEN_TOOL, worldMcpTools } from "../world/mcp-world.js";

/**
 * A GraphQL or MCP request as the `execute` tool takes it: a golden `execute_native` step's
 * request, or the arguments of an agent's `execute` call (placeholders resolved).
 */
export type NativeRequest = GoldenNativeRequest;

/** One world operation a native request asks for: a route (or the token endpoint) and its arguments. */
export interface NativeOperation {
  target: Route | "token";
  /** Argument name → value (GraphQL variables resolved); MCP `body` stays one argument. */
  args: Record<string, JsonValue>;
}

// A world's schema and tool list are pure functions of it; building them per request would
// dominate a gate that looks at every native step.
const schemas = new WeakMap<World, GraphQLSchema>();
const toolLists = new WeakMap<World, Tool[]>();
const fieldRoutes = new WeakMap<World, Map<string, Route>>();

function schemaOf(world: World): GraphQLSchema {
  let s = schemas.get(world);
  if (!s) {
    s = worldGraphqlSchema(world);
    schemas.set(world, s);
  }
  return s;
}

function toolsOf(world: World): Tool[] {
  let t = toolLists.get(world);
  if (!t) {
    t = worldMcpTools(world);
    toolLists.set(world, t);
  }
  return t;
}

function routeOfField(world: World, field: string): Route | undefined {
  let m = fieldRoutes.get(world);
  if (!m) {
    m = new Map(world.routes.map((r) => [graphqlFieldName(r.id), r]));
    fieldRoutes.set(world, m);
  }
  return m.get(field);
}

/** The parsed document of a GraphQL request, or null when it does not parse. */
export function parseGraphql(query: string): DocumentNode | null {
  try {
    return parse(query);
  } catch {
    return null;
  }
}

/** The operation a GraphQL request runs: the one named `operationName`, else the only one. */
function selectedOperation(doc: DocumentNode, operationName?: string): OperationDefinitionNode | null {
  const ops = doc.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName !== undefined) return ops.find((o) => o.name?.value === operationName) ?? null;
  return ops.length === 1 ? (ops[0] as OperationDefinitionNode) : null;
}

function argumentValue(node: ValueNode, variables: Record<string, JsonValue>): JsonValue {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value] ?? null;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => argumentValue(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, argumentValue(f.value, variables)]));
  }
}

/**
 * The world operations a native request asks for, in the order the world serves them: each
 * top-level field of the GraphQL operation, or the one MCP tool. Null when the request names
 * something the world does not serve (or a GraphQL document that does not parse).
 *
 * @example nativeOperations(world, { protocol: "mcp", tool: "get_vessel", arguments: { vessel_id: "V-1" } })
 * // [{ target: <route get_vessel>, args: { vessel_id: "V-1" } }]
 */
export function nativeOperations(world: World, request: NativeRequest): NativeOperation[] | null {
  if (request.protocol === "mcp") {
    const args = (request.arguments ?? {}) as Record<string, JsonValue>;
    if (request.tool === MCP_TOKEN_TOOL) return [{ target: "token", args }];
    const route = world.routes.find((r) => r.id === request.tool);
    return route ? [{ target: route, args }] : null;
  }
  const doc = parseGraphql(request.query);
  const op = doc && selectedOperation(doc, request.operationName);
  if (!op) return null;
  const variables = (request.variables ?? {}) as Record<string, JsonValue>;
  const out: NativeOperation[] = [];
  for (const sel of op.selectionSet.selections) {
    if (sel.kind !== Kind.FIELD) return null;
    const name = sel.name.value;
    if (name.startsWith("__")) continue;
    const target = name === GRAPHQL_TOKEN_FIELD ? "token" : routeOfField(world, name);
    if (!target) return null;
    const args = Object.fromEntries(
      (sel.arguments ?? []).map((a) => [a.name.value, argumentValue(a.value, variables)]),
    );
    out.push({ target, args });
  }
  return out;
}

/**
 * The same native step sent to `decoy` instead of the route it calls: the GraphQL field renamed
 * (arguments kept), or the MCP tool swapped. Null when the step is not one operation on a route,
 * or when the decoy does not take every argument the step sends.
 *
 * @example nativeRetarget(world, step, deprecatedRoute) // { op: "execute_native", request: { …, tool: "get_vessel_v2" } }
 */
export function nativeRetarget(world: World, step: GoldenStep, decoy: Route): GoldenStep | null {
  if (step.op !== "execute_native") return null;
  const ops = nativeOperations(world, step.request);
  const only = ops?.length === 1 ? ops[0] : undefined;
  if (!only || only.target === "token") return null;
  const request = step.request;
  if (request.protocol === "mcp") {
    const tool = toolsOf(world).find((t) => t.name === decoy.id);
    const takes = Object.keys((tool?.inputSchema.properties ?? {}) as Record<string, unknown>);
    if (!tool || Object.keys(only.args).some((a) => !takes.includes(a))) return null;
    return { ...step, request: { ...request, tool: decoy.id } };
  }
  const from = graphqlFieldName(only.target.id);
  const to = graphqlFieldName(decoy.id);
  const schema = schemaOf(world);
  const field =
    schema.getQueryType()?.getFields()[to] ?? schema.getMutationType()?.getFields()[to] ?? undefined;
  const takes = new Set(field?.args.map((a) => a.name) ?? []);
  if (!field || Object.keys(only.args).some((a) => !takes.has(a))) return null;
  const doc = parseGraphql(request.query) as DocumentNode;
  const renamed = visit(doc, {
    Field: (node) => (node.name.value === from ? { ...node, name: { ...node.name, value: to } } : undefined),
  });
  return { ...step, request: { ...request, query: print(renamed) } };
}

/**
 * The status and body of one operation's answer in a native response the workspace stored:
 * GraphQL `{data: {r}, errors, extensions: {responses: {r: {status}}}}` (the first response key),
 * MCP `{structuredContent: {status, body}}`. What a REST read of the same route would give.
 *
 * @example nativeReply("mcp", { structuredContent: { status: 200, headers: {}, body: { id: "V-1" } } }) // { status: 200, body: { id: "V-1" } }
 */
export function nativeReply(
  protocol: "graphql" | "mcp",
  stored: JsonValue,
): { status: number; body: JsonValue } {
  const o = (stored ?? {}) as Record<string, JsonValue>;
  if (protocol === "mcp") {
    const sc = (o.structuredContent ?? {}) as Record<string, JsonValue>;
    return { status: typeof sc.status === "number" ? sc.status : 0, body: sc.body ?? null };
  }
  const data = (o.data ?? {}) as Record<string, JsonValue>;
  const key = Object.keys(data)[0];
  const responses = ((o.extensions as Record<string, JsonValue> | undefined)?.responses ?? {}) as Record<
    string,
    { status?: number }
  >;
  const status = key !== undefined ? responses[key]?.status : undefined;
  return {
    status: typeof status === "number" ? status : 0,
    body: key !== undefined ? (data[key] ?? null) : null,
  };
}
