import { describe, expect, it } from "vitest";
import type { Route, World } from "../bank/world-schema.js";
import { authorize, mintTokenReply } from "./auth.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import { TrialWorld } from "./trial-world.js";

/** The API-key and refresh-rotation schemes (issue 16 item 3), beside the client-credentials tests in auth.test.ts. */
const creds = {
  grant_type: "client_credentials",
  client_id: W.auth.client_id,
  client_secret: W.auth.client_secret,
};
const route = (id: string): Route => W.routes.find((r) => r.id === id)!;
const withAuth = (auth: Partial<World["auth"]>): World => ({
  ...W,
  auth: { ...W.auth, refresh: true, ...auth },
});
const headers =
  (h: Record<string, string>) =>
  (name: string): string | undefined =>
    h[name];

describe("API key header scheme", () => {
  const world = withAuth({ scheme: "api_key" });

  it("issues an api_key for the client credentials and accepts it in X-Api-Key only", () => {
    const trial = new TrialWorld(world, "seed-key");
    const body = mintTokenReply(trial, creds).body as Record<string, unknown>;
    expect(body).toMatchObject({ api_key: expect.any(String), token_type: "ApiKey" });
    expect(body).not.toHaveProperty("access_token");
    const key = body.api_key as string;
    expect(authorize(trial, route("listValves"), headers({ "x-api-key": key }))).toBeNull();
    const asBearer = authorize(trial, route("listValves"), headers({ authorization: `Bearer ${key}` }));
    expect(asBearer?.status).toBe(401);
    expect(asBearer?.body).toMatchObject({ error: "missing_token", message: "this route needs an API key" });
    expect(asBearer?.headers?.["www-authenticate"]).toBe("ApiKey");
  });

  it("documents an apiKey security scheme in the spec", () => {
    const spec = renderOpenApi(world);
    expect(spec.components.securitySchemes).toMatchObject({
      apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
    });
    expect(spec.security).toEqual([{ apiKey: [] }]);
  });
});

describe("refresh-token rotation scheme", () => {
  const world = withAuth({ scheme: "refresh_rotation", initial_refresh_token: "rt_initial" });

  it("refuses client credentials and takes the initial refresh token once; each reply carries the next", () => {
    const trial = new TrialWorld(world, "seed-rot");
    expect(mintTokenReply(trial, creds).body).toMatchObject({ error: "unsupported_grant_type" });
    const first = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" });
    expect(first.status).toBe(200);
    const next = (first.body as Record<string, string>).refresh_token as string;
    expect(next).toMatch(/^rt_/);
    const again = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" });
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    const second = mintTokenReply(trial, {
      grant_type: "refresh_token",
      refresh_token: next,
      scope: "valves:read",
    });
    expect(second.body).toMatchObject({ scope: "valves:read" });
    const token = (second.body as Record<string, string>).access_token as string;
    expect(authorize(trial, route("listValves"), headers({ authorization: `Bearer ${token}` }))).toBeNull();
  });

  it("leaves the initial refresh token live through an unrecorded storyline replay", () => {
    const trial = new TrialWorld(world, "seed-rot");
    trial.recording = false;
    mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" });
    trial.recording = true;
    expect(mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" }).status).toBe(
      200,
    );
    expect(mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" }).status).toBe(
      400,
    );
  });

  it("documents the rotation in the spec's token endpoint", () => {
    const spec = renderOpenApi(world);
    const schema = JSON.stringify(spec.paths[W.auth.token_path]);
    expect(schema).toContain("single use");
    expect(schema).not.toContain("client_secret");
  });
});
