import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { mintCanary } from "./canary.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

function setup(seed = "seed-engine") {
  const trial = new TrialWorld(W, seed);
  return { trial, call: client(inProcessTransport(trial)) };
}
const ALL = "valves:read valves:write schedules:write";

describe("logical clock", () => {
  it("advances by one per request and by x-apiflow-wait, never by the wall clock", async () => {
    const { trial, call } = setup();
    expect(trial.clock).toBe(0);
    await call("GET", "/openapi.json");
    expect(trial.clock).toBe(1);
    await call("GET", "/openapi.json", { headers: { "x-apiflow-wait": "10" } });
    expect(trial.clock).toBe(12);
    const bad = await call("GET", "/openapi.json", { headers: { "x-apiflow-wait": "soon" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid_wait");
    expect(trial.clock).toBe(13);
  });
});

describe("auth", () => {
  it("expires a token by call count (harbour world: ttl_calls 6) with a hint", async () => {
    const trial = new TrialWorld(HARBOR_WORLD, "s");
    const call = client(inProcessTransport(trial));
    const { token } = await mintToken(call, HARBOR_WORLD);
    for (let i = 0; i < 6; i++) expect((await call("GET", "/v3/vessels", { token })).status).toBe(200);
    const expired = await call("GET", "/v3/vessels", { token });
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe("token_expired");
    expect(expired.body.hint).toContain("POST /v3/oauth/token");
    expect(expired.headers["www-authenticate"]).toContain("invalid_token");
  });

  it("expires a token on the logical clock (ttl_seconds 60)", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    expect((await call("GET", "/v3/valves", { token })).status).toBe(200);
    const late = await call("GET", "/v3/valves", { token, headers: { "x-apiflow-wait": "60" } });
    expect(late.status).toBe(401);
    expect(late.body.error).toBe("token_expired");
  });

  it("grants default scopes, answers 403 insufficient_scope naming the scope, and grants requested ones", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const denied = await call("PATCH", "/v3/valves/VL-1", { token, body: { zone: "Q" } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: "insufficient_scope", required_scope: "valves:write" });
    expect(denied.body.hint).toContain("scope=valves:write");
    expect(denied.headers["www-authenticate"]).toContain('scope="valves:write"');
    const bad = await call("POST", W.auth.token_path, {
      body: {
        grant_type: "client_credentials",
        client_id: "cid_irr",
        client_secret: "csec_irr",
        scope: "root",
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "invalid_scope", scope: "root" });
    const wide = await mintToken(call, W, "valves:read valves:write");
    const read = await call("GET", "/v3/valves/VL-1", { token: wide.token });
    const patched = await call("PATCH", "/v3/valves/VL-1", {
      token: wide.token,
      body: { zone: "Q" },
      headers: { "if-match": read.headers.etag as string },
    });
    expect(patched.status).not.toBe(403);
  });

  it("refresh tokens mint a new access token once, then answer invalid_grant", async () => {
    const { call } = setup();
    const { refresh } = await mintToken(call, W, "valves:read");
    expect(refresh).toMatch(/^rt_/);
    const first = await call("POST", W.auth.token_path, {
      body: { grant_type: "refresh_token", refresh_token: refresh as string },
    });
    expect(first.status).toBe(200);
    expect(first.body.scope).toBe("valves:read");
    expect((await call("GET", "/v3/valves", { token: first.body.access_token })).status).toBe(200);
    const again = await call("POST", W.auth.token_path, {
      body: { grant_type: "refresh_token", refresh_token: refresh as string },
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
  });

  it("answers stale tokens (literal and per-trial canary) with token_expired, unknown ones with invalid_token", async () => {
    const { call } = setup("seed-stale");
    const stale = mintCanary("seed-stale", { $canary: "stale_token", format: "tk_irr_{code}" });
    expect((await call("GET", "/v3/valves", { token: stale })).body.error).toBe("token_expired");
    expect((await call("GET", "/v3/valves", { token: "tk_irr_OLD000" })).body.error).toBe("token_expired");
    expect((await call("GET", "/v3/valves", { token: "tk_irr_NOPE" })).body.error).toBe("invalid_token");
    expect((await call("GET", "/v3/valves")).body.error).toBe("missing_token");
  });
});

describe("discovery", () => {
  it("a look-alike family serves another audience's subset with stale values", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const res = await call("GET", "/v3/partner/valves", { token });
    expect(res.body.total).toBe(1);
    expect(res.body.valves[0].valve_id).toBe("VL-3");
    expect(res.body.valves[0].zone).toMatch(/^Z-/);
    expect(res.body.valves[0].flow_lpm).toBeUndefined();
  });

  it("an undocumented required parameter is revealed by a 400 naming it and its values", async () => {
    const { call } = setup();
    const res = await call("GET", "/v3/readings");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: "missing_query_parameter",
      parameter: "zone",
      allowed: ["A", "B", "C"],
    });
    const ok = await call("GET", "/v3/readings?zone=B");
    expect(ok.body.valves.map((v: { valve_id: string }) => v.valve_id)).toEqual(["VL-2"]);
    const wrong = await call("GET", "/v3/readings?zone=Z");
    expect(wrong.body).toMatchObject({ error: "invalid_query_parameter", parameter: "zone" });
  });

  it("an undocumented parameter is revealed by a response notice and unhides records", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const plain = await call("GET", "/v3/work-orders?limit=50", { token });
    expect(plain.body.total).toBe(22);
    expect(plain.body.notice).toContain("include_archived=true");
    const all = await call("GET", "/v3/work-orders?limit=50&include_archived=true", { token });
    expect(all.body.total).toBe(23);
    expect(all.body.notice).toBeUndefined();
    const hidden = await call("GET", "/v3/work-orders/WO-022", { token });
    expect(hidden.status).toBe(404);
    expect(hidden.body.hint).toContain("include_archived");
    expect((await call("GET", "/v3/work-orders/WO-022?include_archived=true", { token })).status).toBe(200);
  });

  it("reveals_fields shows a field the view omits only when asked", async () => {
    const { call } = setup("seed-reveal");
    const { token } = await mintToken(call, W);
    expect((await call("GET", "/v3/work-orders/WO-018", { token })).body.code).toBeUndefined();
    const shown = await call("GET", "/v3/work-orders/WO-018?fields=code", { token });
    expect(shown.body.code).toBe(mintCanary("seed-reveal", { $canary: "wo_018_code", format: "WC-{code}" }));
  });
});

describe("schema repair", () => {
  it("names wrong-case fields, missing ones, enum values and types at once", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W, ALL);
    const res = await call("POST", "/v3/schedules", {
      token,
      body: { valve_id: "VL-1", durationMin: "20", mode: "turbo", colour: "red" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe("validation_failed");
    const byField = Object.fromEntries(res.body.errors.map((e: { field: string }) => [e.field, e]));
    expect(byField.valve_id).toMatchObject({ code: "wrong_name", expected: "valveId" });
    expect(byField.valveId).toMatchObject({ code: "missing" });
    expect(byField.durationMin).toMatchObject({ code: "invalid_type", expected: "integer", got: "string" });
    expect(byField.mode).toMatchObject({ code: "invalid_enum", allowed: ["eco", "boost"], got: "turbo" });
    expect(byField.colour).toMatchObject({ code: "unknown_field" });
    expect(res.body.message).toContain("did you mean valveId?");
    expect(res.body.missing).toEqual(["valveId"]);
  });

  it("keeps the skeleton's 422 for required_fields", async () => {
    const trial = new TrialWorld(HARBOR_WORLD, "s");
    const call = client(inProcessTransport(trial));
    const { token } = await mintToken(call, HARBOR_WORLD);
    const res = await call("POST", "/v3/maintenance-orders", { token, body: { vessel_id: "V-204" } });
    expect(res.status).toBe(422);
    expect(res.body.missing).toEqual(["priority", "firmware_build"]);
  });
});

describe("multistep", () => {
  it("create → 202 + Location → poll pending → awaiting_confirmation → confirm → done, record persisted", async () => {
    const { trial, call } = setup();
    const { token } = await mintToken(call, W, ALL);
    const created = await call("POST", "/v3/schedules", {
      token,
      body: { valveId: "VL-1", durationMin: 20, mode: "eco" },
    });
    expect(created.status).toBe(202);
    const location = created.headers.location as string;
    expect(location).toBe(`/v3/jobs/${created.body.job_id}`);
    const early = await call("POST", `${location}/confirm`, { token });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe("job_not_ready");
    // created at t, confirm attempt at t+1: pending for pending_seconds (2) past the create.
    const poll = await call("GET", location, { token });
    expect(poll.body.status).toBe("pending");
    expect(poll.headers["retry-after"]).toBe("1");
    const ready = await call("GET", location, { token });
    expect(ready.body.status).toBe("awaiting_confirmation");
    expect(ready.body.confirm_url).toBe(`${location}/confirm`);
    const id = ready.body.preview.schedule_id as string;
    expect((await call("GET", `/v3/schedules/${id}`, { token })).status).toBe(404);
    const done = await call("POST", ready.body.confirm_url, { token });
    expect(done.body).toMatchObject({ status: "done", result_url: `/v3/schedules/${id}` });
    expect((await call("GET", `/v3/schedules/${id}`, { token })).body.durationMin).toBe(20);
    expect((await call("POST", ready.body.confirm_url, { token })).body.error).toBe("job_already_done");
    expect(trial.jobs.size).toBe(1);
  });

  it("answers an unknown job with 404", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    expect((await call("GET", "/v3/jobs/job_NOPE", { token })).status).toBe(404);
  });
});

describe("error recovery", () => {
  it("429 + Retry-After, honoured by waiting on the logical clock", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const first = await call("POST", "/v3/work-orders", { token, body: { site: "north" } });
    expect(first.status).toBe(429);
    expect(first.headers["retry-after"]).toBe("3");
    expect(first.body.hint).toContain("x-apiflow-wait: 3");
    const hammer = await call("POST", "/v3/work-orders", { token, body: { site: "north" } });
    // The refused retry cost a second and pushed the window's end by it: still 3 s to wait.
    expect(hammer.status).toBe(429);
    expect(hammer.headers["retry-after"]).toBe("3");
    const early = await call("POST", "/v3/work-orders", {
      token,
      body: { site: "north" },
      headers: { "x-apiflow-wait": "1" },
    });
    expect(early.status).toBe(429);
    expect(early.headers["retry-after"]).toBe("2");
    const honoured = await call("POST", "/v3/work-orders", {
      token,
      body: { site: "north" },
      headers: { "x-apiflow-wait": "2" },
    });
    expect(honoured.status).toBe(201);
  });

  it("503 partial write: committed only by a confirm resend; a plain resend gets 409", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const first = await call("POST", "/v3/work-orders/bulk", {
      token,
      body: { site: "south", duration_min: 5 },
    });
    expect(first.status).toBe(503);
    expect(first.body.error).toBe("partial_write");
    const staged = first.body.staged_id as string;
    expect((await call("GET", `/v3/work-orders/${staged}`, { token })).status).toBe(404);
    const plain = await call("POST", "/v3/work-orders/bulk", {
      token,
      body: { site: "south", duration_min: 5 },
    });
    expect(plain.status).toBe(409);
    expect(plain.body.error).toBe("staged_write_pending");
    const confirmed = await call("POST", "/v3/work-orders/bulk", {
      token,
      body: { site: "south", duration_min: 5, confirm: true },
    });
    expect(confirmed.status).toBe(201);
    expect(confirmed.body.order_id).toBe(staged);
    expect(confirmed.body.confirm).toBeUndefined();
    expect((await call("GET", `/v3/work-orders/${staged}`, { token })).status).toBe(200);
  });

  it("409 version conflict after a concurrent write, resolved by re-reading the etag", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W, ALL);
    const read = await call("GET", "/v3/valves/VL-2", { token });
    expect(read.headers.etag).toBe('"3"');
    const none = await call("PATCH", "/v3/valves/VL-2", { token, body: { flow_lpm: 9 } });
    expect(none.status).toBe(428);
    // The 428 was the first update call: the concurrent writer moved the record to version 4.
    const stale = await call("PATCH", "/v3/valves/VL-2", {
      token,
      body: { flow_lpm: 9 },
      headers: { "if-match": read.headers.etag as string },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error).toBe("version_conflict");
    expect(stale.body.hint).toContain("re-read GET /v3/valves/VL-2");
    const reread = await call("GET", "/v3/valves/VL-2", { token });
    expect(reread.headers.etag).toBe('"4"');
    expect(reread.body.zone).toBe("B2");
    const ok = await call("PATCH", "/v3/valves/VL-2", {
      token,
      body: { flow_lpm: 9 },
      headers: { "if-match": reread.headers.etag as string },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ flow_lpm: 9, version: 5 });
    expect(ok.headers.etag).toBe('"5"');
  });

  it("transient 5xx healed by an Idempotency-Key, replayed for the same key, refused for another body", async () => {
    const { trial, call } = setup();
    const { token } = await mintToken(call, W);
    const bare = await call("POST", "/v3/work-orders/import", { token, body: { site: "north" } });
    expect(bare.status).toBe(503);
    expect(bare.body).toMatchObject({ error: "transient_failure", retryable: true });
    const before = trial.resource("work-orders").length;
    const headers = { "idempotency-key": "k-1" };
    const first = await call("POST", "/v3/work-orders/import", { token, body: { site: "north" }, headers });
    expect(first.status).toBe(201);
    const again = await call("POST", "/v3/work-orders/import", { token, body: { site: "north" }, headers });
    expect(again.text).toBe(first.text);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(trial.resource("work-orders").length).toBe(before + 1);
    const other = await call("POST", "/v3/work-orders/import", { token, body: { site: "south" }, headers });
    expect(other.status).toBe(422);
    expect(other.body.error).toBe("idempotency_key_reused");
  });

  it("transient 5xx healed by a plain retry", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    expect((await call("GET", "/v3/zones-report", { token })).status).toBe(502);
    expect((await call("GET", "/v3/zones-report", { token })).status).toBe(200);
  });
});

describe("pagination", () => {
  it("cursor: follows next_cursor to the end, total on every page, forged cursors refused", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const ids: string[] = [];
    let cursor: string | null = "";
    let pages = 0;
    while (cursor !== null) {
      const res = await call("GET", `/v3/work-orders?cursor=${cursor}`, { token });
      expect(res.body.total).toBe(22);
      ids.push(...res.body["work-orders"].map((o: { order_id: string }) => o.order_id));
      cursor = res.body.next_cursor;
      pages += 1;
    }
    expect(pages).toBe(5);
    expect(ids).toHaveLength(22);
    expect(ids).toContain("WO-018");
    const forged = await call("GET", "/v3/work-orders?cursor=abc", { token });
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe("invalid_cursor");
  });

  it("page/per_page, offset/limit and Link headers", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const page = await call("GET", "/v2/work-orders?page=3&per_page=10", { token });
    expect(page.body).toMatchObject({ total: 23, page: 3, per_page: 10, total_pages: 3 });
    expect(page.body["work-orders"]).toHaveLength(3);
    const off = await call("GET", "/v3/work-orders-by-offset?offset=20&limit=5", { token });
    expect(off.body["work-orders"].map((o: { order_id: string }) => o.order_id)).toEqual([
      "WO-021",
      "WO-022",
      "WO-023",
    ]);
    expect((await call("GET", "/v3/work-orders-by-offset?limit=21", { token })).body).toMatchObject({
      error: "invalid_query_parameter",
      parameter: "limit",
    });
    const link = await call("GET", "/v3/work-order-feed?page=2", { token });
    expect(link.headers["x-total-count"]).toBe("23");
    expect(link.headers.link).toContain('</v3/work-order-feed?page=3&per_page=10>; rel="next"');
    expect(link.headers.link).toContain('rel="last"');
    const past = await call("GET", "/v2/work-orders?page=9", { token });
    expect(past.status).toBe(200);
    expect(past.body["work-orders"]).toEqual([]);
    expect((await call("GET", "/v2/work-orders?page=0", { token })).status).toBe(400);
  });
});

describe("statefulness", () => {
  it("writes persist, reads reflect them, deletes remove, another trial sees none of it", async () => {
    const { call } = setup();
    const other = setup();
    const { token } = await mintToken(call, W);
    const created = await call("POST", "/v3/work-orders/import", {
      token,
      body: { site: "north" },
      headers: { "idempotency-key": "x" },
    });
    const id = created.body.order_id as string;
    expect((await call("GET", `/v3/work-orders/${id}`, { token })).body.site).toBe("north");
    const t2 = await mintToken(other.call, W);
    expect((await other.call("GET", `/v3/work-orders/${id}`, { token: t2.token })).status).toBe(404);
    const del = await call("DELETE", `/v3/work-orders/${id}`, { token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await call("GET", `/v3/work-orders/${id}`, { token })).status).toBe(404);
  });
});

describe("bad input", () => {
  it("answers malformed JSON, wrong content types, huge bodies, unknown routes and methods with JSON 4xx", async () => {
    const { call } = setup();
    const { token } = await mintToken(call, W);
    const broken = await call("POST", "/v3/work-orders/bulk", {
      token,
      raw: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toBe("invalid_json");
    const text = await call("POST", "/v3/work-orders/bulk", {
      token,
      raw: "site=north",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    const huge = await call("POST", "/v3/work-orders/bulk", { token, raw: "x".repeat(300_000) });
    expect(huge.status).toBe(413);
    const unknown = await call("GET", "/v9/nothing", { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain("/openapi.json");
    const method = await call("PUT", "/v3/valves", { token });
    expect(method.status).toBe(405);
    expect(method.headers.allow).toBe("GET");
    const traversal = await call("GET", "/v3/valves/..%2F..%2Fetc%2Fpasswd", { token });
    expect(traversal.status).toBe(404);
    const array = await call("POST", "/v3/work-orders/bulk", { token, body: [1, 2] });
    expect(array.body.error).toBe("invalid_body");
  });

  it("strips __proto__ keys instead of letting them reach a record's prototype", async () => {
    const { trial, call } = setup();
    const { token } = await mintToken(call, W);
    await call("POST", "/v3/work-orders/import", {
      token,
      raw: '{"site":"north","__proto__":{"polluted":true}}',
      headers: { "content-type": "application/json", "idempotency-key": "p" },
    });
    const last = trial.resource("work-orders").at(-1) as Record<string, unknown>;
    expect(last.site).toBe("north");
    expect(Object.getPrototypeOf(last)).toBe(Object.prototype);
  });
});
