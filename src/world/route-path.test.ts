import { describe, expect, it } from "vitest";
import { honoRoutePath, routePathPattern } from "./route-path.js";

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
