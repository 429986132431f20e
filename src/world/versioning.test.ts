import { describe, expect, it } from "vitest";
import { client, plainClient } from "../../test/support/world-test-helpers.js";
import type { World } from "../bank/world-schema.js";
import { gradeConstraint } from "../grade/grade-g1.js";
import type { ExchangeEvent } from "./event-log.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";
import { versionedRequest, versioningNote, wireRequest } from "./versioning.js";

const HEADER: World = { ...EXAMPLE_WORLD, versioning: { style: "header", name: "Api-Version", prefix: "" } };
const QUERY: World = { ...EXAMPLE_WORLD, versioning: { style: "query", name: "api-version", prefix: "" } };

function setup(world: World, plain = false) {
  const trial = new TrialWorld(world, "seed-versioning");
  const transport = inProcessTransport(trial);
  return { trial, call: plain ? plainClient(transport) : client(transport) };
}
const exchanges = (trial: TrialWorld) =>
  trial.log.events.filter((e): e is ExchangeEvent => e.type === "exchange");

describe("wireRequest, the golden player's side", () => {
  it("takes the version segment out of the path and into the header or the query", () => {
    expect(wireRequest(HEADER.versioning, { url: "/v2/work-orders?page=2", headers: { a: "1" } })).toEqual({
      url: "/work-orders?page=2",
      headers: { a: "1", "Api-Version": "2" },
    });
    expect(wireRequest(QUERY.versioning, { url: "http://h/v3/valves/VL-1", headers: {} })).toEqual({
      url: "http://h/valves/VL-1?api-version=3",
      headers: {},
    });
    expect(wireRequest(QUERY.versioning, { url: "/v3/valves?page=2" }).url).toBe(
      "/valves?api-version=3&page=2",
    );
    // A path without a version (or a path-versioned world) goes as it is.
    expect(wireRequest(HEADER.versioning, { url: "/openapi.json" })).toEqual({ url: "/openapi.json" });
    expect(wireRequest(undefined, { url: "/v3/valves" })).toEqual({ url: "/v3/valves" });
  });

  it("is the inverse of the engine's canonical request", () => {
    const wire = wireRequest(HEADER.versioning, {
      url: "/v3/valves/VL-1",
      headers: {} as Record<string, string>,
    });
    expect(versionedRequest(HEADER, wire.url, "", (n) => wire.headers[n])).toEqual({
      path: "/v3/valves/VL-1",
      query: "",
    });
    expect(versionedRequest(QUERY, "/valves", "?page=2&api-version=3", () => undefined)).toEqual({
      path: "/v3/valves",
      query: "?page=2",
    });
  });
});

describe.each([
  ["header", HEADER, (v: string) => ({ path: "", headers: { "Api-Version": v } })],
  ["query", QUERY, (v: string) => ({ path: `?api-version=${v}`, headers: {} })],
] as const)("a world versioned by %s", (_style, world, carry) => {
  for (const plain of [false, true]) {
    it(`serves the version it names, logs the path form, and refuses the rest (${plain ? "plain" : "Hono"})`, async () => {
      const { trial, call } = setup(world, plain);
      const v3 = carry("3");
      const mint = await call("POST", `/oauth/token${v3.path}`, {
        headers: v3.headers,
        body: { grant_type: "client_credentials", client_id: "cid_irr", client_secret: "csec_irr" },
      });
      expect(mint.status).toBe(200);
      const token = mint.body.access_token as string;
      const current = await call("GET", `/valves/VL-1${v3.path}`, { token, headers: v3.headers });
      expect(current.status).toBe(200);
      expect(current.body.valve_id).toBe("VL-1");
      // The deprecated version answers as it does in the path style.
      const v2 = carry("2");
      const old = await call("GET", `/work-orders${v2.path}`, { token, headers: v2.headers });
      expect(old.status).toBe(200);
      // The log and every predicate see the canonical request: the version in the path, no carrier in the query.
      const urls = exchanges(trial).map((e) => e.url);
      expect(urls).toEqual(["/v3/oauth/token", "/v3/valves/VL-1", "/v2/work-orders"]);
      // A version in the path is not this world's way: 404 naming the carrier.
      const inPath = await call("GET", "/v3/valves/VL-1", { token });
      expect(inPath.status).toBe(404);
      expect(inPath.body.message).toContain(
        world.versioning?.style === "header" ? "Api-Version header" : "api-version query parameter",
      );
      // A versioned route without a version: 400 naming the carrier and the published versions.
      const none = await call("GET", "/valves/VL-1", { token });
      expect(none.status).toBe(400);
      expect(none.body.error).toBe("api_version_required");
      expect(none.body.message).toContain("published: 2, 3");
      // A version that is no number: 400.
      const bad = carry("latest");
      const wrong = await call("GET", `/valves/VL-1${bad.path}`, { token, headers: bad.headers });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error).toBe("invalid_api_version");
      // A version no route is published in: 404, as any unknown route.
      const v9 = carry("9");
      expect((await call("GET", `/valves/VL-1${v9.path}`, { token, headers: v9.headers })).status).toBe(404);
      // The spec is unversioned.
      expect((await call("GET", "/openapi.json")).status).toBe(200);
    });
  }

  it("documents its carrier in the spec, on every versioned operation", () => {
    const spec = renderOpenApi(world) as unknown as {
      info: { description: string };
      "x-api-versioning": { style: string; versions: string[] };
      paths: Record<
        string,
        Record<string, { parameters?: Array<{ name: string; in: string; schema: { enum: string[] } }> }>
      >;
    };
    expect(spec["x-api-versioning"]).toMatchObject({ style: world.versioning?.style, versions: ["2", "3"] });
    expect(spec.info.description).toContain(versioningNote(world) as string);
    const carrier = (path: string, method: string) =>
      spec.paths[path]?.[method]?.parameters?.find(
        (p) => p.name === (world.versioning as { name: string }).name,
      );
    expect(carrier("/v2/work-orders", "get")).toMatchObject({
      in: world.versioning?.style,
      schema: { enum: ["2"] },
    });
    expect(carrier("/v3/valves/{valve_id}", "get")?.schema.enum).toEqual(["3"]);
    expect(renderOpenApi(EXAMPLE_WORLD)).not.toHaveProperty("x-api-versioning");
  });
});

describe("forbids follow the canonical request", () => {
  it("a forbid on the old version catches a header-style call to it, and not the current one", async () => {
    const { trial, call } = setup(HEADER);
    const forbid = { kind: "forbid", id: "no_v2", explain: "", url_pattern: "^/v2/" } as const;
    await call("GET", "/work-orders", { headers: { "Api-Version": "3" } });
    expect(gradeConstraint(forbid, exchanges(trial)).violated).toBe(false);
    await call("GET", "/work-orders", { headers: { "api-version": "2" } });
    expect(gradeConstraint(forbid, exchanges(trial))).toMatchObject({
      violated: true,
      detail: "GET /v2/work-orders",
    });
  });

  it("and a query-style call to it, whatever else the query holds", async () => {
    const { trial, call } = setup(QUERY);
    await call("GET", "/work-orders?page=2&API-VERSION=2");
    const forbid = { kind: "forbid", id: "no_v2", explain: "", url_pattern: "^/v2/work-orders" } as const;
    expect(gradeConstraint(forbid, exchanges(trial)).violated).toBe(true);
    expect(exchanges(trial)[0]).toMatchObject({
      url: "/v2/work-orders?page=2",
      raw_url: "/work-orders?page=2&API-VERSION=2",
    });
  });
});

describe.each([
  ["header", HEADER, { "Api-Version": "3" }],
  ["query", QUERY, {}],
] as const)(
  "a world versioned by %s hands out links a client follows as written",
  (style, world, headers) => {
    it("a job's Location, poll_url, confirm_url and result_url, and a listing's Link targets", async () => {
      const { call } = setup(world);
      const v3 = style === "query" ? "?api-version=3" : "";
      const mint = await call("POST", `/oauth/token${v3}`, {
        headers,
        body: {
          grant_type: "client_credentials",
          client_id: "cid_irr",
          client_secret: "csec_irr",
          scope: "valves:read schedules:write",
        },
      });
      const token = mint.body.access_token as string;
      const created = await call("POST", `/schedules${v3}`, {
        token,
        headers,
        body: { valveId: "VL-1", durationMin: 20 },
      });
      expect(created.status).toBe(202);
      const poll = created.body.poll_url as string;
      expect(poll).toBe(
        style === "query" ? `/jobs/${created.body.job_id}?api-version=3` : `/jobs/${created.body.job_id}`,
      );
      expect(created.headers.location).toBe(poll);
      // Followed as written (with the header every call carries): pending, then awaiting confirmation.
      let polled = await call("GET", poll, { token, headers });
      for (let i = 0; i < 5 && polled.body.status === "pending"; i++)
        polled = await call("GET", poll, { token, headers });
      expect(polled.status).toBe(200);
      expect(polled.body.status).toBe("awaiting_confirmation");
      const confirm = polled.body.confirm_url as string;
      expect(confirm).toBe(
        style === "query"
          ? `/jobs/${created.body.job_id}/confirm?api-version=3`
          : `/jobs/${created.body.job_id}/confirm`,
      );
      const done = await call("POST", confirm, { token, headers });
      expect(done.status).toBe(200);
      const result = await call("GET", done.body.result_url as string, { token, headers });
      expect(result.status).toBe(200);
      expect(result.body.durationMin).toBe(20);
      // A Link-paged listing: every target followed as written is served, and `next` is page 2.
      const page1 = await call("GET", `/work-order-feed${v3}`, { token, headers });
      expect(page1.status).toBe(200);
      const links = Object.fromEntries(
        [...String(page1.headers.link).matchAll(/<([^>]+)>; rel="(\w+)"/g)].map((m) => [m[2], m[1]]),
      );
      expect(links.next).toBe(
        style === "query"
          ? "/work-order-feed?api-version=3&page=2&per_page=10"
          : "/work-order-feed?page=2&per_page=10",
      );
      for (const target of Object.values(links))
        expect((await call("GET", target as string, { token, headers })).status, String(target)).toBe(200);
    });
  },
);
