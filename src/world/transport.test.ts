import { request as httpRequest } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Call,
  client,
  type Exchange,
  mintToken,
  recording,
} from "../../test/support/world-test-helpers.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import type { ExchangeEvent } from "./event-log.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { httpTransport, inProcessTransport, type ServedWorld, serveTrialWorld } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection, not to the world's answer. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding"]);
const endToEnd = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => !HOP_BY_HOP.has(k)));

/** One pass over every behaviour of the example world; the same steps on any transport. */
async function everyBehaviour(call: Call): Promise<Exchange[]> {
  const { c, out } = recording(call);
  await c("GET", "/openapi.json");
  const { token: narrow } = await mintToken(c, W);
  const { token, refresh } = await mintToken(c, W, "valves:read valves:write schedules:write");
  await c("POST", W.auth.token_path, {
    body: { grant_type: "refresh_token", refresh_token: refresh as string },
  });
  await c("POST", W.auth.token_path, {
    raw: "grant_type=password",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  await c("GET", "/v3/valves", { token: "tk_irr_OLD000" });
  await c("PATCH", "/v3/valves/VL-1", { token: narrow, body: { zone: "Q" } });
  await c("GET", "/v3/partner/valves", { token });
  await c("GET", "/v3/readings");
  await c("GET", "/v3/readings?zone=A");
  await c("POST", "/v3/schedules", { token, body: { valve_id: "VL-1", durationMin: "x", mode: "turbo" } });
  const job = await c("POST", "/v3/schedules", { token, body: { valveId: "VL-1", durationMin: 20 } });
  const location = job.headers.location as string;
  await c("GET", location, { token });
  await c("GET", location, { token });
  const ready = await c("GET", location, { token });
  await c("POST", ready.body.confirm_url, { token });
  await c("POST", "/v3/work-orders", { token, body: { site: "north" } });
  await c("POST", "/v3/work-orders", { token, body: { site: "north" }, headers: { "x-apiflow-wait": "3" } });
  const staged = await c("POST", "/v3/work-orders/bulk", { token, body: { site: "south" } });
  await c("POST", "/v3/work-orders/bulk", { token, body: { site: "south", confirm: true } });
  await c("GET", `/v3/work-orders/${staged.body.staged_id}`, { token });
  const read = await c("GET", "/v3/valves/VL-2", { token });
  await c("PATCH", "/v3/valves/VL-2", {
    token,
    body: { flow_lpm: 1 },
    headers: { "if-match": read.headers.etag as string },
  });
  const reread = await c("GET", "/v3/valves/VL-2", { token });
  await c("PATCH", "/v3/valves/VL-2", {
    token,
    body: { flow_lpm: 1 },
    headers: { "if-match": reread.headers.etag as string },
  });
  await c("POST", "/v3/work-orders/import", { token, body: { site: "north" } });
  await c("POST", "/v3/work-orders/import", {
    token,
    body: { site: "north" },
    headers: { "idempotency-key": "k" },
  });
  await c("POST", "/v3/work-orders/import", {
    token,
    body: { site: "north" },
    headers: { "idempotency-key": "k" },
  });
  await c("GET", "/v3/zones-report", { token });
  let cursor: string | null = "";
  while (cursor !== null)
    cursor = (await c("GET", `/v3/work-orders?include_archived=true&cursor=${cursor}`, { token })).body
      .next_cursor;
  await c("GET", "/v2/work-orders?page=2&per_page=7", { token });
  await c("GET", "/v3/work-orders-by-offset?offset=3&limit=4", { token });
  await c("GET", "/v3/work-order-feed?page=2", { token });
  await c("GET", "/v3/work-orders/WO-018?fields=code", { token });
  await c("DELETE", "/v3/work-orders/WO-001", { token });
  await c("POST", "/v3/work-orders/bulk", {
    token,
    raw: "{oops",
    headers: { "content-type": "application/json" },
  });
  await c("POST", "/v3/work-orders/bulk", { token, raw: "a", headers: { "content-type": "text/plain" } });
  await c("POST", "/v3/work-orders/bulk", { token, raw: "y".repeat(300_000) });
  await c("PUT", "/v3/valves", { token });
  await c("GET", "/v3/nowhere/../valves/%2e%2e%2fx", { token });
  await c("GET", "/v3/valves", { token: narrow, headers: { "x-apiflow-wait": "61" } });
  return out;
}

const servers: ServedWorld[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe("transports: in-process and HTTP on loopback answer alike", () => {
  it("gives byte-identical bodies and the same status and end-to-end headers over every behaviour", async () => {
    const local = new TrialWorld(W, "seed-transport");
    const remote = new TrialWorld(W, "seed-transport");
    const served = await serveTrialWorld(remote, 0);
    servers.push(served);
    const a = await everyBehaviour(client(inProcessTransport(local)));
    const b = await everyBehaviour(client(httpTransport(served.baseUrl)));
    expect(a.length).toBeGreaterThan(40);
    expect(b.length).toBe(a.length);
    const statuses = new Set(a.map((e) => e.status));
    for (const s of [200, 201, 202, 204, 400, 401, 403, 404, 405, 409, 413, 415, 422, 429, 502, 503]) {
      expect(statuses.has(s), `the scenario covers status ${s}`).toBe(true);
    }
    for (let i = 0; i < a.length; i++) {
      const [x, y] = [a[i] as Exchange, b[i] as Exchange];
      expect(y.status, `exchange ${i}`).toBe(x.status);
      expect(y.text, `exchange ${i}`).toBe(x.text);
      expect(endToEnd(y.headers), `exchange ${i}`).toEqual(endToEnd(x.headers));
    }
    // Both trials logged the same exchanges (request headers differ: the HTTP client adds its own).
    const strip = (e: ExchangeEvent) => ({ ...e, request_headers: {} });
    expect(remote.log.exchanges().map(strip)).toEqual(local.log.exchanges().map(strip));
    expect(remote.clock).toBe(local.clock);
  });

  it("the comparison catches a difference: another seed changes the bytes", async () => {
    const a = await everyBehaviour(client(inProcessTransport(new TrialWorld(W, "seed-a"))));
    const b = await everyBehaviour(client(inProcessTransport(new TrialWorld(W, "seed-b"))));
    expect(a.map((e) => e.text)).not.toEqual(b.map((e) => e.text));
  });

  it("answers a method HTTP does not know with the same JSON 400 on both transports", async () => {
    const trial = new TrialWorld(HARBOR_WORLD, "seed-m");
    const served = await serveTrialWorld(trial, 0);
    servers.push(served);
    const port = Number(new URL(served.baseUrl).port);
    const raw = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, method: "BREW", path: "/v3/vessels" }, (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on("error", reject);
      req.end();
    });
    const local = await client(inProcessTransport(new TrialWorld(HARBOR_WORLD, "seed-m")))(
      "BREW",
      "/v3/vessels",
    );
    expect(raw.status).toBe(400);
    expect(local.status).toBe(400);
    expect(raw.text).toBe(local.text);
    expect(JSON.parse(raw.text).error).toBe("bad_request");
    // The server is still up afterwards.
    expect((await client(httpTransport(served.baseUrl))("GET", "/openapi.json")).status).toBe(200);
  });

  it("refuses to send world traffic off this machine", () => {
    expect(() => httpTransport("http://example.com:80")).toThrow(/off this machine/);
  });
});
