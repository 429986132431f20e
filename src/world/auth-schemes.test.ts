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

  it("its refusals speak of a key sent in X-Api-Key: the missing key's hint and the 403 for a missing scope", () => {
    const trial = new TrialWorld(world, "seed-key");
    expect(authorize(trial, route("listValves"), headers({}))?.body).toEqual({
      error: "missing_token",
      message: "this route needs an API key",
      hint:
        "mint a fresh key with POST /v3/oauth/token (grant_type=client_credentials), or exchange your " +
        "refresh_token with grant_type=refresh_token and send X-Api-Key: <api_key>",
    });
    const { token } = trial.issueToken(["valves:read"]);
    expect(authorize(trial, route("updateValve"), headers({ "x-api-key": token }))).toMatchObject({
      status: 403,
      body: {
        error: "insufficient_scope",
        message: "the API key lacks scope valves:write",
        hint: "mint a key that carries it: POST /v3/oauth/token with grant_type=client_credentials and scope=valves:write",
      },
      headers: { "www-authenticate": 'ApiKey error="insufficient_scope", scope="valves:write"' },
    });
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

  it("a token request without the refresh grant is told to send the newest refresh token, in each protocol's words", () => {
    const trial = new TrialWorld(world, "seed-rot");
    expect(mintTokenReply(trial, { grant_type: "client_credentials" }).body).toEqual({
      error: "unsupported_grant_type",
      message: "this server supports grant_type=refresh_token only",
      hint: "send JSON or form fields grant_type=refresh_token and refresh_token (your newest one)",
    });
    expect(mintTokenReply(trial, {}, "graphql").body).toMatchObject({
      hint: "pass grant_type and refresh_token to the issueToken mutation",
    });
    expect(mintTokenReply(trial, {}, "mcp").body).toMatchObject({
      hint: "pass grant_type and refresh_token to the issue_token tool",
    });
  });

  it("an unknown scope on a refresh is refused before the refresh token is spent", () => {
    const trial = new TrialWorld(world, "seed-rot");
    const refused = mintTokenReply(trial, {
      grant_type: "refresh_token",
      refresh_token: "rt_initial",
      scope: "valves:read admin",
    });
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_scope", scope: "admin" } });
    expect(mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" }).status).toBe(
      200,
    );
  });

  it("a spent refresh token is refused with the rotation's hint", () => {
    const trial = new TrialWorld(world, "seed-rot");
    mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" });
    expect(mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" }).body).toEqual({
      error: "invalid_grant",
      message: "the refresh_token is missing, already used or was never issued",
      hint: "refresh tokens are single use: send the newest one (each token reply carries the next)",
    });
  });

  it("a refresh token stands for the client: without scope it grants the defaults, whatever its token carried", () => {
    const trial = new TrialWorld(world, "seed-rot");
    const first = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_initial" });
    expect(first.body).toMatchObject({ scope: "valves:read" });
    const write = mintTokenReply(trial, {
      grant_type: "refresh_token",
      refresh_token: (first.body as { refresh_token: string }).refresh_token,
      scope: "valves:write",
    });
    expect(write.body).toMatchObject({ scope: "valves:write" });
    const next = mintTokenReply(trial, {
      grant_type: "refresh_token",
      refresh_token: (write.body as { refresh_token: string }).refresh_token,
    });
    expect(next.body).toMatchObject({ scope: "valves:read" });
  });

  it("its 401 and 403 hints send the agent to the refresh grant with its newest refresh token", () => {
    const trial = new TrialWorld(world, "seed-rot");
    expect(authorize(trial, route("listValves"), headers({}))?.body).toMatchObject({
      hint:
        "get a fresh token with POST /v3/oauth/token (grant_type=refresh_token and your newest " +
        "refresh_token) and send Authorization: Bearer <token>",
    });
    const { token } = trial.issueToken(["valves:read"]);
    const two: Route = { ...route("updateValve"), scopes: ["valves:read", "valves:write"] };
    expect(authorize(trial, two, headers({ authorization: `Bearer ${token}` }))).toMatchObject({
      status: 403,
      body: {
        message: "the token lacks scope valves:write",
        hint:
          "mint a token that carries it: POST /v3/oauth/token with grant_type=refresh_token, your newest " +
          "refresh_token and scope=valves:read valves:write",
      },
    });
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
