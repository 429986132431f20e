import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../test/support/world-test-helpers.js";
import type { World } from "../bank/world-schema.js";
import { Workspace } from "../workspace/workspace.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

const GQL_WORLD: World = { ...EXAMPLE_WORLD, protocol: "graphql" };
const SEED = "gql-seed";

function setup(world: World = GQL_WORLD) {
  const trial = new TrialWorld(world, SEED);
  const call = client(inProcessTransport(trial));
  const gql = (query: string, variables?: Record<string, unknown>, token?: string) =>
    call("POST", "/graphql", {
      body: { query, ...(variables ? { variables } : {}) } as never,
      ...(token ? { token } : {}),
    });
  return { trial, call, gql };
}

async function gqlToken(gql: ReturnType<typeof setup>["gql"], scope?: string): Promise<string> {
  const r = await gql(
    `mutation($id: String, $secret: String, $scope: String) { t: issueToken(grant_type: "client_credentials", client_id: $id, client_secret: $secret, scope: $scope) }`,
    { id: GQL_WORLD.auth.client_id, secret: GQL_WORLD.auth.client_secret, ...(scope ? { scope } : {}) },
  );
  expect(r.status).toBe(200);
  return r.body.data.t.access_token;
}

describe("a world served as GraphQL", () => {
  it("answers a missing token with the REST message and code in errors[], logged as the REST exchange", async () => {
    const { gql, trial } = setup();
    const r = await gql(`{ v: getValve(valve_id: "VL-1") }`);
    expect(r.status).toBe(200);
    expect(r.body.data.v).toBeNull();
    expect(r.body.errors[0]).toMatchObject({
      message: "this route needs a bearer token",
      path: ["v"],
      extensions: { code: "missing_token", status: 401 },
    });
    expect(r.body.extensions.responses.v.status).toBe(401);
    // The way in, in GraphQL's words: the issueToken mutation, not the REST path.
    expect(r.body.errors[0].extensions.hint).toBe(
      'mint a fresh token with the issueToken mutation (grant_type: "client_credentials"), or exchange your refresh_token with grant_type: "refresh_token" and send Authorization: Bearer <token> as a header of your /graphql requests',
    );
    const [event] = trial.log.exchanges();
    expect(event).toMatchObject({ protocol: "graphql", method: "GET", url: "/v3/valves/VL-1", status: 401 });
  });

  it("serves the same records and canaries as REST, with the bearer token redacted in the log", async () => {
    const { gql, trial } = setup();
    const token = await gqlToken(gql);
    const r = await gql(`{ v: getValve(valve_id: "VL-1") }`, undefined, token);
    const rest = setup({ ...EXAMPLE_WORLD });
    const restToken = await mintToken(rest.call, EXAMPLE_WORLD);
    const restAnswer = await rest.call("GET", "/v3/valves/VL-1", { token: restToken.token });
    expect(r.body.data.v).toEqual(restAnswer.body);
    expect(r.body.extensions.responses.v.headers.etag).toBe(restAnswer.headers.etag);
    const events = trial.log.exchanges();
    expect(events.map((e) => `${e.method} ${e.url}`)).toEqual([
      "POST /v3/oauth/token",
      "GET /v3/valves/VL-1",
    ]);
    expect(events[1]?.request_headers.authorization).toMatch(/^Bearer <redacted:[0-9a-f]{8}>$/);
    expect(JSON.stringify(events.map((e) => e.request_headers))).not.toContain(token);
  });

  it("refuses a scope the token lacks with 403 insufficient_scope, and expired tokens with token_expired", async () => {
    const { gql } = setup();
    const token = await gqlToken(gql);
    const r = await gql(
      `mutation { u: updateValve(valve_id: "VL-1", input: {flowLpm: 3}) }`,
      undefined,
      token,
    );
    expect(r.body.errors[0].extensions).toMatchObject({
      code: "insufficient_scope",
      status: 403,
      required_scope: "valves:write",
    });
    const stale = await gql(`{ v: getValve(valve_id: "VL-1") }`, undefined, "tk_irr_OLD000");
    expect(stale.body.errors[0].extensions.code).toBe("token_expired");
  });

  const restPages = {
    listWorkOrdersCursor: "/v3/work-orders?limit=50",
    listWorkOrdersOffset: "/v3/work-orders-by-offset?limit=20&offset=0",
    listWorkOrdersLink: "/v3/work-order-feed?per_page=50",
  };
  for (const field of ["listWorkOrdersCursor", "listWorkOrdersOffset", "listWorkOrdersLink"] as const) {
    it(`walks ${field} as a connection, following pageInfo.endCursor to the same records REST lists`, async () => {
      const { gql, trial } = setup();
      const token = await gqlToken(gql);
      const ids: string[] = [];
      let after: string | null = null;
      let total = 0;
      for (let page = 0; page < 20; page++) {
        const r = await gql(
          `query($after: String) { c: ${field}(first: 4, after: $after) { edges { cursor node } nodes totalCount pageInfo { hasNextPage endCursor } } }`,
          { after },
          token,
        );
        expect(r.body.errors).toBeUndefined();
        const c = r.body.data.c;
        total = c.totalCount;
        ids.push(...c.nodes.map((n: { order_id: string }) => n.order_id));
        expect(c.edges.map((e: { node: unknown }) => e.node)).toEqual(c.nodes);
        if (!c.pageInfo.hasNextPage) break;
        after = c.pageInfo.endCursor;
      }
      const rest = setup({ ...EXAMPLE_WORLD });
      const restToken = await mintToken(rest.call, EXAMPLE_WORLD);
      const listed = (await rest.call("GET", restPages[field], { token: restToken.token })).body;
      if (field === "listWorkOrdersOffset") {
        const more = await rest.call("GET", "/v3/work-orders-by-offset?limit=20&offset=20", {
          token: restToken.token,
        });
        listed["work-orders"].push(...more.body["work-orders"]);
      }
      expect(total).toBe(listed.total);
      expect(ids).toEqual(listed["work-orders"].map((r: { order_id: string }) => r.order_id));
      expect(ids.length).toBeGreaterThan(4);
      const urls = trial.log.exchanges().map((e) => e.url);
      expect(
        urls
          .slice(1)
          .every((u) => u.startsWith(field === "listWorkOrdersCursor" ? "/v3/work-orders?" : "/v3/")),
      ).toBe(true);
    });
  }

  it("answers a cursor it did not issue with invalid_cursor", async () => {
    const { gql } = setup();
    const token = await gqlToken(gql);
    const r = await gql(
      `{ c: listWorkOrdersOffset(first: 4, after: "gc_bm9wZQ") { totalCount } }`,
      undefined,
      token,
    );
    expect(r.body.errors[0].extensions).toMatchObject({ code: "invalid_cursor", status: 400 });
  });

  it("answers a document that does not validate with 400 and logs the attempt", async () => {
    const { gql, trial } = setup();
    const r = await gql(`{ nope }`);
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe("graphql_validation_failed");
    expect(r.body.errors[0].message).toContain('Cannot query field "nope"');
    expect(trial.log.exchanges()[0]).toMatchObject({ protocol: "graphql", url: "/graphql", status: 400 });
  });

  it("refuses REST paths with a message naming the GraphQL endpoint", async () => {
    const { call } = setup();
    const r = await call("GET", "/v3/valves");
    expect(r.status).toBe(404);
    expect(r.body.message).toContain("served as GraphQL at POST /graphql");
  });

  it("costs one logical second per operation, as REST requests do", async () => {
    const { gql, trial } = setup();
    const token = await gqlToken(gql);
    const before = trial.clock;
    await gql(
      `{ a: getValve(valve_id: "VL-1") b: getValve(valve_id: "VL-2") c: getValve(valve_id: "VL-3") }`,
      undefined,
      token,
    );
    expect(trial.clock - before).toBe(3);
  });
});

describe("execute with protocol graphql", () => {
  function workspace(world: World) {
    const trial = new TrialWorld(world, SEED);
    const ws = new Workspace({
      world,
      transport: inProcessTransport(trial),
      log: trial.log,
      variables: {
        vault: { client_id: world.auth.client_id, client_secret: world.auth.client_secret },
        local: {},
        global: {},
      },
    });
    return { ws, trial };
  }

  it("sends a GraphQL request with placeholders resolved, stores the response and reads the SDL spec", async () => {
    const { ws, trial } = workspace(GQL_WORLD);
    const spec = JSON.parse((await ws.call("read", { entity_ref: { kind: "spec", id: "graphql" } })).content);
    expect(spec.content.format).toBe("graphql-sdl");
    expect(spec.content.document).toContain("getValve(valve_id: String!): JSON");
    const minted = await ws.call("execute", {
      request: {
        protocol: "graphql",
        query: `mutation($id: String, $s: String) { t: issueToken(grant_type: "client_credentials", client_id: $id, client_secret: $s) }`,
        variables: { id: "{{client_id}}", s: "{{client_secret}}" },
      },
    });
    expect(minted.ok).toBe(true);
    const token = JSON.parse(JSON.parse(minted.content).body_preview).data.t.access_token as string;
    await ws.call("write", { entity_ref: { kind: "variable", id: "tok" }, content: { value: token } });
    const got = await ws.call("execute", {
      request: {
        protocol: "graphql",
        query: `{ v: getValve(valve_id: "VL-2") }`,
        headers: { authorization: "Bearer {{tok}}" },
      },
    });
    const out = JSON.parse(got.content);
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body_preview).data.v.valve_id).toBe("VL-2");
    const stored = JSON.parse((await ws.call("read", { entity_ref: out.response_ref })).content);
    expect(stored.content.body.data.v.valve_id).toBe("VL-2");
    expect(trial.log.exchanges().map((e) => e.url)).toEqual(["/v3/oauth/token", "/v3/valves/VL-2"]);
  });

  it("answers a GraphQL request to a REST world with unsupported_protocol", async () => {
    const { ws } = workspace(EXAMPLE_WORLD);
    const r = await ws.call("execute", { request: { protocol: "graphql", query: "{ x }" } });
    expect(r.error?.code).toBe("unsupported_protocol");
    expect(r.content).toContain("this world speaks rest");
  });
});
