import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { convertStep, type VariantProtocol } from "../world/protocol-step.js";
import { errorKeyPath } from "../world/reply.js";
import { refusedVerbCall, restOf } from "./native-rest.js";

/**
 * `restOf` and `refusedVerbCall` on the inputs the first mutation run left untested: every world's
 * goldens (token calls, chains), the capture paths a list or an error answer has in GraphQL, path
 * parameters that need percent-encoding, many-argument calls, pagination names on a route without
 * pagination, malformed native steps, and a wrong verb on a path whose first route is not its update.
 */
const bank = bankFromContent(defaultBankContent());
type Execute = Extract<GoldenStep, { op: "execute" }>;
type Native = Extract<GoldenStep, { op: "execute_native" }>;

const harbor = bank.worlds.find((w) => w.id === "harbor-telemetry");
if (!harbor) throw new Error("the default bank has no harbor-telemetry world");
const world: World = harbor;
const route = (id: string): Route => {
  const r = world.routes.find((x) => x.id === id);
  if (!r) throw new Error(`harbor-telemetry has no route ${id}`);
  return r;
};

const native = (w: World, protocol: VariantProtocol, step: Execute): Native => {
  const n = convertStep(w, protocol, step, "test");
  if (typeof n === "string" || n.op !== "execute_native") throw new Error(String(n));
  return n;
};

/**
 * The REST step as `restOf` should give it back: Content-Type dropped (the carrier's business), no
 * empty headers, and no signing (`convertStep` carries no `sign` into a native call, so none comes back).
 */
const bare = (s: Execute): Execute => {
  const headers = Object.fromEntries(
    Object.entries(s.request.headers ?? {}).filter(([k]) => k.toLowerCase() !== "content-type"),
  );
  const { headers: _h, body, sign: _s, ...request } = s.request;
  return {
    ...s,
    request: {
      ...request,
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(body !== undefined ? { body } : {}),
    },
  };
};

/** Converted to `protocol` and read back, the step is itself again (no key left undefined). */
const expectRoundTrip = (w: World, step: Execute) => {
  for (const protocol of ["graphql", "mcp"] as const)
    expect(restOf(w, native(w, protocol, step)), `${protocol} ${JSON.stringify(step)}`).toStrictEqual(
      bare(step),
    );
};

const get = (url: string, capture: Record<string, string> = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: { Authorization: "Bearer {{t}}" } },
  capture,
});

describe("restOf over the whole default bank", () => {
  it("reads back every golden REST call of every world, token calls and chains included", () => {
    let steps = 0;
    let tokens = 0;
    for (const task of bank.tasks) {
      const w = bank.worlds.find((x) => x.id === task.world) as World;
      for (const s of task.golden) {
        // A percent-encoded query value comes back decoded (URLSearchParams reads it): the same call.
        if (s.op !== "execute" || s.request.url.includes("%")) continue;
        steps++;
        if (s.request.url === w.auth.token_path) tokens++;
        expectRoundTrip(w, s);
      }
    }
    expect(steps).toBeGreaterThan(5000);
    expect(tokens).toBeGreaterThan(100);
  });

  it("keeps a token call's own headers (MCP and GraphQL)", () => {
    for (const w of bank.worlds)
      expectRoundTrip(w, {
        op: "execute",
        request: {
          method: "POST",
          url: w.auth.token_path,
          headers: { "X-Request-Id": "r-1" },
          body: { grant_type: "client_credentials", client_id: "{{client_id}}" },
        },
        capture: { tok: "access_token" },
      });
  });
});

describe("restOf: GraphQL capture paths as the REST paths they stand for", () => {
  const list = route("list_vessels");

  it("reads a list's nodes, cursor, total and other fields back to the REST names", () => {
    const step = get(list.path, {
      all: list.resource,
      first: `${list.resource}.0.vessel_id`,
      next: "next_cursor",
      total: "total",
      note: "notice",
    });
    const gql = native(world, "graphql", step);
    expect(gql.capture).toEqual({
      all: "data.r.nodes",
      first: "data.r.nodes.0.vessel_id",
      next: "data.r.pageInfo.endCursor",
      total: "data.r.totalCount",
      note: "data.r.notice",
    });
    expect(restOf(world, gql)).toStrictEqual(bare(step));
  });

  it("leaves a non-list answer's fields named like a list's (nodes, totalCount) as they are", () => {
    const step = get("/v3/vessels/V-1", {
      n: "nodes",
      n0: "nodes.0",
      tc: "totalCount",
      cur: "pageInfo.endCursor",
    });
    const rest = restOf(world, native(world, "graphql", step));
    expect(rest?.op === "execute" && rest.capture).toEqual(step.capture);
  });

  it("reads a value captured from an error back to the world's own error path", () => {
    const styles = new Set<string>();
    for (const w of bank.worlds) {
      const errors = errorKeyPath(w.errors, "errors");
      styles.add(errors);
      const getRoute = w.routes.find((r) => r.action === "get" && !r.path.includes("{")) ?? w.routes[0];
      if (!getRoute) throw new Error("no route");
      const url = getRoute.path.replace(/\{[^}]+\}/g, "X-1");
      const step: Execute = {
        op: "execute",
        request: { method: getRoute.method, url },
        capture: { all: errors, field: `${errors}.0.field` },
      };
      const gql = native(w, "graphql", step);
      expect(gql.capture).toEqual({
        all: "errors.0.extensions.errors",
        field: "errors.0.extensions.errors.0.field",
      });
      expect(restOf(w, gql)).toStrictEqual(bare(step));
    }
    // The worlds use several error shapes, so the path read back is not one fixed string.
    expect(styles.size).toBeGreaterThan(1);
  });
});

describe("restOf: the arguments of a native call as a REST URL and body", () => {
  it("percent-encodes a path parameter, keeps a placeholder as it is", () => {
    for (const [id, url] of [
      ["V 1/x", "/v3/vessels/V%201%2Fx"],
      ["{{vid}}", "/v3/vessels/{{vid}}"],
    ] as const) {
      const mcp: Native = {
        op: "execute_native",
        request: { protocol: "mcp", tool: "get_vessel", arguments: { vessel_id: id } },
        capture: {},
      };
      expect(restOf(world, mcp)).toStrictEqual({
        op: "execute",
        request: { method: "GET", url },
        capture: {},
      });
    }
  });

  it("refuses, without throwing, a path parameter that is not a string (no conversion sends one)", () => {
    const mcp: Native = {
      op: "execute_native",
      request: { protocol: "mcp", tool: "get_vessel", arguments: { vessel_id: 7 } },
      capture: {},
    };
    expect(restOf(world, mcp)).toBeNull();
  });

  it("reads a call with more than ten GraphQL variables ($v10 is not $v1)", () => {
    const query = Array.from({ length: 12 }, (_, i) => `f${i}=x${i}`).join("&");
    const step = get(`${route("list_vessels").path}?${query}`);
    const gql = native(world, "graphql", step);
    expect(gql.request.protocol === "graphql" && gql.request.query).toContain("f10: $v10");
    expect(restOf(world, gql)).toStrictEqual(bare(step));
  });

  it("renames GraphQL pagination arguments only on a route with pagination", () => {
    const paged = route("list_vessels");
    const unpaged = route("list_vessels_registry");
    expect(paged.pagination).toBeTruthy();
    expect(unpaged.pagination).toBeFalsy();
    const pagedStep = get(`${paged.path}?per_page=5&page=2`);
    const pagedGql = native(world, "graphql", pagedStep);
    expect(pagedGql.request.protocol === "graphql" && pagedGql.request.query).toContain("perPage: $v0");
    expect(restOf(world, pagedGql)).toStrictEqual(bare(pagedStep));
    // Without pagination a query key named like a GraphQL pagination argument is just a key.
    const unpagedStep = get(`${unpaged.path}?perPage=5&after=c-1&limit=3`);
    expect(restOf(world, native(world, "graphql", unpagedStep))).toStrictEqual(bare(unpagedStep));
  });

  it("keeps a token form field named input in the form (only a route's input is the body)", () => {
    const step: Execute = {
      op: "execute",
      request: {
        method: "POST",
        url: world.auth.token_path,
        body: { grant_type: "client_credentials", input: "x", after: "y" },
      },
      capture: {},
    };
    expect(restOf(world, native(world, "graphql", step))).toStrictEqual(step);
  });

  it("refuses a GraphQL query with no aliased field or an unknown one, without throwing", () => {
    for (const query of ["query { vessels }", "query($v0: String!) { r: noSuchField(vessel_id: $v0) }"])
      expect(
        restOf(world, {
          op: "execute_native",
          request: { protocol: "graphql", query, variables: { v0: "V-1" } },
          capture: {},
        }),
      ).toBeNull();
  });
});

describe("refusedVerbCall: the operation a wrong verb names", () => {
  const orders = route("update_maintenance_order");
  const onOrderPath = world.routes.filter((r) => r.path === orders.path);
  const put: Execute = {
    op: "execute",
    request: { method: "PUT", url: "/v3/maintenance-orders/MO-1?query=q", body: { status: "open" } },
    capture: {},
  };

  it("is null for a step that is not a REST call", () => {
    expect(refusedVerbCall(world, "mcp", { op: "answer", fields: {} } as GoldenStep)).toBeNull();
  });

  it("takes the path's update route for its arguments even when it is not the path's first", () => {
    expect(onOrderPath[0]?.action).not.toBe("update");
    expect(onOrderPath.some((r) => r.method === "PUT")).toBe(false);
    const mcp = refusedVerbCall(world, "mcp", put);
    expect(mcp?.request).toEqual({
      protocol: "mcp",
      tool: "put_maintenance_order",
      arguments: { order_id: "MO-1", query: "q", body: { status: "open" } },
    });
    const gql = refusedVerbCall(world, "graphql", put);
    expect(gql?.request).toEqual({
      protocol: "graphql",
      query:
        "mutation($v0: String!, $v1: String, $v2: JSON!) { r: putMaintenanceOrder(order_id: $v0, query: $v1, input: $v2) }",
      variables: { v0: "MO-1", v1: "q", v2: { status: "open" } },
    });
  });

  it("makes a read-only path's query a mutation named by the verb", () => {
    const audit = route("get_vessel_audit");
    expect(world.routes.filter((r) => r.path === audit.path).map((r) => r.method)).toEqual(["GET"]);
    const del: Execute = {
      op: "execute",
      request: { method: "DELETE", url: "/v3/vessels/V-1/audit" },
      capture: {},
    };
    const gql = refusedVerbCall(world, "graphql", del);
    expect(gql?.request).toEqual({
      protocol: "graphql",
      query: "mutation($v0: String!) { r: deleteVesselAudit(vessel_id: $v0) }",
      variables: { v0: "V-1" },
    });
  });

  it("drops only a leading lower-case verb from the route's id", () => {
    // A route id without that prefix keeps it whole: the name is the verb and the whole id.
    const renamed: World = {
      ...world,
      routes: world.routes.map((r) => (r.id === orders.id ? { ...r, id: "X_update_order" } : r)),
    };
    expect(refusedVerbCall(renamed, "mcp", put)?.request).toMatchObject({ tool: "put_X_update_order" });
  });
});
