import type { JsonObject } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";

/**
 * Render a world's published surface as an OpenAPI 3.1 document. Undocumented routes are left
 * out; deprecated routes are marked `deprecated: true` (the spec documents what is published,
 * some behaviour only shows in errors).
 *
 * @example renderOpenApi(world).paths["/v3/vessels"].get.summary
 */
export function renderOpenApi(world: World): OpenApiDocument {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of world.routes) {
    if (!route.documented) continue;
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operation(world, route);
    paths[route.path] = item;
  }
  paths[world.auth.token_path] = {
    post: {
      operationId: "mintToken",
      summary: "Mint a bearer token (OAuth 2.0 client_credentials)",
      security: [],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["grant_type", "client_id", "client_secret"],
              properties: {
                grant_type: { type: "string", enum: ["client_credentials"] },
                client_id: { type: "string" },
                client_secret: { type: "string" },
              },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "A bearer token",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Token" } } },
        },
        "401": { description: "Unknown client" },
      },
    },
  };
  const schemas: Record<string, JsonObject> = {
    Token: {
      type: "object",
      properties: {
        access_token: { type: "string" },
        token_type: { type: "string" },
        expires_in: { type: "integer", description: "authenticated calls this token survives" },
        scope: { type: "string" },
      },
    },
    Error: {
      type: "object",
      properties: { error: { type: "string" }, message: { type: "string" }, hint: { type: "string" } },
    },
  };
  for (const [name, resource] of Object.entries(world.resources)) {
    const properties: Record<string, JsonObject> = {};
    for (const [field, def] of Object.entries(resource.fields)) {
      properties[field] = { type: def.type, ...(def.description ? { description: def.description } : {}) };
    }
    schemas[schemaName(name)] = { type: "object", properties };
  }
  return {
    openapi: "3.1.0",
    info: { title: world.title, version: "1.0.0", description: world.description },
    servers: [{ url: world.base_url }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        oauth2: {
          type: "oauth2",
          flows: {
            clientCredentials: {
              tokenUrl: world.auth.token_path,
              scopes: Object.fromEntries(world.auth.scopes.map((s) => [s, s])),
            },
          },
        },
      },
    },
    security: [{ oauth2: [] }],
  };
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes: JsonObject };
  security: JsonObject[];
}

function schemaName(resource: string): string {
  return resource
    .split(/[-_]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

function operation(world: World, route: Route): JsonObject {
  const resource = world.resources[route.resource];
  const ref = { $ref: `#/components/schemas/${schemaName(route.resource)}` };
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1] as string,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    ...(route.status !== "canonical" ? { deprecated: true } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(route.auth_required ? {} : { security: [] }),
    responses: {
      [route.action === "create" ? "201" : "200"]: {
        description: "OK",
        content: {
          "application/json": {
            schema:
              route.action === "list"
                ? {
                    type: "object",
                    properties: {
                      [route.resource]: { type: "array", items: ref },
                      total: { type: "integer" },
                    },
                  }
                : ref,
          },
        },
      },
      "401": {
        description: "Missing, expired or unknown bearer token",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
      ...(route.action === "create" ? { "422": { description: "Validation failed" } } : {}),
    },
  };
  if (route.action === "create" || route.action === "update") {
    const properties: Record<string, JsonObject> = {};
    for (const [field, def] of Object.entries(resource?.fields ?? {})) {
      if (field !== resource?.id_field) properties[field] = { type: def.type };
    }
    op.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            ...(route.required_fields.length ? { required: route.required_fields } : {}),
            properties,
          },
        },
      },
    };
  }
  return op;
}
