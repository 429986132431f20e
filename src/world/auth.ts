import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route } from "../bank/world-schema.js";
import { fail, ok, type Reply } from "./reply.js";
import { tokenWording, type WorldProtocol } from "./token-wording.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * `POST <token_path>`: OAuth 2.0 client credentials (JSON or form body), optional `scope`, and
 * `grant_type=refresh_token` when the world issues refresh tokens. Every refusal names what to fix.
 *
 * @example mintTokenReply(trial, { grant_type: "client_credentials", client_id: "c", client_secret: "s" })
 */
export function mintTokenReply(
  trial: TrialWorld,
  body: JsonValue | null,
  protocol: WorldProtocol = "rest",
): Reply {
  const { auth } = trial.world;
  const words = tokenWording(auth, protocol);
  const form: JsonObject = body !== null && typeof body === "object" && !Array.isArray(body) ? body : {};
  const grants = auth.refresh ? ["client_credentials", "refresh_token"] : ["client_credentials"];
  if (typeof form.grant_type !== "string" || !grants.includes(form.grant_type)) {
    return fail(
      400,
      "unsupported_grant_type",
      `this server supports grant_type=${grants.join(" or ")} only`,
      {
        hint:
          protocol === "rest"
            ? "send JSON or form fields grant_type, client_id, client_secret"
            : `pass grant_type, client_id and client_secret to ${words.mint}`,
      },
    );
  }
  if (form.grant_type === "refresh_token") {
    const issued = typeof form.refresh_token === "string" ? trial.refresh(form.refresh_token) : undefined;
    if (!issued) {
      return fail(400, "invalid_grant", "the refresh_token is missing, already used or was never issued", {
        hint: `refresh tokens are single use: send the newest one, or mint a new token with ${words.grant("client_credentials")}`,
      });
    }
    return ok(200, tokenBody(issued));
  }
  if (form.client_id !== auth.client_id || form.client_secret !== auth.client_secret) {
    return fail(401, "invalid_client", "client_id or client_secret is wrong");
  }
  let scopes: string[] | undefined;
  if (form.scope !== undefined && form.scope !== null && form.scope !== "") {
    if (typeof form.scope !== "string") {
      return fail(
        400,
        "invalid_scope",
        'scope must be a space-separated string, e.g. "orders:read orders:write"',
      );
    }
    scopes = form.scope.split(/\s+/).filter(Boolean);
    const unknown = scopes.find((s) => !auth.scopes.includes(s));
    if (unknown !== undefined) {
      return fail(
        400,
        "invalid_scope",
        `unknown scope ${unknown}; this client may request: ${auth.scopes.join(" ") || "(none)"}`,
        {
          scope: unknown,
        },
      );
    }
  }
  return ok(200, tokenBody(trial.issueToken(scopes)));
}

function tokenBody(issued: ReturnType<TrialWorld["issueToken"]>): JsonObject {
  return {
    access_token: issued.token,
    token_type: "Bearer",
    expires_in: issued.ttl,
    scope: issued.scopes.join(" "),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
  };
}

/**
 * Check the bearer token of a request to `route`: null when it may proceed, otherwise the 401/403
 * the agent gets (with `www-authenticate` as RFC 6750 says, and a hint naming the fix in the words
 * of the agent's protocol: `POST /v3/oauth/token` for REST, `issueToken` / `issue_token` for the
 * GraphQL and MCP variants).
 */
export function authorize(
  trial: TrialWorld,
  route: Route,
  authorization: string | undefined,
  protocol: WorldProtocol = "rest",
): Reply | null {
  if (!route.auth_required) return null;
  const { auth } = trial.world;
  const words = tokenWording(auth, protocol);
  const refreshNote = auth.refresh
    ? `, or exchange your refresh_token with ${words.grant("refresh_token")}`
    : "";
  const hint = `mint a fresh token with ${words.mint} (${words.grant("client_credentials")})${refreshNote} and ${words.send}`;
  const match = /^Bearer\s+(\S+)$/i.exec((authorization ?? "").trim());
  if (!match) {
    return fail(
      401,
      "missing_token",
      "this route needs a bearer token",
      { hint },
      { "www-authenticate": "Bearer" },
    );
  }
  const challenge = { "www-authenticate": 'Bearer error="invalid_token"' };
  const verdict = trial.spendToken(match[1] as string, route.scopes);
  if (verdict === "ok") return null;
  if (verdict === "unknown") {
    return fail(401, "invalid_token", "the bearer token is expired or was never issued", { hint }, challenge);
  }
  if (verdict === "expired")
    return fail(401, "token_expired", "the bearer token has expired", { hint }, challenge);
  return fail(
    403,
    "insufficient_scope",
    `the token lacks scope ${verdict.missing}`,
    {
      required_scope: verdict.missing,
      hint: `mint a token that carries it: ${words.mint} with ${words.grant("client_credentials")} and ${words.field("scope", route.scopes.join(" "))}`,
    },
    { "www-authenticate": `Bearer error="insufficient_scope", scope="${route.scopes.join(" ")}"` },
  );
}
