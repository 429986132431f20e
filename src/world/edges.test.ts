import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/**
 * Issue 21: the world's limits probed at their edges, one step inside and one step past, so an
 * off-by-one in either direction fails. The logical clock moves by one per request (after any
 * `x-apiflow-wait`), so a request's clock is the previous clock + wait + 1.
 */
function setup(world = W) {
  const trial = new TrialWorld(world, "seed-edges");
  return { trial, call: client(inProcessTransport(trial)) };
}

/** The wait that makes the next request arrive at logical time `at`. */
const waitFor = (trial: TrialWorld, at: number) => String(at - trial.clock - 1);

describe("token expiry at its edges", () => {
  it(`ttl_seconds ${W.auth.ttl_seconds}: valid at age ttl − 1, expired at age ttl`, async () => {
    const ttl = W.auth.ttl_seconds!;
    for (const [age, status] of [
      [ttl - 1, 200],
      [ttl, 401],
    ] as const) {
      const { trial, call } = setup();
      const { token } = await mintToken(call, W);
      const minted = trial.clock;
      const r = await call("GET", "/v3/valves", {
        token,
        headers: { "x-apiflow-wait": waitFor(trial, minted + age) },
      });
      expect(trial.clock - minted).toBe(age);
      expect(r.status, `age ${age}`).toBe(status);
      if (status === 401) expect(r.body.error).toBe("token_expired");
    }
  });

  it(`ttl_calls ${HARBOR_WORLD.auth.ttl_calls}: the last allowed call passes, the next is expired`, async () => {
    const { call } = setup(HARBOR_WORLD);
    const { token } = await mintToken(call, HARBOR_WORLD);
    const calls = HARBOR_WORLD.auth.ttl_calls!;
    for (let i = 1; i <= calls; i++)
      expect((await call("GET", "/v3/vessels", { token })).status, `call ${i}`).toBe(200);
    expect((await call("GET", "/v3/vessels", { token })).body.error).toBe("token_expired");
  });
});

describe("the 429 window at its edges", () => {
  it("one tick before Retry-After runs out: 429; at its end: served", async () => {
    for (const [left, status] of [
      [1, 429],
      [0, 201],
    ] as const) {
      const { trial, call } = setup();
      const { token } = await mintToken(call, W, "valves:read valves:write schedules:write");
      const first = await call("POST", "/v3/work-orders", { token, body: { site: "north" } });
      expect(first.status).toBe(429);
      const until = trial.clock + Number(first.headers["retry-after"]);
      const retry = await call("POST", "/v3/work-orders", {
        token,
        body: { site: "north" },
        headers: { "x-apiflow-wait": waitFor(trial, until - left) },
      });
      expect(trial.clock).toBe(until - left);
      expect(retry.status).toBe(status);
    }
  });

  it("a refused retry pushes the end by the second it cost: Retry-After stays true, the old end is refused", async () => {
    const { trial, call } = setup();
    const { token } = await mintToken(call, W, "valves:read valves:write schedules:write");
    const first = await call("POST", "/v3/work-orders", { token, body: { site: "north" } });
    const until = trial.clock + Number(first.headers["retry-after"]);
    const early = await call("POST", "/v3/work-orders", {
      token,
      body: { site: "north" },
      headers: { "x-apiflow-wait": waitFor(trial, until - 1) },
    });
    expect(early.status).toBe(429);
    expect(early.headers["retry-after"]).toBe("2");
    const atOldEnd = await call("POST", "/v3/work-orders", { token, body: { site: "north" } });
    expect(trial.clock).toBe(until);
    expect(atOldEnd.status).toBe(429);
    expect(atOldEnd.headers["retry-after"]).toBe("2");
    const waited = await call("POST", "/v3/work-orders", {
      token,
      body: { site: "north" },
      headers: { "x-apiflow-wait": waitFor(trial, until + 2) },
    });
    expect(waited.status).toBe(201);
  });
});

describe("page-size caps at their edges", () => {
  it("offset/limit: limit = max_page_size is served whole, max_page_size + 1 is refused", async () => {
    const route = W.routes.find((r) => r.path === "/v3/work-orders-by-offset")!;
    const max = route.pagination?.max_page_size ?? 0;
    expect(max).toBe(20);
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const atCap = await call("GET", `/v3/work-orders-by-offset?limit=${max}`, { token });
    expect(atCap.status).toBe(200);
    expect(atCap.body["work-orders"]).toHaveLength(max);
    const past = await call("GET", `/v3/work-orders-by-offset?limit=${max + 1}`, { token });
    expect(past.status).toBe(400);
    expect(past.body).toMatchObject({ error: "invalid_query_parameter", parameter: "limit" });
  });
});

describe("the next-page pointers at the last page's edge", () => {
  it("next_page names the following page until the last, which has null (23 records, 10 a page)", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const second = await call("GET", "/v2/work-orders?page=2&per_page=10", { token });
    expect(second.body).toMatchObject({ page: 2, total_pages: 3, next_page: 3 });
    const last = await call("GET", "/v2/work-orders?page=3&per_page=10", { token });
    expect(last.body.next_page).toBeNull();
    // 20 of 20: exactly full pages, so page 2 is the last.
    const full = await call("GET", "/v2/work-orders?page=2&per_page=20", { token });
    expect(full.body.next_page).toBeNull();
    expect((await call("GET", "/v2/work-orders?page=1&per_page=20", { token })).body.next_page).toBe(2);
  });

  it("next_offset is offset + limit while records remain, null when the page reaches the end", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const get = async (q: string) =>
      (await call("GET", `/v3/work-orders-by-offset?${q}`, { token })).body.next_offset;
    expect(await get("offset=12&limit=10")).toBe(22);
    expect(await get("offset=13&limit=10")).toBeNull();
    expect(await get("offset=0&limit=20")).toBe(20);
  });
});
