import {
  GraphQLBoolean,
  GraphQLError,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  type ValueNode,
} from "graphql";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import { credentialHeader, schemeLabel, tokenGrants } from "./credential.js";
import { requestBodySchema } from "./openapi.js";
import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE } from "./paginate.js";
import { type ProtocolOperation, serveOperation } from "./protocol-operation.js";
import type { Reply } from "./reply.js";
import { GRAPHQL_TOKEN_FIELD } from "./token-wording.js";
import type { TrialWorld } from "./trial-world.js";

/** What every resolver of a world's GraphQL schema is given: the trial and the carrier request. */
export interface GraphqlContext {
  trial: TrialWorld;
  headers: Headers;
  /** Operations served so far in this document (the first one uses the carrier's clock tick). */
  served: number;
  /** Status and headers of each top-level field's reply, by response key, for `extensions`. */
  responses: Record<string, { status: number; headers: Record<string, string> }>;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** `list_vessels_deprecated` → `listVesselsDeprecated`: the GraphQL field (and MCP-free) name of a route. */
export function graphqlFieldName(routeId: string): string {
  const camel = routeId.replace(/[-_.]+([A-Za-z0-9])/g, (_m, c: string) => c.toUpperCase());
  const name = camel.replace(/[^_0-9A-Za-z]/g, "_");
  return GRAPHQL_NAME.test(name) ? name : `_${name}`;
}

export { GRAPHQL_TOKEN_FIELD };

function literalToJson(node: ValueNode, variables: Record<string, unknown> | null | undefined): JsonValue {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.ENUM:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => literalToJson(v, variables));
    case Kind.OBJECT: {
      const out: JsonObject = {};
      for (const f of node.fields)
        if (f.name.value !== "__proto__") out[f.name.value] = literalToJson(f.value, variables);
      return out;
    }
    case Kind.VARIABLE:
      return (variables?.[node.name.value] ?? null) as JsonValue;
  }
}

/** Any JSON value: records keep exactly the shape the REST API gives them. */
export const JsonScalar = new GraphQLScalarType({
  name: "JSON",
  description: "Any JSON value (a record as the API stores it, a request body).",
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (node, variables) => literalToJson(node, variables),
});

const PageInfo = new GraphQLObjectType({
  name: "PageInfo",
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    endCursor: {
      type: GraphQLString,
      description: "Pass as `after` to read the next page; null when there is none.",
    },
  },
});

const RecordEdge = new GraphQLObjectType({
  name: "RecordEdge",
  fields: {
    cursor: {
      type: GraphQLString,
      description:
        "Pass as `after` to read what follows this record. Worlds with server-side cursors mint one per page: only the page's last edge has one.",
    },
    node: { type: JsonScalar },
  },
});

const RecordConnection = new GraphQLObjectType({
  name: "RecordConnection",
  description: "One page of a listing.",
  fields: {
    edges: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(RecordEdge))) },
    nodes: { type: new GraphQLNonNull(new GraphQLList(JsonScalar)) },
    pageInfo: { type: new GraphQLNonNull(PageInfo) },
    totalCount: { type: GraphQLInt },
    notice: { type: GraphQLString },
  },
});

/**
 * The field a listing's derived value (`route.aggregate`: a ledger's balance) is served in beside
 * the page, or undefined when the route derives none or its name is not a free GraphQL field name.
 *
 * @example aggregateField(entriesRoute) // "balance"
 */
export function aggregateField(route: Route): string | undefined {
  const as = route.aggregate?.as;
  return as !== undefined && GRAPHQL_NAME.test(as) && !(as in RecordConnection.getFields()) ? as : undefined;
}

// One connection type per derived field name (a schema may hold each type name once).
function connectionType(route: Route, made: Map<string, GraphQLObjectType>): GraphQLObjectType {
  const as = aggregateField(route);
  if (as === undefined || route.aggregate === undefined) return RecordConnection;
  let type = made.get(as);
  if (!type) {
    const base = RecordConnection.toConfig();
    type = new GraphQLObjectType({
      ...base,
      name: `RecordConnectionWith${as.charAt(0).toUpperCase()}${as.slice(1)}`,
      description: `One page of a listing, with its derived ${as}.`,
      fields: {
        ...base.fields,
        [as]: {
          type: GraphQLFloat,
          description: `Derived over the whole listing: the sum of the records' ${route.aggregate.field}`,
        },
      },
    });
    made.set(as, type);
  }
  return type;
}

interface ConnectionValue {
  edges: Array<{ cursor: string | null; node: JsonValue }>;
  nodes: JsonValue[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  totalCount: number | null;
  notice: string | null;
  /** The listing's derived value, under its name (see `aggregateField`). */
  [derived: string]: unknown;
}

/** Offset cursors of the GraphQL layer, for worlds whose REST listing pages by page or offset. */
export function encodeOffsetCursor(routeId: string, offset: number): string {
  return `gc_${Buffer.from(`${routeId}:${offset}`).toString("base64url")}`;
}

function decodeOffsetCursor(cursor: string, routeId: string): number | null {
  if (!cursor.startsWith("gc_")) return null;
  const m = /^(.*):(\d{1,9})$/.exec(Buffer.from(cursor.slice(3), "base64url").toString("utf8"));
  return m && m[1] === routeId ? Number(m[2]) : null;
}

type Args = Record<string, unknown>;

/** The REST query a list field's arguments stand for, or a GraphQL error the agent can act on. */
function listQuery(
  route: Route,
  args: Args,
): { query: Array<[string, string]>; start: number } | GraphQLError {
  const q = queryOf(route, args);
  const pg = route.pagination;
  if (!pg) return { query: q, start: 0 };
  const first = args.first as number | null | undefined;
  const after = args.after as string | null | undefined;
  const size = (first ?? undefined) as number | undefined;
  const badCursor = () =>
    new GraphQLError(
      `cursor ${JSON.stringify(after)} was not issued by this field; start without \`after\` and follow pageInfo.endCursor`,
      { extensions: { code: "invalid_cursor", status: 400, argument: "after" } },
    );
  switch (pg.style) {
    case "cursor": {
      const limit = size ?? (args.limit as number | null | undefined);
      if (after) q.push(["cursor", after]);
      if (limit !== undefined && limit !== null) q.push(["limit", String(limit)]);
      return { query: q, start: 0 };
    }
    case "offset": {
      const limit = size ?? (args.limit as number | null | undefined);
      let offset = args.offset as number | null | undefined;
      if (after) {
        const decoded = decodeOffsetCursor(after, route.id);
        if (decoded === null) return badCursor();
        offset = decoded;
      }
      if (offset !== undefined && offset !== null) q.push(["offset", String(offset)]);
      if (limit !== undefined && limit !== null) q.push(["limit", String(limit)]);
      return { query: q, start: offset ?? 0 };
    }
    case "page":
    case "link": {
      const perPage = size ?? (args.perPage as number | null | undefined);
      let page = args.page as number | null | undefined;
      if (after) {
        const decoded = decodeOffsetCursor(after, route.id);
        if (decoded === null) return badCursor();
        const per =
          perPage ?? Math.min(pg.page_size ?? DEFAULT_PAGE_SIZE, pg.max_page_size ?? DEFAULT_MAX_PAGE_SIZE);
        if (decoded % per !== 0) {
          return new GraphQLError(
            `this listing pages in pages of a fixed size: keep \`first\` the same while following cursors (the cursor is at record ${decoded}, not a multiple of ${per})`,
            { extensions: { code: "invalid_cursor", status: 400, argument: "after" } },
          );
        }
        page = decoded / per + 1;
      }
      if (page !== undefined && page !== null) q.push(["page", String(page)]);
      if (perPage !== undefined && perPage !== null) q.push(["per_page", String(perPage)]);
      const per =
        perPage ?? Math.min(pg.page_size ?? DEFAULT_PAGE_SIZE, pg.max_page_size ?? DEFAULT_MAX_PAGE_SIZE);
      return { query: q, start: ((page ?? 1) - 1) * per };
    }
  }
}

/** `start` is the listing position of the page's first record (from the arguments sent). */
function toConnection(route: Route, body: JsonObject, start: number): ConnectionValue {
  const as = aggregateField(route);
  const derived = as !== undefined ? { [as]: typeof body[as] === "number" ? body[as] : null } : {};
  const items = Array.isArray(body[route.resource]) ? (body[route.resource] as JsonValue[]) : [];
  const total = typeof body.total === "number" ? body.total : null;
  const notice = typeof body.notice === "string" ? body.notice : null;
  const style = route.pagination?.style;
  if (style === "cursor") {
    const next = typeof body.next_cursor === "string" ? body.next_cursor : null;
    return {
      edges: items.map((node, i) => ({ cursor: i === items.length - 1 ? next : null, node })),
      nodes: items,
      pageInfo: { hasNextPage: next !== null, endCursor: next },
      totalCount: total,
      notice,
      ...derived,
    };
  }
  const end = start + items.length;
  const cursorAt = (n: number) => encodeOffsetCursor(route.id, n);
  return {
    edges: items.map((node, i) => ({ cursor: cursorAt(start + i + 1), node })),
    nodes: items,
    pageInfo: {
      hasNextPage: total !== null ? end < total : false,
      endCursor: items.length > 0 ? cursorAt(end) : null,
    },
    totalCount: total,
    notice,
    ...derived,
  };
}

/** Link-style listings page by page number; the `link` header's targets are REST URLs, so only page/perPage are offered. */
function paginationArgs(route: Route): GraphQLFieldConfigArgumentMap {
  const pg = route.pagination;
  if (!pg) return {};
  // The limits the OpenAPI spec documents for the REST page size.
  const size = `Records per page (at most ${pg.max_page_size ?? DEFAULT_MAX_PAGE_SIZE}, default ${pg.page_size ?? DEFAULT_PAGE_SIZE})`;
  const args: GraphQLFieldConfigArgumentMap = {
    first: { type: GraphQLInt, description: size },
    after: { type: GraphQLString, description: "Read the page after this cursor (pageInfo.endCursor)" },
  };
  if (pg.style === "cursor" || pg.style === "offset") args.limit = { type: GraphQLInt, description: size };
  if (pg.style === "offset") args.offset = { type: GraphQLInt, description: "Records to skip (default 0)" };
  if (pg.style === "page" || pg.style === "link") {
    args.page = { type: GraphQLInt, description: "1-based page number (default 1)" };
    args.perPage = { type: GraphQLInt, description: size };
  }
  return args;
}

function replyError(reply: Reply): GraphQLError {
  // GraphQL words errors its own way: the semantic error, not the world's REST error style.
  const body = reply.problem
    ? { error: reply.problem.code, message: reply.problem.message, ...reply.problem.extra }
    : reply.body !== null && typeof reply.body === "object" && !Array.isArray(reply.body)
      ? (reply.body as JsonObject)
      : { message: String(reply.body) };
  const { error, message, ...rest } = body;
  return new GraphQLError(
    typeof message === "string" ? message : `the operation failed with status ${reply.status}`,
    {
      extensions: {
        code: typeof error === "string" ? error : "error",
        status: reply.status,
        ...rest,
        ...(Object.keys(reply.headers).length ? { headers: reply.headers } : {}),
      },
    },
  );
}

function operate(
  ctx: GraphqlContext,
  responseKey: string,
  op: Omit<ProtocolOperation, "protocol" | "headers">,
): Reply {
  const reply = serveOperation(
    ctx.trial,
    { ...op, protocol: "graphql", headers: ctx.headers },
    ctx.served > 0,
  );
  ctx.served += 1;
  ctx.responses[responseKey] = { status: reply.status, headers: reply.headers };
  return reply;
}

function routeField(
  world: World,
  route: Route,
  connections: Map<string, GraphQLObjectType>,
): GraphQLFieldConfig<unknown, GraphqlContext, Args> {
  const pathParams = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const args: GraphQLFieldConfigArgumentMap = {};
  for (const p of pathParams) args[p] = { type: new GraphQLNonNull(GraphQLString) };
  for (const p of route.query_params ?? []) {
    if (GRAPHQL_NAME.test(p.name) && !(p.name in args)) {
      args[p.name] = { type: GraphQLString, ...(p.description ? { description: p.description } : {}) };
    }
  }
  if (route.action === "list") Object.assign(args, paginationArgs(route));
  if (route.action === "create" || route.action === "update") {
    args.input = {
      type: new GraphQLNonNull(JsonScalar),
      description: `The request body, as the REST route takes it (JSON Schema): ${JSON.stringify(requestBodySchema(world, route))}`,
    };
  }
  const type: GraphQLOutputType = route.action === "list" ? connectionType(route, connections) : JsonScalar;
  return {
    type,
    args,
    description: `${route.summary} (REST: ${route.method} ${route.path})`,
    ...(route.status === "deprecated" ? { deprecationReason: `${route.version} is deprecated` } : {}),
    resolve: (_src, a, ctx, info) => {
      const listing = route.action === "list" ? listQuery(route, a) : { query: queryOf(route, a), start: 0 };
      if (listing instanceof GraphQLError) return listing;
      const params: Record<string, string> = {};
      for (const p of pathParams) params[p] = String(a[p] ?? "");
      const reply = operate(ctx, info.path.key as string, {
        target: route,
        params,
        query: listing.query,
        body: (a.input as JsonValue | undefined) ?? null,
      });
      if (reply.status >= 400) return replyError(reply);
      if (
        route.action === "list" &&
        reply.body &&
        typeof reply.body === "object" &&
        !Array.isArray(reply.body)
      ) {
        return toConnection(route, reply.body, listing.start);
      }
      return reply.body;
    },
  };
}

function queryOf(route: Route, a: Args): Array<[string, string]> {
  const q: Array<[string, string]> = [];
  for (const p of route.query_params ?? []) {
    const v = a[p.name];
    if (v !== undefined && v !== null) q.push([p.name, String(v)]);
  }
  return q;
}

function tokenField(world: World): GraphQLFieldConfig<unknown, GraphqlContext, Args> {
  return {
    type: JsonScalar,
    description: `Mint an access token (${schemeLabel(world.auth)}; REST: POST ${world.auth.token_path}). Send it as the carrier request's ${credentialHeader(world.auth, "<token>").join(": ")} header.`,
    args: {
      grant_type: {
        type: new GraphQLNonNull(GraphQLString),
        description: `One of: ${tokenGrants(world.auth).join(", ")}`,
      },
      client_id: { type: GraphQLString },
      client_secret: { type: GraphQLString },
      scope: { type: GraphQLString },
      refresh_token: { type: GraphQLString },
    },
    resolve: (_src, a, ctx, info) => {
      const body: JsonObject = {};
      for (const [k, v] of Object.entries(a)) if (v !== undefined && v !== null) body[k] = v as JsonValue;
      const reply = operate(ctx, info.path.key as string, { target: "token", params: {}, query: [], body });
      return reply.status >= 400 ? replyError(reply) : reply.body;
    },
  };
}

/**
 * A world as one GraphQL schema. Every route is a field named after its id (`get_vessel` →
 * `getVessel`): reads (`list`, `get`, `job_status`) under `Query`, writes under `Mutation`, plus
 * `Mutation.issueToken`. Path and query parameters are arguments, a body is `input: JSON`, records
 * are `JSON` exactly as REST serves them, listings are connections (`edges`, `nodes`, `pageInfo`,
 * `totalCount`, and a derived value such as a ledger's `balance` where the route derives one). Each field is served by the same route logic as REST, so auth, behaviours and
 * canaries carry over; a refused operation becomes an entry of `errors[]` with the REST message
 * and `extensions.code` / `extensions.status`. Decoy routes are fields too (deprecated ones marked
 * `@deprecated`).
 *
 * @example const schema = worldGraphqlSchema(world); printSchema(schema)
 */
export function worldGraphqlSchema(world: World): GraphQLSchema {
  const queries: Record<string, GraphQLFieldConfig<unknown, GraphqlContext, Args>> = {};
  const mutations: Record<string, GraphQLFieldConfig<unknown, GraphqlContext, Args>> = {
    [GRAPHQL_TOKEN_FIELD]: tokenField(world),
  };
  const connections = new Map<string, GraphQLObjectType>();
  for (const route of world.routes) {
    const name = graphqlFieldName(route.id);
    const read = route.method === "GET";
    (read ? queries : mutations)[name] = routeField(world, route, connections);
  }
  if (Object.keys(queries).length === 0) {
    queries.world = { type: GraphQLString, description: "This world's title", resolve: () => world.title };
  }
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Query", description: world.description, fields: queries }),
    mutation: new GraphQLObjectType({ name: "Mutation", fields: mutations }),
  });
}
