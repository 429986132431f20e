import type { JsonValue } from "../../src/bank/json.js";
import type { Premise } from "../../src/bank/premise-schema.js";
import type { Axis, GoldenStep } from "../../src/bank/task-schema.js";
import type { Pagination, Route, World } from "../../src/bank/world-schema.js";
import { type BlindContext, blindSegment } from "../../src/certify/axis-blind.js";
import { HARBOR_WORLD } from "../../src/generate/harbor-world.js";
import type { ExchangeEvent } from "../../src/world/event-log.js";

/**
 * Hand-built golden segments of the harbour world for the axis-blind rewrites (axis-blind.ts): a
 * route with the harbour's defaults, the world with its vessel listing paginated and an async
 * job's routes, golden steps, and a segment's context whose exchanges are its own requests.
 */

/** A route of the harbour world's shape: documented, canonical, v3, no behaviour. */
export function blindRoute(
  r: Pick<Route, "id" | "method" | "path" | "resource" | "action"> & Partial<Route>,
): Route {
  return {
    version: "v3",
    status: "canonical",
    summary: r.id,
    auth_required: true,
    scopes: [],
    documented: true,
    view: { omit_fields: [], overrides: {} },
    required_fields: [],
    defaults: {},
    headers: {},
    ...r,
  };
}

/** The harbour world with its vessel listing paginated in `style`, `extra` routes first, and an async job's routes last. */
export function blindWorld(pagination?: Pagination, extra: Route[] = []): World {
  return {
    ...HARBOR_WORLD,
    routes: [
      ...extra,
      ...HARBOR_WORLD.routes.map((r) => (r.id === "listVessels" && pagination ? { ...r, pagination } : r)),
      blindRoute({
        id: "getJob",
        method: "GET",
        path: "/v3/jobs/{job_id}",
        resource: "jobs",
        action: "job_status",
      }),
      blindRoute({
        id: "confirmJob",
        method: "POST",
        path: "/v3/jobs/{job_id}/confirm",
        resource: "jobs",
        action: "job_confirm",
      }),
    ],
  };
}

export type Execute = Extract<GoldenStep, { op: "execute" }>;

export const send = (
  method: string,
  url: string,
  capture: Record<string, string> = {},
  extra: Partial<Execute["request"]> = {},
): Execute => ({ op: "execute", request: { method, url, ...extra }, capture });
export const get = (url: string, capture: Record<string, string> = {}) => send("GET", url, capture);
export const mint = (
  capture: Record<string, string> = { token: "access_token" },
  headers?: Record<string, string>,
) => send("POST", "/v3/oauth/token", capture, headers ? { headers } : {});
export const bearer = (name: string) => ({ Authorization: `Bearer {{${name}}}` });
export const answer: GoldenStep = { op: "answer", fields: { x: "x" } };

/** The exchange a golden run logged for one request (status 200). */
export function blindExchange(method: string, url: string, body: JsonValue = null): ExchangeEvent {
  return {
    type: "exchange",
    seq: 0,
    protocol: "rest",
    method,
    url,
    request_headers: {},
    request_body: null,
    status: 200,
    response_headers: {},
    response_body: body,
  };
}

/**
 * The context of a segment: every execute step's exchange is its own request (URL resolved by
 * `urls`, body by `bodies`), unless `unsent` lists it.
 */
export function ctxOf(
  steps: GoldenStep[],
  opts: {
    world?: World;
    bodies?: Record<number, JsonValue>;
    urls?: Record<number, string>;
    unsent?: number[];
    premises?: Premise[];
    vault?: Record<string, JsonValue>;
  } = {},
): BlindContext {
  const seen = new Map<number, ExchangeEvent>();
  steps.forEach((s, i) => {
    if (s.op !== "execute" || opts.unsent?.includes(i)) return;
    seen.set(i, blindExchange(s.request.method, opts.urls?.[i] ?? s.request.url, opts.bodies?.[i] ?? null));
  });
  return {
    world: opts.world ?? blindWorld(),
    steps,
    seen,
    premises: opts.premises ?? [],
    vault: opts.vault ?? {},
  };
}

/** The whole golden of `ctx` as one segment, blinded to `axis`. */
export const whole = (axis: Axis, ctx: BlindContext) => blindSegment(axis, ctx, 0, ctx.steps.length);

/** A `call` premise: a GET of V-204 with a fresh token answered 200, unless `p` says otherwise. */
export const callPremise = (p: Partial<Extract<Premise, { kind: "call" }>>): Premise => ({
  kind: "call",
  method: "GET",
  url: "/v3/vessels/V-204",
  token: "fresh",
  status: 200,
  ...p,
});
