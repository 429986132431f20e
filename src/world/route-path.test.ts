import { describe, expect, it } from "vitest";
import { client, mintToken, plainClient } from "../../test/support/world-test-helpers.js";
import type { Route, World } from "../bank/world-schema.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import {
  honoRoutePath,
  matchRoute,
  routeOrder,
  routePathPattern,
  routesOnPath,
  routeTemplateOnPath,
} from "./route-path.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

describe("routePathPattern", () => {
  it("captures each parameter as one whole segment, in order", () => {
    const { re, params } = routePathPattern("/v3/vessels/{vessel_id}/logs/{log_id}");
    expect(params).toEqual(["vessel_id", "log_id"]);
    expect(re.exec("/v3/vessels/V-2/logs/L.9")?.slice(1)).toEqual(["V-2", "L.9"]);
    expect(re.test("/v3/vessels/V-2/x/logs/L-9")).toBe(false);
    expect(re.test("/v3/vessels//logs/L-9")).toBe(false);
    expect(re.test("/v3/vessels/V-2/logs/L-9/")).toBe(false);
  });

  it("matches everything else literally (a dot is a dot)", () => {
    const { re } = routePathPattern("/openapi.json");
    expect(re.test("/openapi.json")).toBe(true);
    expect(re.test("/openapiXjson")).toBe(false);
  });

  it("writes the same template in Hono's syntax", () => {
    expect(honoRoutePath("/v3/vessels/{vessel_id}/confirm")).toBe("/v3/vessels/:vessel_id/confirm");
  });
});

const r = (id: string, method: string, path: string) => ({ id, method, path });

describe("matchRoute", () => {
  // Declared with the parameter routes first, so declaration order alone would pick them.
  const routes = [
    r("get", "GET", "/v3/vessels/{vessel_id}"),
    r("update", "PATCH", "/v3/vessels/{vessel_id}"),
    r("search", "GET", "/v3/vessels/search"),
    r("log", "GET", "/v3/vessels/{vessel_id}/logs/{log_id}"),
    r("latest", "GET", "/v3/vessels/{vessel_id}/logs/latest"),
    r("mixed", "GET", "/v3/{fleet}/vessels/{vessel_id}/logs"),
    r("fleet", "GET", "/v3/north/vessels/{vessel_id}/logs"),
  ];

  it("tries a literal segment before a parameter at the first segment where two templates differ", () => {
    expect(matchRoute(routes, "GET", "/v3/vessels/search")?.route.id).toBe("search");
    expect(matchRoute(routes, "GET", "/v3/vessels/V-2/logs/latest")?.route.id).toBe("latest");
    expect(matchRoute(routes, "GET", "/v3/north/vessels/V-2/logs")?.route.id).toBe("fleet");
    expect(matchRoute(routes, "GET", "/v3/south/vessels/V-2/logs")).toEqual({
      route: routes[5],
      params: { fleet: "south", vessel_id: "V-2" },
    });
    expect(routeOrder(routes).map((x) => x.id)).toEqual([
      "search",
      "fleet",
      "get",
      "update",
      "latest",
      "log",
      "mixed",
    ]);
  });

  it("keeps declaration order between templates of the same shape", () => {
    const twins = [r("first", "GET", "/a/{x}"), r("second", "GET", "/a/{y}")];
    expect(matchRoute(twins, "GET", "/a/1")).toEqual({ route: twins[0], params: { x: "1" } });
  });

  it("matches the method exactly and the path whole, and hands parameters over as raw segments", () => {
    expect(matchRoute(routes, "PATCH", "/v3/vessels/V%202")).toEqual({
      route: routes[1],
      params: { vessel_id: "V%202" },
    });
    expect(matchRoute(routes, "get", "/v3/vessels/V-2")).toBeNull();
    expect(matchRoute(routes, "DELETE", "/v3/vessels/V-2")).toBeNull();
    expect(matchRoute(routes, "GET", "/v3/vessels/V-2?x=1")?.params).toEqual({ vessel_id: "V-2?x=1" });
    expect(matchRoute(routes, "GET", "/v3/vessels/V-2/")).toBeNull();
    expect(matchRoute(routes, "GET", "/v3/vessels/")).toBeNull();
  });

  it("lists the routes on a path whatever their method, in declaration order (for 405's allow)", () => {
    expect(routesOnPath(routes, "/v3/vessels/V-2").map((x) => x.method)).toEqual(["GET", "PATCH"]);
    expect(routesOnPath(routes, "/v3/boats")).toEqual([]);
  });

  it("is the engine's rule: a literal route declared after a parameter route still takes its path, on both transports", async () => {
    const summary: Route = {
      ...(EXAMPLE_WORLD.routes.find((x) => x.id === "listValves") as Route),
      id: "valveSummary",
      path: "/v3/valves/summary",
    };
    const world: World = { ...EXAMPLE_WORLD, routes: [...EXAMPLE_WORLD.routes, summary] };
    for (const make of [client, plainClient]) {
      const call = make(inProcessTransport(new TrialWorld(world, "route-order")));
      const { token } = await mintToken(call, world, "valves:read");
      const res = await call("GET", "/v3/valves/summary", { token });
      expect(res.status).toBe(200);
      expect(res.body.valves.length).toBeGreaterThan(0);
      expect((await call("GET", "/v3/valves/VL-1", { token })).body.valve_id).toBe("VL-1");
    }
  });
});

describe("routeTemplateOnPath", () => {
  const routes = [
    { method: "GET", path: "/v3/orders/{order_id}" },
    { method: "POST", path: "/v3/orders/dispatch" },
  ];
  it("gives the template of the route a path belongs to, the literal one first, whatever the method", () => {
    expect(routeTemplateOnPath(routes, "/v3/orders/dispatch")).toBe("/v3/orders/dispatch");
    expect(routeTemplateOnPath(routes, "/v3/orders/O-1")).toBe("/v3/orders/{order_id}");
    // A route's own template belongs to it (protocol operations name their route so).
    expect(routeTemplateOnPath(routes, "/v3/orders/{order_id}")).toBe("/v3/orders/{order_id}");
    expect(routeTemplateOnPath(routes, "/v3/nowhere")).toBeNull();
  });
});
