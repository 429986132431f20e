import type { JsonValue } from "../bank/json.js";
import type { Route } from "../bank/world-schema.js";
import { authorize } from "./auth.js";
import type { Reply } from "./reply.js";
import { act } from "./route-actions.js";
import { checkQuery, throttleReply, transientReply, withIdempotency } from "./route-behaviours.js";
import type { WorldProtocol } from "./token-wording.js";
import type { TrialWorld } from "./trial-world.js";

/** Why a request body could not be read; answered only by routes that read a body. */
export interface BodyError {
  status: 400 | 415;
  error: string;
  message: string;
}

/** One request as a route sees it, independent of the HTTP framework. */
export interface RouteRequest {
  url: URL;
  params: Record<string, string>;
  header(name: string): string | undefined;
  body: JsonValue | null;
  bodyError: BodyError | null;
  /** The protocol the request came in by, for the wording of hints; absent for REST. */
  protocol?: WorldProtocol;
}

/**
 * Serve one request to one declared route of a trial's world: auth, then the route's declared
 * behaviours (throttle, transient 5xx, query parameters, idempotency; `route-behaviours.ts`), then
 * its action (`route-actions.ts`; async jobs in `route-jobs.ts`). Never throws for anything an agent
 * sends; a thrown error is a bug in the world or the engine.
 *
 * @example serveRoute(trial, route, { url, params: { vessel_id: "V-204" }, header: () => undefined, body: null, bodyError: null })
 */
export function serveRoute(trial: TrialWorld, route: Route, req: RouteRequest): Reply {
  const reply = serveInner(trial, route, req);
  if (Object.keys(route.headers).length > 0) reply.headers = { ...route.headers, ...reply.headers };
  return reply;
}

function serveInner(trial: TrialWorld, route: Route, req: RouteRequest): Reply {
  const denied = authorize(trial, route, req.header, req.protocol, {
    method: route.method,
    url: req.url,
    body: req.body,
  });
  if (denied) return denied;
  const call = trial.nextSeq(`call:${route.id}`);
  const throttled = throttleReply(trial, route, call);
  if (throttled) return throttled;
  const key = req.header("idempotency-key");
  const failed = transientReply(route, call, key);
  if (failed) return failed;
  const query = checkQuery(route, req.url);
  if ("status" in query) return query;
  return withIdempotency(trial, route, key, { pathname: req.url.pathname, body: req.body }, () =>
    act(trial, route, req, query),
  );
}
