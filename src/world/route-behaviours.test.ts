import { describe, expect, it } from "vitest";
import type { Route } from "../bank/world-schema.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { ok, type Reply } from "./reply.js";
import { checkQuery, throttleReply, transientReply, withIdempotency } from "./route-behaviours.js";
import { TrialWorld } from "./trial-world.js";

/**
 * The per-route behaviours on their own (issue 21: mutation testing): the 429 window, transient
 * failures, declared query parameters and idempotency keys, each at its edges and with its wording.
 */
const route = (id: string): Route => W.routes.find((r) => r.id === id)!;
const create = route("createWorkOrder");

describe("throttleReply", () => {
  const throttled = (seconds: number) => ({
    status: 429,
    body: {
      error: "rate_limited",
      message: `too many requests to this route; retry after ${seconds} s`,
      retry_after: seconds,
      hint: `wait ${seconds} s before retrying: this world's clock is logical, so send the retry with header x-apiflow-wait: ${seconds} (or make ${seconds} calls to other routes first)`,
    },
    headers: { "retry-after": String(seconds) },
  });

  it("a route without a throttle is never refused", () => {
    expect(throttleReply(new TrialWorld(W, "s"), route("listValves"), 1)).toBeNull();
  });

  it("the on_call-th call opens a window of retry_after seconds; calls in it get the seconds left", () => {
    const r: Route = { ...create, throttle: { on_call: 2, retry_after: 3 } };
    const trial = new TrialWorld(W, "s");
    expect(throttleReply(trial, r, 1)).toBeNull();
    expect(throttleReply(trial, r, 2)).toMatchObject(throttled(3));
    expect(trial.throttles.get(r.id)).toBe(3);
    // Waited out by other calls (each a tick): the end does not move.
    trial.tick();
    trial.tick();
    trial.tick();
    expect(throttleReply(trial, r, 3)).toBeNull();
    // A window opens once: the on_call-th call is not counted again.
    expect(throttleReply(trial, r, 2)).toBeNull();
  });

  it("a call refused inside the window pushes its end by the second it cost: hammering never gets through", () => {
    const r: Route = { ...create, throttle: { on_call: 1, retry_after: 3 } };
    const trial = new TrialWorld(W, "s");
    expect(throttleReply(trial, r, 1)).toMatchObject(throttled(3));
    for (let call = 2; call < 12; call++) {
      trial.tick();
      expect(throttleReply(trial, r, call)).toMatchObject(throttled(3));
    }
    expect(trial.throttles.get(r.id)).toBe(10 + 3);
    // One second waited and a call refused: 2 left, and the end moved by one.
    trial.advance(1);
    trial.tick();
    expect(throttleReply(trial, r, 12)).toMatchObject(throttled(2));
    expect(trial.throttles.get(r.id)).toBe(14);
    trial.advance(1);
    trial.tick();
    expect(throttleReply(trial, r, 13)).toBeNull();
  });

  it("defaults: the first call, a 5-second window", () => {
    const trial = new TrialWorld(W, "s");
    trial.advance(7);
    expect(throttleReply(trial, { ...create, throttle: {} }, 1)).toMatchObject(throttled(5));
    expect(trial.throttles.get(create.id)).toBe(12);
  });
});

describe("transientReply", () => {
  it("heal idempotency_key (the default): every call without a key fails with the route's status", () => {
    const r: Route = { ...create, transient: {} };
    const fail = transientReply(r, 5, undefined);
    expect(fail).toMatchObject({
      status: 503,
      body: {
        error: "transient_failure",
        message: "the upstream store did not answer; the write may or may not have been applied",
        retryable: true,
        hint: "retry with an Idempotency-Key header (any unique string) so the retry cannot be applied twice",
      },
    });
    expect(transientReply(r, 1, "")).not.toBeNull();
    expect(transientReply(r, 1, "key-1")).toBeNull();
    expect(transientReply({ ...create, transient: { status: 500 } }, 1, undefined)?.status).toBe(500);
  });

  it("heal retry: the first fail_calls calls fail (one by default), whatever the key", () => {
    const r: Route = { ...create, transient: { heal: "retry", fail_calls: 2, status: 502 } };
    expect(transientReply(r, 1, "k")).toMatchObject({
      status: 502,
      body: { error: "transient_failure", retryable: true, hint: "retry the same request" },
    });
    expect(transientReply(r, 2, "k")?.status).toBe(502);
    expect(transientReply(r, 3, undefined)).toBeNull();
    const once: Route = { ...create, transient: { heal: "retry" } };
    expect(transientReply(once, 1, undefined)?.status).toBe(503);
    expect(transientReply(once, 2, undefined)).toBeNull();
  });

  it("a route without transient failures never fails", () => {
    expect(transientReply(create, 1, undefined)).toBeNull();
  });
});

describe("checkQuery", () => {
  const r: Route = {
    ...route("listValves"),
    query_params: [
      { name: "zone", required: true, allowed: ["A", "B"], filter_field: "zone" },
      { name: "verbose" },
      { name: "site", filter_field: "site" },
    ],
  } as Route;
  const url = (q: string) => new URL(`http://w/v3/valves${q}`);

  it("reads the parameters that are on and the filters they ask for", () => {
    const state = checkQuery(r, url("?zone=A&verbose=1&site=north"));
    expect(state).toEqual({
      on: new Set(["zone", "verbose", "site"]),
      filters: [
        ["zone", "A", "exact"],
        ["site", "north", "exact"],
      ],
    });
  });

  it("false and 0 do not turn a parameter on, but still filter", () => {
    expect(checkQuery(r, url("?zone=B&verbose=false&site=0"))).toEqual({
      on: new Set(["zone"]),
      filters: [
        ["zone", "B", "exact"],
        ["site", "0", "exact"],
      ],
    });
    expect(checkQuery(r, url("?zone=B&verbose=0"))).toEqual({
      on: new Set(["zone"]),
      filters: [["zone", "B", "exact"]],
    });
  });

  it("a missing required parameter is refused, naming it and its allowed values", () => {
    expect(checkQuery(r, url(""))).toMatchObject({
      status: 400,
      body: {
        error: "missing_query_parameter",
        message: "query parameter zone is required (one of A, B)",
        parameter: "zone",
        allowed: ["A", "B"],
      },
    });
    const plain = { ...r, query_params: [{ name: "q", required: true }] } as Route;
    expect((checkQuery(plain, url("")) as { body: unknown }).body).toEqual({
      error: "missing_query_parameter",
      message: "query parameter q is required",
      parameter: "q",
    });
  });

  it("a value outside the allowed ones is refused, naming the value", () => {
    expect(checkQuery(r, url("?zone=C"))).toMatchObject({
      status: 400,
      body: {
        error: "invalid_query_parameter",
        message: 'query parameter zone must be one of A, B, got "C"',
        parameter: "zone",
        allowed: ["A", "B"],
      },
    });
  });

  it("at the hard level the refusals still name the parameter and the value, not the allowed ones", () => {
    const missing = checkQuery(r, url("")) as Reply;
    expect(missing.problem?.terse).toBe("query parameter zone is required");
    const wrong = checkQuery(r, url("?zone=C")) as Reply;
    expect(wrong.problem?.terse).toBe('query parameter zone does not accept "C"');
  });

  it("a route without query parameters has nothing on", () => {
    expect(checkQuery(route("getValve"), url("?x=1&undefined=1"))).toEqual({ on: new Set(), filters: [] });
  });
});

describe("withIdempotency", () => {
  const idem: Route = { ...create, throttle: undefined, idempotency: true } as Route;
  const req = { pathname: "/v3/work-orders", body: { site: "north" } };

  it("a keyed create is answered once; the same request again replays the stored reply", () => {
    const trial = new TrialWorld(W, "s");
    let calls = 0;
    const act = () => ok(201, { n: ++calls }, { location: "/x" });
    expect(withIdempotency(trial, idem, "k1", req, act)).toEqual({
      status: 201,
      body: { n: 1 },
      headers: { location: "/x" },
    });
    expect(withIdempotency(trial, idem, "k1", { ...req, body: { site: "north" } }, act)).toEqual({
      status: 201,
      body: { n: 1 },
      headers: { location: "/x", "idempotent-replayed": "true" },
    });
    expect(calls).toBe(1);
    expect(withIdempotency(trial, idem, "k2", req, act).body).toEqual({ n: 2 });
  });

  it("the same key with another body or path is 422 idempotency_key_reused", () => {
    const trial = new TrialWorld(W, "s");
    withIdempotency(trial, idem, "k", req, () => ok(201, {}));
    for (const other of [
      { ...req, body: { site: "south" } },
      { ...req, pathname: "/v3/other" },
    ]) {
      expect(withIdempotency(trial, idem, "k", other, () => ok(201, {}))).toMatchObject({
        status: 422,
        body: {
          error: "idempotency_key_reused",
          message: "this Idempotency-Key was already used with a different request",
          hint: "use a new Idempotency-Key for a different request",
        },
      });
    }
  });

  it("a replayed error keeps its problem; a 5xx is not stored; a 4xx is", () => {
    const trial = new TrialWorld(W, "s");
    let status = 503;
    const act = () => ({ ...ok(status, { status }), problem: { code: "c", message: "m", extra: {} } });
    expect(withIdempotency(trial, idem, "k", req, act).status).toBe(503);
    status = 409;
    expect(withIdempotency(trial, idem, "k", req, act).status).toBe(409);
    status = 201;
    const replay = withIdempotency(trial, idem, "k", req, act);
    expect(replay).toEqual({
      status: 409,
      body: { status: 409 },
      headers: { "idempotent-replayed": "true" },
      problem: { code: "c", message: "m", extra: {} },
    });
    expect(withIdempotency(trial, idem, "k500", req, () => ok(500, null)).status).toBe(500);
    expect(withIdempotency(trial, idem, "k500", req, () => ok(201, "second")).body).toBe("second");
    status = 500;
    const noProblem = withIdempotency(trial, idem, "k-none", req, () => ok(400, null));
    expect(noProblem).toEqual({ status: 400, body: null, headers: {} });
    expect(Object.keys(withIdempotency(trial, idem, "k-none", req, () => ok(200, null)))).not.toContain(
      "problem",
    );
  });

  it("a missing body fingerprints as null", () => {
    const trial = new TrialWorld(W, "s");
    withIdempotency(trial, idem, "k", { pathname: "/p", body: undefined }, () => ok(201, 1));
    expect(withIdempotency(trial, idem, "k", { pathname: "/p", body: null }, () => ok(201, 2)).body).toBe(1);
  });

  it("keys are ignored without a key, on reads and deletes, and on routes that do not honour them", () => {
    const trial = new TrialWorld(W, "s");
    let calls = 0;
    const act = () => ok(200, { n: ++calls });
    for (const [r, key] of [
      [idem, undefined],
      [idem, ""],
      [{ ...idem, action: "list" }, "k"],
      [{ ...idem, action: "delete" }, "k"],
      [{ ...idem, idempotency: false }, "k"],
    ] as Array<[Route, string | undefined]>) {
      withIdempotency(trial, r, key, req, act);
      withIdempotency(trial, r, key, req, act);
    }
    expect(calls).toBe(10);
    const flaky: Route = { ...idem, idempotency: false, transient: { heal: "idempotency_key" } } as Route;
    withIdempotency(trial, flaky, "k", req, act);
    withIdempotency(trial, flaky, "k", req, act);
    expect(calls).toBe(11);
    const update: Route = { ...idem, action: "update" } as Route;
    withIdempotency(trial, update, "u", req, act);
    withIdempotency(trial, update, "u", req, act);
    expect(calls).toBe(12);
  });
});
