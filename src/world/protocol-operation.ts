import type { JsonValue } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import { mintTokenReply } from "./auth.js";
import { canonicalUrl } from "./canonical-request.js";
import { redactHeaders } from "./engine.js";
import { fail, gradeHints, type Reply, styleReply } from "./reply.js";
import { serveRoute } from "./serve-route.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * One world operation asked for through a non-REST protocol (a GraphQL field, an MCP tool call).
 * It names a declared route (or the token endpoint) and carries what the REST request would have
 * carried: path parameters, query parameters, a body, and the carrier request's headers.
 */
export interface ProtocolOperation {
  protocol: "graphql" | "mcp";
  /** A declared route, or `"token"` for the world's OAuth token endpoint. */
  target: Route | "token";
  params: Record<string, string>;
  query: ReadonlyArray<[string, string]>;
  body: JsonValue | null;
  headers: Headers;
}

/** The REST path and query an operation stands for, e.g. `/v3/vessels/V-204?include=x`. */
export function operationUrl(
  world: World,
  op: Pick<ProtocolOperation, "target" | "params" | "query">,
): string {
  const path =
    op.target === "token"
      ? world.auth.token_path
      : op.target.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
          encodeURIComponent(op.params[name] ?? ""),
        );
  const search = new URLSearchParams(op.query as Array<[string, string]>).toString();
  return search ? `${path}?${search}` : path;
}

/**
 * Serve one operation exactly as the REST engine serves the route (auth, behaviours, views,
 * canaries), and log it in the trial's event log as a protocol-neutral exchange: the route's method
 * and REST path, the redacted carrier headers, the operation's body, and the reply. Graders read
 * these events with the same predicates as REST exchanges.
 *
 * `tick` is false for the first operation of a carrier request (the engine already advanced the
 * clock for it) and true for every further one, so each operation costs one logical second as a
 * REST request does.
 *
 * @example serveOperation(trial, { protocol: "mcp", target: route, params: { vessel_id: "V-204" }, query: [], body: null, headers }, false)
 */
export function serveOperation(trial: TrialWorld, op: ProtocolOperation, tick: boolean): Reply {
  if (tick) trial.tick();
  const world = trial.world;
  const pathAndQuery = operationUrl(world, op);
  const method = op.target === "token" ? "POST" : op.target.method;
  let reply: Reply;
  if (op.target === "token") reply = mintTokenReply(trial, op.body, op.protocol);
  else {
    const missing = [...op.target.path.matchAll(/\{([^}]+)\}/g)]
      .map((m) => m[1] as string)
      .find((name) => (op.params[name] ?? "") === "");
    reply = missing
      ? fail(400, "missing_argument", `${missing} is required: it names the ${op.target.resource} record`, {
          argument: missing,
        })
      : serveRoute(trial, op.target, {
          url: new URL(pathAndQuery, "http://world.local"),
          params: op.params,
          header: (name) => op.headers.get(name) ?? undefined,
          body: op.body,
          bodyError: null,
          protocol: op.protocol,
        });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers)) headers[name.toLowerCase()] = value;
  const level = trial.hintLevel(op.target === "token" ? world.auth.token_path : op.target.path);
  reply = styleReply(world.errors, gradeHints(level, { ...reply, headers }));
  if (trial.recording) {
    trial.log.append({
      type: "exchange",
      protocol: op.protocol,
      method,
      // The canonical form (see canonical-request.ts): parameters are sent encoded, logged decoded.
      url: canonicalUrl(pathAndQuery),
      request_headers: redactHeaders(op.headers),
      request_body: op.body,
      status: reply.status,
      response_headers: headers,
      response_body: reply.body,
    });
  }
  return reply;
}
