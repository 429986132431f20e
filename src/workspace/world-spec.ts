import { printSchema } from "graphql";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { worldGraphqlSchema } from "../world/graphql-schema.js";
import { MCP_WORLD_PATH, worldMcpTools } from "../world/mcp-world.js";
import { renderOpenApi } from "../world/openapi.js";

/** The id of a world's spec entity, by protocol: `spec:openapi`, `spec:graphql`, `spec:mcp`. */
export const SPEC_IDS = { rest: "openapi", graphql: "graphql", mcp: "mcp" } as const;

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
export function specText(world: World, specId: string, spec: JsonObject): string {
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
