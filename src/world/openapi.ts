import type { JsonObject } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import {
  API_KEY_HEADER,
  type AuthScheme,
  authScheme,
  credentialField,
  schemeLabel,
  tokenGrants,
} from "./credential.js";
import { SIGNATURE_HEADERS, SIGNING_RECIPE } from "./request-signature.js";

/** The name of the world's entry in `components.securitySchemes`. */
function securityName(scheme: AuthScheme): string {
  return scheme === "api_key" ? "apiKey" : scheme === "signed_requests" ? "signature" : "oauth2";
}

import { DEFAULT_MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE, PAGINATION_PARAMS } from "./paginate.js";
import { errorMediaType, renderProblem } from "./reply.js";
import { carriedVersion, describeCarrier, versioningNote, wirePath, worldVersions } from "./versioning.js";

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
  const grants = tokenGrants(world.auth);
  const scheme = authScheme(world.auth);
  const rotation = scheme === "refresh_rotation";
  const tokenRequest = {
    type: "object",
    required: rotation
      ? ["grant_type", "refresh_token"]
      : world.auth.refresh
        ? ["grant_type"]
        : ["grant_type", "client_id", "client_secret"],
    properties: {
      grant_type: { type: "string", enum: grants },
      ...(rotation ? {} : { client_id: { type: "string" }, client_secret: { type: "string" } }),
      scope: { type: "string", description: "space-separated scopes; default: the client's default scopes" },
      ...(world.auth.refresh
        ? {
            refresh_token: {
              type: "string",
              description: rotation
                ? "your newest refresh token (single use: each reply carries the next one)"
                : "for grant_type=refresh_token",
            },
          }
        : {}),
    },
  };
  paths[world.auth.token_path] = {
    post: {
      operationId: "mintToken",
      summary:
        scheme === "api_key"
          ? `Issue a short-lived API key for your client credentials; send it as the ${API_KEY_HEADER} header`
          : `Mint a bearer token (OAuth 2.0 ${grants.join(" or ")})`,
      security: [],
      requestBody: {
        required: true,
        content: {
          "application/json": { schema: tokenRequest },
          "application/x-www-form-urlencoded": { schema: tokenRequest },
        },
      },
      responses: {
        "200": {
          description: scheme === "api_key" ? "An API key" : "A bearer token",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Token" } } },
        },
        "400": errorResponseOf(world, "Unsupported grant, unknown scope or invalid refresh token"),
        "401": errorResponseOf(world, "Unknown client"),
      },
    },
  };
  const schemas: Record<string, JsonObject> = {
    Token: {
      type: "object",
      properties: {
        [credentialField(world.auth)]: { type: "string" },
        token_type: { type: "string" },
        expires_in: {
          type: "integer",
          description:
            world.auth.ttl_seconds !== undefined
              ? "seconds this token lives"
              : "authenticated calls this token survives",
        },
        scope: { type: "string" },
        ...(world.auth.refresh ? { refresh_token: { type: "string", description: "single use" } } : {}),
      },
    },
    Job: {
      type: "object",
      properties: {
        job_id: { type: "string" },
        status: { type: "string", enum: ["pending", "awaiting_confirmation", "done"] },
        poll_url: { type: "string" },
        retry_after: { type: "integer", description: "seconds until the next poll may see progress" },
        confirm_url: { type: "string" },
        preview: { type: "object" },
        result: { type: "object" },
        result_url: { type: "string" },
      },
    },
    Error: errorSchema(world),
  };
  for (const [name, resource] of Object.entries(world.resources)) {
    const properties: Record<string, JsonObject> = {};
    for (const [field, def] of Object.entries(resource.fields)) {
      properties[field] = { type: def.type, ...(def.description ? { description: def.description } : {}) };
    }
    schemas[schemaName(name)] = { type: "object", properties };
  }
  const carried = carriedVersion(world);
  if (carried) {
    // The version travels beside the path: each versioned operation documents its carrier.
    for (const [path, item] of Object.entries(paths)) {
      const { path: wire, version } = wirePath(carried, path);
      if (version === null) continue;
      for (const op of Object.values(item)) {
        const param = {
          name: carried.name,
          in: carried.style,
          required: true,
          schema: { type: "string", enum: [version] },
          description: `API version ${version}: on the wire this operation is ${wire} with ${carried.name}=${version}`,
        };
        op.parameters = [...((op.parameters as JsonObject[] | undefined) ?? []), param];
      }
    }
  }
  const note = versioningNote(world);
  return {
    openapi: "3.1.0",
    info: {
      title: world.title,
      version: "1.0.0",
      description: note ? `${world.description}\n\n${note}` : world.description,
    },
    ...(carried
      ? {
          "x-api-versioning": {
            style: carried.style,
            name: carried.name,
            versions: worldVersions(world),
            description: `The version goes in the ${describeCarrier(carried)}; paths below name it as the segment after ${carried.prefix || "the root"} (one path item per version), which the wire path leaves out.`,
          },
        }
      : {}),
    servers: [{ url: world.base_url }],
    paths,
    components: {
      schemas,
      securitySchemes: securitySchemes(world),
    },
    security: [{ [securityName(scheme)]: [] }],
  };
}

/**
 * The spec's security scheme in the world's auth scheme: an `apiKey` header whose keys the token
 * path issues, OAuth 2.0 client credentials, or OAuth 2.0 with refresh-token rotation (described
 * as such: the client holds a refresh token, not a secret).
 */
function securitySchemes(world: World): JsonObject {
  const own = worldSecuritySchemes(world);
  return world.routes.some((r) => r.signed === true && r.auth_required) &&
    authScheme(world.auth) !== "signed_requests"
    ? { ...own, [SIGNED_ROUTE_SCHEME]: signatureScheme(world, "the routes that name this scheme take") }
    : own;
}

/** The security scheme of the routes that take signed requests in a world whose other routes take a token. */
const SIGNED_ROUTE_SCHEME = "signature";

function signatureScheme(world: World, who: string): JsonObject {
  return {
    type: "apiKey",
    in: "header",
    name: SIGNATURE_HEADERS.signature,
    description: `${schemeLabel({ ...world.auth, scheme: "signed_requests" })}: ${who} no token: every call sends ${SIGNATURE_HEADERS.keyId}, ${SIGNATURE_HEADERS.nonce} and ${SIGNATURE_HEADERS.signature}. ${SIGNING_RECIPE} A wrong signature, key id or nonce answers 401.`,
  };
}

function worldSecuritySchemes(world: World): JsonObject {
  const auth = world.auth;
  const scopes = Object.fromEntries(auth.scopes.map((s) => [s, s]));
  const scheme = authScheme(auth);
  if (scheme === "signed_requests") return { signature: signatureScheme(world, "this API issues") };
  if (scheme === "api_key")
    return {
      apiKey: {
        type: "apiKey",
        in: "header",
        name: API_KEY_HEADER,
        description: `${schemeLabel(auth)}: POST ${auth.token_path} with grant_type=client_credentials, client_id, client_secret and an optional scope (${auth.scopes.join(", ")}) answers {"api_key", "expires_in", "scope"}; keys expire.`,
      },
    };
  if (scheme === "refresh_rotation")
    return {
      oauth2: {
        type: "oauth2",
        description: `${schemeLabel(auth)}: the client holds a refresh token; POST ${auth.token_path} with grant_type=refresh_token and it (optionally a scope) answers an access token and the next refresh token. A refresh token works once.`,
        flows: {
          authorizationCode: {
            authorizationUrl: auth.token_path,
            tokenUrl: auth.token_path,
            refreshUrl: auth.token_path,
            scopes,
          },
        },
      },
    };
  return {
    oauth2: {
      type: "oauth2",
      flows: { clientCredentials: { tokenUrl: auth.token_path, scopes } },
    },
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

/** Hints every error may carry beside its code and message, whatever the world's style. */
const ERROR_HINTS: Record<string, JsonObject> = {
  hint: { type: "string", description: "what to do next" },
  retry_after: { type: "integer", description: "seconds to wait before retrying" },
  allowed: { type: "array", description: "the values accepted" },
  errors: { type: "array", description: "validation problems, one per field: {field, code, message, …}" },
  missing: { type: "array", items: { type: "string" }, description: "required fields that are missing" },
};

/** The world's error body, in its style (see `ErrorStyleSchema`), with an example. */
function errorSchema(world: World): JsonObject {
  const example = renderProblem(world.errors, 404, {
    code: "not_found",
    message: "no such record",
    extra: {},
  });
  const str = { type: "string" };
  const inner = (code: string, message: string): JsonObject => ({
    type: "object",
    required: [code, message],
    properties: { [code]: str, [message]: str, ...ERROR_HINTS },
  });
  const shape = world.errors?.shape ?? "plain";
  const body: JsonObject =
    shape === "problem"
      ? {
          type: "object",
          description: "RFC 9457 problem details; the code is the last part of `type`",
          required: ["type", "title", "status", "detail"],
          properties: {
            type: { type: "string", description: "urn:problem:<code>" },
            title: str,
            status: { type: "integer" },
            detail: str,
            ...ERROR_HINTS,
          },
        }
      : shape === "errors"
        ? {
            type: "object",
            required: ["errors"],
            properties: { errors: { type: "array", items: inner("code", "message") } },
          }
        : shape === "fault"
          ? { type: "object", required: ["fault"], properties: { fault: inner("code", "reason") } }
          : inner("error", "message");
  return { ...body, examples: [example] };
}

function schemaName(resource: string): string {
  return resource
    .split(/[-_]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join("");
}

function errorResponseOf(world: World, description: string, headers?: JsonObject): JsonObject {
  const content = { [errorMediaType(world.errors)]: { schema: { $ref: "#/components/schemas/Error" } } };
  return { description, content, ...(headers ? { headers } : {}) };
}

function headerDoc(description: string, type = "string"): JsonObject {
  return { description, schema: { type } };
}

function listSchema(route: Route, ref: JsonObject): JsonObject {
  const properties: Record<string, JsonObject> = {
    [route.resource]: { type: "array", items: ref },
    total: { type: "integer", description: "records matching, over all pages" },
  };
  switch (route.pagination?.style) {
    case "cursor":
      properties.next_cursor = {
        type: ["string", "null"],
        description: "pass as cursor for the next page; null on the last",
      };
      break;
    case "page":
      properties.page = { type: "integer" };
      properties.per_page = { type: "integer" };
      properties.total_pages = { type: "integer" };
      properties.next_page = {
        type: ["integer", "null"],
        description: "pass as page for the next page; null on the last",
      };
      break;
    case "offset":
      properties.offset = { type: "integer" };
      properties.limit = { type: "integer" };
      properties.next_offset = {
        type: ["integer", "null"],
        description: "pass as offset for the next page; null on the last",
      };
      break;
    default:
      break;
  }
  return { type: "object", properties };
}

function parameters(route: Route): JsonObject[] {
  const params: JsonObject[] = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1] as string,
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (route.pagination) {
    const max = route.pagination.max_page_size ?? DEFAULT_MAX_PAGE_SIZE;
    const size = {
      type: "integer",
      minimum: 1,
      maximum: max,
      default: route.pagination.page_size ?? DEFAULT_PAGE_SIZE,
    };
    const docs: Record<string, JsonObject> = {
      cursor: { type: "string", description: "next_cursor of the previous page" },
      limit: size,
      per_page: size,
      page: { type: "integer", minimum: 1, default: 1 },
      offset: { type: "integer", minimum: 0, default: 0 },
    };
    for (const name of PAGINATION_PARAMS[route.pagination.style]) {
      params.push({ name, in: "query", required: false, schema: docs[name] as JsonObject });
    }
  }
  for (const q of route.query_params ?? []) {
    if (q.documented === false) continue;
    params.push({
      name: q.name,
      in: "query",
      required: q.required ?? false,
      ...(q.description ? { description: q.description } : {}),
      schema: { type: "string", ...(q.allowed ? { enum: q.allowed } : {}) },
    });
  }
  const writes = route.action === "create" || route.action === "update";
  if (writes && (route.idempotency || route.transient)) {
    params.push({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "a unique string; a retry with the same key and body is answered from the first response",
      schema: { type: "string" },
    });
  }
  if (route.action === "update" && route.concurrency && (route.concurrency.mode ?? "etag") === "etag") {
    params.push({
      name: "If-Match",
      in: "header",
      required: true,
      description: "the etag of your last read of the record",
      schema: { type: "string" },
    });
  }
  return params;
}

/**
 * The JSON Schema of the body a create or update route takes, as the OpenAPI spec documents it.
 * GraphQL and MCP worlds document their `input` / `body` argument with it too.
 *
 * @example requestBodySchema(world, route).properties // { priority: { type: "string", enum: [...] }, … }
 */
export function requestBodySchema(world: World, route: Route): JsonObject {
  const content = requestBody(world, route).content as Record<string, { schema: JsonObject }>;
  return content["application/json"]?.schema ?? { type: "object" };
}

function requestBody(world: World, route: Route): JsonObject {
  const resource = world.resources[route.resource];
  const properties: Record<string, JsonObject> = {};
  let required: string[] = [];
  if (route.validator && !route.validator.spec_lag) {
    for (const [field, def] of Object.entries(route.validator.fields)) {
      properties[field] = {
        type: def.type,
        ...(def.enum ? { enum: def.enum } : {}),
        ...(def.description ? { description: def.description } : {}),
      };
      if (def.required && route.action === "create") required.push(field);
    }
  } else {
    for (const [field, def] of Object.entries(resource?.fields ?? {})) {
      if (field !== resource?.id_field) properties[field] = { type: def.type };
    }
    if (route.action === "create") required = route.required_fields;
  }
  if (route.concurrency?.mode === "body") {
    const vf = route.concurrency.version_field ?? "version";
    properties[vf] = { type: "integer", description: "the version of your last read of the record" };
    required = [...required, vf];
  }
  // A hard task's 503 is terse: the spec is where the agent finds how a staged write is committed.
  if (route.partial_write)
    properties.confirm = {
      type: "boolean",
      description: "send true when resending a write the API staged (503 partial_write) to commit it",
    };
  return {
    required: true,
    content: {
      "application/json": {
        schema: { type: "object", ...(required.length ? { required } : {}), properties },
      },
    },
  };
}

function operation(world: World, route: Route): JsonObject {
  const ref = { $ref: `#/components/schemas/${schemaName(route.resource)}` };
  const jobRef = { $ref: "#/components/schemas/Job" };
  const params = parameters(route);
  const json = (schema: JsonObject) => ({ "application/json": { schema } });
  const responses: Record<string, JsonObject> = {};
  switch (route.action) {
    case "list":
      responses["200"] = {
        description: "OK",
        content: json(listSchema(route, ref)),
        ...(route.pagination?.style === "link"
          ? {
              headers: {
                Link: headerDoc("RFC 8288 links: next, prev, first, last"),
                "X-Total-Count": headerDoc("records matching, over all pages", "integer"),
              },
            }
          : {}),
      };
      break;
    case "get":
      responses["200"] = {
        description: "OK",
        content: json(ref),
        ...(route.concurrency
          ? { headers: { ETag: headerDoc("the record's version; send it as If-Match") } }
          : {}),
      };
      break;
    case "create":
      if (route.async_job) {
        responses["202"] = {
          description: "Accepted: a job was opened; poll the Location",
          headers: { Location: headerDoc("the job to poll") },
          content: json(jobRef),
        };
      } else responses["201"] = { description: "Created", content: json(ref) };
      break;
    case "update":
      responses["200"] = { description: "OK", content: json(ref) };
      break;
    case "delete":
      responses["204"] = { description: "Deleted" };
      break;
    case "job_status":
    case "job_confirm":
      responses["200"] = { description: "The job", content: json(jobRef) };
      break;
  }
  if (route.action !== "list") responses["404"] = errorResponseOf(world, "No such record or job");
  if (route.action === "create" || route.action === "update") {
    responses["400"] = errorResponseOf(world, "The body is not a JSON object");
    responses[String(route.validator?.status ?? 422)] = errorResponseOf(
      world,
      "Validation failed: every problem names its field",
    );
  }
  if (route.auth_required) {
    responses["401"] = errorResponseOf(world, "Missing, expired or unknown bearer token");
    if (route.scopes.length)
      responses["403"] = errorResponseOf(world, "The token lacks a scope this route needs");
  }
  if (route.concurrency && route.action === "update") {
    responses["409"] = errorResponseOf(world, "The record changed since it was read");
    responses["428"] = errorResponseOf(world, "The update needs the version of your last read");
  }
  if (route.action === "job_confirm")
    responses["409"] = errorResponseOf(world, "The job is not ready or already done");
  if (route.throttle) {
    responses["429"] = errorResponseOf(world, "Rate limited", {
      "Retry-After": headerDoc("seconds to wait", "integer"),
    });
  }
  if (route.transient)
    responses[String(route.transient.status ?? 503)] = errorResponseOf(world, "Transient failure");
  if (route.partial_write)
    responses["503"] = errorResponseOf(world, "The write was staged but not committed");
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    ...(route.status !== "canonical" ? { deprecated: true } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(route.auth_required
      ? route.signed === true && authScheme(world.auth) !== "signed_requests"
        ? { security: [{ [SIGNED_ROUTE_SCHEME]: [] }] }
        : route.scopes.length
          ? { security: [{ [securityName(authScheme(world.auth))]: route.scopes }] }
          : {}
      : { security: [] }),
    responses,
  };
  if (route.action === "create" || route.action === "update") op.requestBody = requestBody(world, route);
  return op;
}
