import type { Hono } from "hono";
import type { World } from "../bank/world-schema.js";
import type { WorldAppEnv } from "./engine.js";
import { GRAPHQL_PATH, mountGraphqlWorld } from "./graphql-endpoint.js";
import { MCP_WORLD_PATH, mountMcpWorld, sized } from "./mcp-world.js";

/**
 * Mount a GraphQL or MCP world's one endpoint on the engine's app, with JSON answers for every
 * other path. The engine's middleware (logical clock, wait header, body parsing) runs first, as
 * for REST.
 *
 * @example mountProtocolWorld(app, { ...world, protocol: "graphql" })
 */
export function mountProtocolWorld(app: Hono<WorldAppEnv>, world: World): void {
  const path = world.protocol === "mcp" ? MCP_WORLD_PATH : GRAPHQL_PATH;
  if (world.protocol === "mcp") mountMcpWorld(app, world);
  else mountGraphqlWorld(app, world);
  const what = world.protocol === "mcp" ? "an MCP server (Streamable HTTP)" : "GraphQL";
  app.notFound((c) =>
    sized(
      Response.json(
        {
          error: "not_found",
          message: `no route ${c.req.method} ${c.req.path}; this world is served as ${what} at POST ${path}`,
        },
        { status: 404 },
      ),
    ),
  );
  app.onError((err) =>
    sized(
      Response.json(
        { error: "internal_error", message: `the world engine failed: ${err.message}` },
        { status: 500 },
      ),
    ),
  );
}
