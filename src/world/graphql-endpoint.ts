import { type ExecutionResult, execute, type GraphQLError, parse, validate } from "graphql";
import type { Hono } from "hono";
import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import type { WorldAppEnv } from "./engine.js";
import { redactHeaders } from "./engine.js";
import { type GraphqlContext, worldGraphqlSchema } from "./graphql-schema.js";

/** Where a GraphQL world is served. */
export const GRAPHQL_PATH = "/graphql";

/**
 * Serve a world as GraphQL at `POST /graphql` (`{query, variables?, operationName?}`), on the
 * engine's app: the engine's middleware has already advanced the clock and parsed the JSON body.
 * The answer is always `{data, errors?, extensions: {responses}}` with status 200, except a
 * request that is not a GraphQL request at all (400). Each top-level field is logged as its own
 * protocol-neutral exchange (see `serveOperation`); a document that fails to parse or validate is
 * logged once as `POST /graphql` with status 400, so the log still shows the attempt.
 *
 * @example mountGraphqlWorld(app, world) // then POST /graphql {"query": "{ listVessels { totalCount } }"}
 */
export function mountGraphqlWorld(app: Hono<WorldAppEnv>, world: World): void {
  const schema = worldGraphqlSchema(world);
  app.post(GRAPHQL_PATH, async (c) => {
    const trial = c.env.trial;
    const headers = c.req.raw.headers;
    const bodyError = c.get("bodyError");
    const body = c.get("body");
    const carrierFailure = (message: string, code: string): Response => {
      const out = { errors: [{ message, extensions: { code, status: 400 } }] };
      if (trial.recording) {
        trial.log.append({
          type: "exchange",
          protocol: "graphql",
          method: "POST",
          url: GRAPHQL_PATH,
          request_headers: redactHeaders(headers),
          request_body: body ?? null,
          status: 400,
          response_headers: { "content-type": "application/json" },
          response_body: out,
        });
      }
      return jsonResponse(out, 400);
    };
    if (bodyError) return carrierFailure(bodyError.message, bodyError.error);
    if (body === null || typeof body !== "object" || Array.isArray(body) || typeof body.query !== "string") {
      return carrierFailure(
        'send a JSON body {"query": "...", "variables": {...}, "operationName": "..."}',
        "bad_request",
      );
    }
    const variables = body.variables ?? null;
    if (variables !== null && (typeof variables !== "object" || Array.isArray(variables))) {
      return carrierFailure("variables must be a JSON object", "bad_request");
    }
    let document: ReturnType<typeof parse>;
    try {
      document = parse(body.query);
    } catch (e) {
      return carrierFailure((e as GraphQLError).message, "graphql_parse_failed");
    }
    const invalid = validate(schema, document);
    if (invalid.length > 0) {
      return carrierFailure(invalid.map((e) => e.message).join("; "), "graphql_validation_failed");
    }
    const context: GraphqlContext = { trial, headers, served: 0, responses: {} };
    const result = (await execute({
      schema,
      document,
      variableValues: (variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof body.operationName === "string" ? body.operationName : undefined,
      contextValue: context,
    })) as ExecutionResult;
    const out: Record<string, unknown> = { ...result };
    if (Object.keys(context.responses).length > 0) out.extensions = { responses: context.responses };
    return jsonResponse(out as JsonValue, 200);
  });
  app.get(GRAPHQL_PATH, () =>
    jsonResponse(
      {
        error: "method_not_allowed",
        message: `send GraphQL requests as POST ${GRAPHQL_PATH} with a JSON body`,
      },
      405,
      { allow: "POST" },
    ),
  );
}

function jsonResponse(value: unknown, status: number, extra: Record<string, string> = {}): Response {
  const text = JSON.stringify(value);
  return new Response(text, {
    status,
    headers: {
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(text)),
      ...extra,
    },
  });
}
