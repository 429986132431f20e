import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { client } from "../../test/support/world-test-helpers.js";
import type { JsonObject } from "../bank/json.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

async function validate(doc: unknown) {
  const validator = new Validator();
  // The validator takes a document object; a deep copy keeps it from touching the rendered spec.
  return validator.validate(JSON.parse(JSON.stringify(doc)));
}

describe("OpenAPI 3.1 rendered from a world", () => {
  it.each([
    ["harbour", HARBOR_WORLD],
    ["example (every behaviour)", EXAMPLE_WORLD],
  ])("validates with @seriousme/openapi-schema-validator: %s world", async (_, world) => {
    const res = await validate(renderOpenApi(world));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
  });

  it("the validator rejects a broken document (the check is load-bearing)", async () => {
    const doc = renderOpenApi(EXAMPLE_WORLD) as unknown as JsonObject;
    const paths = doc.paths as Record<string, Record<string, JsonObject>>;
    // `in: "body"` was Swagger 2.0; OpenAPI 3.x allows query, header, path and cookie only.
    (paths["/v3/valves/{valve_id}"]?.get as JsonObject).parameters = [
      { name: "valve_id", in: "body", required: true, schema: { type: "string" } },
    ];
    expect((await validate(doc)).valid).toBe(false);
  });

  it("publishes what is documented: undocumented routes and parameters stay out", () => {
    const doc = renderOpenApi(EXAMPLE_WORLD);
    expect(doc.paths["/v3/readings"]).toBeUndefined();
    const params = (doc.paths["/v3/work-orders"]?.get?.parameters ?? []) as Array<{ name: string }>;
    expect(params.map((p) => p.name)).toEqual(["cursor", "limit", "site"]);
    expect(doc.paths["/v3/partner/valves"]?.get?.deprecated).toBe(true);
  });

  it("lags the live validator when spec_lag is set: the spec shows the old snake_case body", () => {
    const doc = renderOpenApi(EXAMPLE_WORLD);
    const body = doc.paths["/v3/schedules"]?.post?.requestBody as JsonObject;
    const text = JSON.stringify(body);
    expect(text).toContain("duration_min");
    expect(text).not.toContain("durationMin");
    const patch = JSON.stringify(doc.paths["/v3/valves/{valve_id}"]?.patch);
    expect(patch).toContain("If-Match");
    expect(JSON.stringify(doc.paths["/v3/schedules"]?.post?.responses)).toContain("Location");
  });

  it("is served at /openapi.json without auth", async () => {
    const call = client(inProcessTransport(new TrialWorld(EXAMPLE_WORLD, "s")));
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(renderOpenApi(EXAMPLE_WORLD))));
  });
});
