import type { JsonObject, JsonValue } from "../bank/json.js";
import type { Route, World } from "../bank/world-schema.js";
import {
  authScheme,
  credentialField,
  credentialNoun,
  presentedCredential,
  tokenGrants,
} from "./credential.js";
import { fail, ok, type Reply, withTerse } from "./reply.js";
import { SIGNATURE_HEADERS, SIGNING_RECIPE, signatureMatches } from "./request-signature.js";
import { type TokenWording, tokenWording, type WorldProtocol } from "./token-wording.js";
import type { TrialWorld } from "./trial-world.js";

/**
 * `POST <token_path>`: OAuth 2.0 client credentials (JSON or form body), optional `scope`, and
 * `grant_type=refresh_token` when the world issues refresh tokens; in a refresh-rotation world only
 * the refresh grant (single use, optional `scope`); in an API-key world the reply's credential is
 * `api_key`. Every refusal names what to fix.
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
  if (authScheme(auth) === "signed_requests")
    return fail(400, "unsupported_grant_type", "this API issues no tokens: every request is signed", {
      hint: SIGNING_RECIPE,
    });
  const grants = tokenGrants(auth);
  const rotation = authScheme(auth) === "refresh_rotation";
  if (typeof form.grant_type !== "string" || !grants.includes(form.grant_type)) {
    return fail(
      400,
      "unsupported_grant_type",
      `this server supports grant_type=${grants.join(" or ")} only`,
      {
        hint:
          protocol === "rest"
            ? rotation
              ? "send JSON or form fields grant_type=refresh_token and refresh_token (your newest one)"
              : "send JSON or form fields grant_type, client_id, client_secret"
            : rotation
              ? `pass grant_type and refresh_token to ${words.mint}`
              : `pass grant_type, client_id and client_secret to ${words.mint}`,
      },
    );
  }
  if (form.grant_type === "refresh_token") {
    const asked = rotation ? requestedScopes(trial, form.scope) : {};
    if ("reply" in asked) return asked.reply;
    const issued =
      typeof form.refresh_token === "string"
        ? trial.refresh(form.refresh_token, rotation ? asked.scopes : undefined)
        : undefined;
    if (!issued) {
      return fail(400, "invalid_grant", "the refresh_token is missing, already used or was never issued", {
        hint: rotation
          ? "refresh tokens are single use: send the newest one (each token reply carries the next)"
          : `refresh tokens are single use: send the newest one, or mint a new token with ${words.grant("client_credentials")}`,
      });
    }
    return ok(200, tokenBody(trial, issued));
  }
  if (form.client_id !== auth.client_id || form.client_secret !== auth.client_secret) {
    return fail(401, "invalid_client", "client_id or client_secret is wrong");
  }
  const asked = requestedScopes(trial, form.scope);
  if ("reply" in asked) return asked.reply;
  return ok(200, tokenBody(trial, trial.issueToken(asked.scopes)));
}

/** The scopes a token request names (undefined: the defaults), or the 400 for a malformed or unknown one. */
function requestedScopes(
  trial: TrialWorld,
  scope: JsonValue | undefined,
): { scopes?: string[] } | { reply: Reply } {
  const { auth } = trial.world;
  let scopes: string[] | undefined;
  const form = { scope };
  if (form.scope !== undefined && form.scope !== null && form.scope !== "") {
    if (typeof form.scope !== "string") {
      return {
        reply: fail(
          400,
          "invalid_scope",
          'scope must be a space-separated string, e.g. "orders:read orders:write"',
        ),
      };
    }
    scopes = form.scope.split(/\s+/).filter(Boolean);
    const unknown = scopes.find((s) => !auth.scopes.includes(s));
    if (unknown !== undefined) {
      return {
        reply: fail(
          400,
          "invalid_scope",
          `unknown scope ${unknown}; this client may request: ${auth.scopes.join(" ") || "(none)"}`,
          { scope: unknown },
        ),
      };
    }
  }
  return { scopes };
}

function tokenBody(trial: TrialWorld, issued: ReturnType<TrialWorld["issueToken"]>): JsonObject {
  const apiKey = authScheme(trial.world.auth) === "api_key";
  return {
    [credentialField(trial.world.auth)]: issued.token,
    token_type: apiKey ? "ApiKey" : "Bearer",
    expires_in: issued.ttl,
    scope: issued.scopes.join(" "),
    ...(issued.refreshToken ? { refresh_token: issued.refreshToken } : {}),
  };
}

/**
 * Check the credential of a request to `route` in the world's scheme (a bearer token, or an API key
 * in `X-Api-Key`): null when it may proceed, otherwise the 401/403 the agent gets (with
 * `www-authenticate` as RFC 6750 says, and a hint naming the fix in the words of the agent's
 * protocol: `POST /v3/oauth/token` for REST, `issueToken` / `issue_token` for the GraphQL and MCP
 * variants).
 *
 * @example authorize(trial, route, (h) => req.headers.get(h) ?? undefined)
 */
export function authorize(
  trial: TrialWorld,
  route: Route,
  header: (name: string) => string | undefined,
  protocol: WorldProtocol = "rest",
  request?: SignedTarget,
): Reply | null {
  if (!route.auth_required) return null;
  const { auth } = trial.world;
  if (authScheme(auth) === "signed_requests" || route.signed === true)
    return verifySignature(trial, route, header, request);
  const words = tokenWording(auth, protocol);
  const scheme = authScheme(auth);
  const noun = credentialNoun(auth);
  const apiKey = scheme === "api_key";
  const presented = presentedCredential(auth, header);
  const challengeScheme = apiKey ? "ApiKey" : "Bearer";
  if (presented === undefined) {
    return fail(
      401,
      "missing_token",
      `this route needs ${apiKey ? "an API key" : "a bearer token"}`,
      { hint: freshCredentialHint(auth, words) },
      { "www-authenticate": challengeScheme },
    );
  }
  const challenge = { "www-authenticate": `${challengeScheme} error="invalid_token"` };
  const verdict = trial.spendToken(presented, route.scopes);
  if (verdict === "ok") return null;
  if (verdict === "unknown") {
    return fail(
      401,
      "invalid_token",
      `the ${noun} is expired or was never issued`,
      { hint: freshCredentialHint(auth, words) },
      challenge,
    );
  }
  if (verdict === "expired")
    return fail(
      401,
      "token_expired",
      `the ${noun} has expired`,
      { hint: freshCredentialHint(auth, words) },
      challenge,
    );
  const how =
    scheme === "refresh_rotation"
      ? `${words.mint} with ${words.grant("refresh_token")}, your newest refresh_token and ${words.field("scope", route.scopes.join(" "))}`
      : `${words.mint} with ${words.grant("client_credentials")} and ${words.field("scope", route.scopes.join(" "))}`;
  return fail(
    403,
    "insufficient_scope",
    `the ${apiKey ? "API key" : "token"} lacks scope ${verdict.missing}`,
    { required_scope: verdict.missing, hint: `mint a ${apiKey ? "key" : "token"} that carries it: ${how}` },
    {
      "www-authenticate": `${challengeScheme} error="insufficient_scope", scope="${route.scopes.join(" ")}"`,
    },
  );
}

/** How to get a credential that works, in the words of the agent's protocol (a 401's hint). */
function freshCredentialHint(auth: World["auth"], words: TokenWording): string {
  if (authScheme(auth) === "refresh_rotation")
    return `get a fresh token with ${words.mint} (${words.grant("refresh_token")} and your newest refresh_token) and ${words.send}`;
  const refresh = auth.refresh ? `, or exchange your refresh_token with ${words.grant("refresh_token")}` : "";
  const key = authScheme(auth) === "api_key" ? "key" : "token";
  return `mint a fresh ${key} with ${words.mint} (${words.grant("client_credentials")})${refresh} and ${words.send}`;
}

/** What a signed request signs, as the route saw it: the route's method, the URL, the parsed body. */
export interface SignedTarget {
  method: string;
  url: URL;
  body: JsonValue | null;
}

/**
 * A `signed_requests` world's check of one call: the key id, a nonce above the key's last accepted
 * one, and the signature over method, canonical target, nonce and body hash. Each refusal is a 401
 * that says what is wrong; the recipe (a hint) is left out at hard, where the spec must be read.
 */
function verifySignature(
  trial: TrialWorld,
  route: Route,
  header: (name: string) => string | undefined,
  request: SignedTarget | undefined,
): Reply | null {
  const { auth } = trial.world;
  const challenge = { "www-authenticate": 'Signature headers="x-key-id x-nonce x-signature"' };
  const keyId = header(SIGNATURE_HEADERS.keyId.toLowerCase())?.trim();
  const nonceText = header(SIGNATURE_HEADERS.nonce.toLowerCase())?.trim();
  const signature = header(SIGNATURE_HEADERS.signature.toLowerCase())?.trim();
  if (!keyId || !nonceText || !signature) {
    const missing = [
      !keyId && SIGNATURE_HEADERS.keyId,
      !nonceText && SIGNATURE_HEADERS.nonce,
      !signature && SIGNATURE_HEADERS.signature,
    ].filter(Boolean);
    return withTerse(
      fail(
        401,
        "missing_signature",
        `this route takes signed requests; missing ${missing.join(", ")}`,
        { hint: SIGNING_RECIPE },
        challenge,
      ),
      "this route takes signed requests",
    );
  }
  if (keyId !== auth.client_id)
    return fail(
      401,
      "invalid_client",
      `unknown signing key ${keyId}`,
      { hint: "X-Key-Id is your client_id" },
      challenge,
    );
  const last = trial.lastNonce(keyId);
  // A nonce is compared as a number: past 2^53 two nonces could round to one, so it must be safe.
  const nonce = /^[1-9]\d{0,15}$/.test(nonceText) ? Number(nonceText) : Number.NaN;
  const integer = Number.isSafeInteger(nonce);
  if (!integer || !(nonce > last)) {
    return withTerse(
      fail(
        401,
        "stale_nonce",
        integer
          ? `X-Nonce ${nonceText} is not above the last nonce this key used (${last})`
          : `X-Nonce ${nonceText} is not a positive integer of at most ${Number.MAX_SAFE_INTEGER}`,
        { hint: `send a nonce above ${last}, and sign it` },
        challenge,
      ),
      "X-Nonce was used before or is not a positive integer",
    );
  }
  const target = request ?? { method: route.method, url: new URL("http://world.invalid/"), body: null };
  if (!signatureMatches(signature, auth.client_secret, target.method, target.url, nonceText, target.body)) {
    return withTerse(
      fail(
        401,
        "invalid_signature",
        "the signature does not match the request",
        { hint: SIGNING_RECIPE },
        challenge,
      ),
      "the signature does not match the request",
    );
  }
  trial.acceptNonce(keyId, nonce);
  return null;
}
