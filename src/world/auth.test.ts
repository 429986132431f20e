import { describe, expect, it } from "vitest";
import type { Route, World } from "../bank/world-schema.js";
import { authorize, mintTokenReply } from "./auth.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { TrialWorld } from "./trial-world.js";

/**
 * The token endpoint and the bearer check on their own (issue 21: mutation testing): every refusal
 * is checked with its status, code, wording and headers, and every grant with the body it returns.
 */
const creds = {
  grant_type: "client_credentials",
  client_id: W.auth.client_id,
  client_secret: W.auth.client_secret,
};
const route = (id: string): Route => W.routes.find((r) => r.id === id)!;
/** A request whose only header is this Authorization value. */
const bearer =
  (value: string | undefined) =>
  (name: string): string | undefined =>
    name === "authorization" ? value : undefined;
const withAuth = (auth: Partial<World["auth"]>): World => ({ ...W, auth: { ...W.auth, ...auth } });

describe("mintTokenReply", () => {
  it("client credentials mint a bearer token with the default scopes, its ttl and a refresh token", () => {
    const trial = new TrialWorld(W, "seed-auth");
    const r = mintTokenReply(trial, creds);
    expect(r.status).toBe(200);
    const body = r.body as Record<string, unknown>;
    expect(body).toEqual({
      access_token: expect.stringMatching(/^tk_irr_/),
      token_type: "Bearer",
      expires_in: W.auth.ttl_seconds,
      scope: "valves:read",
      refresh_token: expect.stringMatching(/^rt_/),
    });
    expect(trial.spendToken(body.access_token as string, ["valves:read"])).toBe("ok");
  });

  it("a world without refresh tokens returns none and refuses grant_type=refresh_token", () => {
    const trial = new TrialWorld(withAuth({ refresh: false }), "seed-auth");
    const r = mintTokenReply(trial, creds);
    expect(Object.keys(r.body as object)).not.toContain("refresh_token");
    const refused = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: "rt_x" });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "unsupported_grant_type",
      message: "this server supports grant_type=client_credentials only",
      hint: "send JSON or form fields grant_type, client_id, client_secret",
    });
  });

  for (const body of [
    null,
    "grant_type=client_credentials",
    [creds],
    {},
    { ...creds, grant_type: "password" },
  ]) {
    it(`refuses ${JSON.stringify(body)} as an unsupported grant, naming both grants`, () => {
      const r = mintTokenReply(new TrialWorld(W, "s"), body);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: "unsupported_grant_type",
        message: "this server supports grant_type=client_credentials or refresh_token only",
        hint: "send JSON or form fields grant_type, client_id, client_secret",
      });
    });
  }

  it("the hint of a protocol variant names its own mint operation", () => {
    const graphql = mintTokenReply(new TrialWorld(W, "s"), {}, "graphql");
    expect(graphql.body).toMatchObject({
      hint: "pass grant_type, client_id and client_secret to the issueToken mutation",
    });
    const mcp = mintTokenReply(new TrialWorld(W, "s"), {}, "mcp");
    expect(mcp.body).toMatchObject({
      hint: "pass grant_type, client_id and client_secret to the issue_token tool",
    });
  });

  it("a refresh token is single use and keeps the scopes it was issued with", () => {
    const trial = new TrialWorld(W, "seed-auth");
    const first = mintTokenReply(trial, { ...creds, scope: "valves:write" }).body as Record<string, string>;
    const second = mintTokenReply(trial, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token!,
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ token_type: "Bearer", scope: "valves:write" });
    const again = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: first.refresh_token! });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      error: "invalid_grant",
      message: "the refresh_token is missing, already used or was never issued",
      hint: "refresh tokens are single use: send the newest one, or mint a new token with grant_type=client_credentials",
    });
    const missing = mintTokenReply(trial, { grant_type: "refresh_token", refresh_token: 7 });
    expect(missing.body).toMatchObject({ error: "invalid_grant" });
  });

  it("a wrong client id or secret is 401 invalid_client", () => {
    for (const wrong of [{ client_id: "nope" }, { client_secret: "nope" }]) {
      const r = mintTokenReply(new TrialWorld(W, "s"), { ...creds, ...wrong });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ error: "invalid_client", message: "client_id or client_secret is wrong" });
    }
  });

  it("scope: space-separated known scopes are granted; empty or null means the defaults", () => {
    const trial = new TrialWorld(W, "s");
    const both = mintTokenReply(trial, { ...creds, scope: "  valves:read   schedules:write " });
    expect(both.body).toMatchObject({ scope: "valves:read schedules:write" });
    expect(mintTokenReply(trial, { ...creds, scope: "" }).body).toMatchObject({ scope: "valves:read" });
    expect(mintTokenReply(trial, { ...creds, scope: null }).body).toMatchObject({ scope: "valves:read" });
  });

  it("scope: a non-string is refused with an example; an unknown scope is named with the allowed ones", () => {
    const trial = new TrialWorld(W, "s");
    expect(mintTokenReply(trial, { ...creds, scope: ["valves:read"] }).body).toEqual({
      error: "invalid_scope",
      message: 'scope must be a space-separated string, e.g. "orders:read orders:write"',
    });
    const unknown = mintTokenReply(trial, { ...creds, scope: "valves:read admin" });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({
      error: "invalid_scope",
      message: "unknown scope admin; this client may request: valves:read valves:write schedules:write",
      scope: "admin",
    });
    const none = mintTokenReply(new TrialWorld(withAuth({ scopes: [] }), "s"), { ...creds, scope: "x" });
    expect(none.body).toMatchObject({ message: "unknown scope x; this client may request: (none)" });
  });
});

describe("authorize", () => {
  const restHint =
    "mint a fresh token with POST /v3/oauth/token (grant_type=client_credentials), or exchange your " +
    "refresh_token with grant_type=refresh_token and send Authorization: Bearer <token>";

  it("a route that needs no token lets anything through", () => {
    expect(
      authorize(new TrialWorld(W, "s"), { ...route("listValves"), auth_required: false }, bearer(undefined)),
    ).toBeNull();
  });

  for (const header of [undefined, "", "Basic abc", "Bearer", "Bearer a b", "tk_irr_x", "xBearer tk_irr_x"]) {
    it(`no usable bearer token (${JSON.stringify(header)}) is 401 missing_token with a challenge`, () => {
      const r = authorize(new TrialWorld(W, "s"), route("listValves"), bearer(header));
      expect(r).toEqual(
        expect.objectContaining({
          status: 401,
          body: { error: "missing_token", message: "this route needs a bearer token", hint: restHint },
          headers: { "www-authenticate": "Bearer" },
        }),
      );
    });
  }

  it("a live token with the scope passes, in any case of 'bearer' and with surrounding space", () => {
    const trial = new TrialWorld(W, "s");
    const { token } = trial.issueToken();
    expect(authorize(trial, route("listValves"), bearer(`Bearer ${token}`))).toBeNull();
    expect(authorize(trial, route("listValves"), bearer(`  bearer   ${token}  `))).toBeNull();
  });

  it("an unknown token is 401 invalid_token; a stale one is 401 token_expired", () => {
    const trial = new TrialWorld(W, "s");
    const unknown = authorize(trial, route("listValves"), bearer("Bearer tk_irr_NEVER"));
    expect(unknown).toMatchObject({
      status: 401,
      body: {
        error: "invalid_token",
        message: "the bearer token is expired or was never issued",
        hint: restHint,
      },
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
    });
    const stale = authorize(trial, route("listValves"), bearer("Bearer tk_irr_OLD000"));
    expect(stale).toMatchObject({
      status: 401,
      body: { error: "token_expired", message: "the bearer token has expired", hint: restHint },
      headers: { "www-authenticate": 'Bearer error="invalid_token"' },
    });
  });

  it("a token without the route's scope is 403 insufficient_scope naming the scope and how to get it", () => {
    const trial = new TrialWorld(W, "s");
    const { token } = trial.issueToken(["valves:read"]);
    const r = authorize(trial, route("updateValve"), bearer(`Bearer ${token}`));
    expect(r).toMatchObject({
      status: 403,
      body: {
        error: "insufficient_scope",
        message: "the token lacks scope valves:write",
        required_scope: "valves:write",
        hint: "mint a token that carries it: POST /v3/oauth/token with grant_type=client_credentials and scope=valves:write",
      },
      headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="valves:write"' },
    });
  });

  it("a route needing two scopes names both, space-separated, in the hint and the challenge", () => {
    const trial = new TrialWorld(W, "s");
    const { token } = trial.issueToken(["valves:read"]);
    const two: Route = { ...route("updateValve"), scopes: ["valves:read", "valves:write"] };
    expect(authorize(trial, two, bearer(`Bearer ${token}`))).toMatchObject({
      status: 403,
      body: {
        required_scope: "valves:write",
        hint: "mint a token that carries it: POST /v3/oauth/token with grant_type=client_credentials and scope=valves:read valves:write",
      },
      headers: { "www-authenticate": 'Bearer error="insufficient_scope", scope="valves:read valves:write"' },
    });
  });

  it("a world without refresh tokens does not mention them; other protocols name their own words", () => {
    const trial = new TrialWorld(withAuth({ refresh: false }), "s");
    expect(authorize(trial, route("listValves"), bearer(undefined))?.body).toMatchObject({
      hint: "mint a fresh token with POST /v3/oauth/token (grant_type=client_credentials) and send Authorization: Bearer <token>",
    });
    const mcp = authorize(new TrialWorld(W, "s"), route("listValves"), bearer(undefined), "mcp");
    expect(mcp?.body).toMatchObject({ hint: expect.stringContaining("the issue_token tool") });
  });
});
