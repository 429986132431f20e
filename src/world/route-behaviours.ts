import { canonicalJson } from "../bank/canonical-json.js";
import type { QueryParam, Route } from "../bank/world-schema.js";
import { fail, type Problem, type Reply, withTerse } from "./reply.js";
import type { TrialWorld } from "./trial-world.js";

const DEFAULT_RETRY_AFTER = 5;

/** The query parameters a request turned on, and the record filters they ask for. */
export interface QueryState {
  /** Parameters present and not `false`/`0`. */
  on: Set<string>;
  /** Field, value and how the value matches (`exact` unless the parameter says `contains`). */
  filters: Array<[string, string, "exact" | "contains"]>;
}

/**
 * A throttled route's 429, when this call falls in its window: the `on_call`-th call opens a
 * window of `retry_after` logical seconds, and calls inside it are refused with the seconds left.
 * A refused call pushes the window's end by the second it cost (every served request moves the
 * logical clock by one), so a retry loop that hammers the route never waits the window out by
 * its own refusals; an honoured wait, or calls to other routes, do.
 */
export function throttleReply(trial: TrialWorld, route: Route, call: number): Reply | null {
  if (!route.throttle) return null;
  const until = trial.throttles.get(route.id);
  const onCall = route.throttle.on_call ?? 1;
  if (until === undefined && call === onCall) {
    const end = trial.clock + (route.throttle.retry_after ?? DEFAULT_RETRY_AFTER);
    trial.throttles.set(route.id, end);
    return throttled(end - trial.clock);
  }
  if (until === undefined || trial.clock >= until) return null;
  trial.throttles.set(route.id, until + 1);
  return throttled(until + 1 - trial.clock);
}

function throttled(seconds: number): Reply {
  return fail(
    429,
    "rate_limited",
    `too many requests to this route; retry after ${seconds} s`,
    {
      retry_after: seconds,
      hint: `wait ${seconds} s before retrying: this world's clock is logical, so send the retry with header x-apiflow-wait: ${seconds} (or make ${seconds} calls to other routes first)`,
    },
    { "retry-after": String(seconds) },
  );
}

/**
 * A transient route's 5xx: every call without an Idempotency-Key (heal `idempotency_key`), or the
 * first `fail_calls` calls (heal `retry`).
 */
export function transientReply(route: Route, call: number, key: string | undefined): Reply | null {
  if (!route.transient) return null;
  const heal = route.transient.heal ?? "idempotency_key";
  const failing = heal === "idempotency_key" ? !key : call <= (route.transient.fail_calls ?? 1);
  if (!failing) return null;
  return fail(
    route.transient.status ?? 503,
    "transient_failure",
    "the upstream store did not answer; the write may or may not have been applied",
    {
      retryable: true,
      hint:
        heal === "idempotency_key"
          ? "retry with an Idempotency-Key header (any unique string) so the retry cannot be applied twice"
          : "retry the same request",
    },
  );
}

/** The route's declared query parameters read off the URL, or the 400 that names a missing or wrong one. */
export function checkQuery(route: Route, url: URL): QueryState | Reply {
  const state: QueryState = { on: new Set(), filters: [] };
  for (const p of route.query_params ?? []) {
    const value = url.searchParams.get(p.name);
    if (value === null) {
      if (p.required) {
        return withTerse(
          fail(400, "missing_query_parameter", `query parameter ${p.name} is required${allowedText(p)}`, {
            parameter: p.name,
            ...(p.allowed ? { allowed: p.allowed } : {}),
          }),
          `query parameter ${p.name} is required`,
        );
      }
      continue;
    }
    if (p.allowed && !p.allowed.includes(value)) {
      return withTerse(
        fail(
          400,
          "invalid_query_parameter",
          `query parameter ${p.name} must be one of ${p.allowed.join(", ")}, got ${JSON.stringify(value)}`,
          { parameter: p.name, allowed: p.allowed },
        ),
        `query parameter ${p.name} does not accept ${JSON.stringify(value)}`,
      );
    }
    if (value !== "false" && value !== "0") state.on.add(p.name);
    if (p.filter_field) state.filters.push([p.filter_field, value, p.match ?? "exact"]);
  }
  return state;
}

function allowedText(p: QueryParam): string {
  return p.allowed ? ` (one of ${p.allowed.join(", ")})` : "";
}

/**
 * Idempotency: a create or update sent with an Idempotency-Key on a route that honours keys is
 * answered once by `act`; the same key and request again get the stored reply (marked replayed),
 * the same key with another request a 422. 5xx replies are not stored (the retry must be able to
 * succeed).
 */
export function withIdempotency(
  trial: TrialWorld,
  route: Route,
  key: string | undefined,
  request: { pathname: string; body: unknown },
  act: () => Reply,
): Reply {
  const idempotent =
    (route.idempotency || route.transient) && key && (route.action === "create" || route.action === "update");
  if (!idempotent) return act();
  const slot = `${route.id}\n${key}`;
  const fingerprint = `${request.pathname}\n${canonicalJson(request.body ?? null)}`;
  const stored = trial.replies.get(slot);
  if (stored) {
    if (stored.fingerprint !== fingerprint) {
      return fail(
        422,
        "idempotency_key_reused",
        "this Idempotency-Key was already used with a different request",
        {
          hint: "use a new Idempotency-Key for a different request",
        },
      );
    }
    // The stored reply keeps its semantic error (stored below with the rest of the reply), so a
    // replayed error is worded in the world's style like the first one.
    const { problem } = stored as { problem?: Problem };
    return {
      status: stored.status,
      body: stored.body,
      headers: { ...stored.headers, "idempotent-replayed": "true" },
      ...(problem ? { problem } : {}),
    };
  }
  const reply = act();
  if (reply.status < 500) trial.replies.set(slot, { fingerprint, ...reply });
  return reply;
}
