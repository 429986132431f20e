import type { World } from "../bank/world-schema.js";

/** How a world's clients get and present their credential (see `OAuthClientCredentialsSchema.scheme`). */
export type AuthScheme = "client_credentials" | "api_key" | "refresh_rotation" | "signed_requests";

/**
 * The world's auth scheme, `client_credentials` when it names none.
 *
 * @example authScheme(world.auth) // "api_key"
 */
export function authScheme(auth: World["auth"]): AuthScheme {
  return auth.scheme ?? "client_credentials";
}

/** The header an API-key world reads its key from. */
export const API_KEY_HEADER = "X-Api-Key";

/**
 * Headers that carry a credential in any scheme (lower-case): redacted in the event log, kept by
 * every rewrite of a golden step that keeps its authentication.
 *
 * @example isCredentialHeader("X-Api-Key") // true
 */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return n === "authorization" || n === "x-api-key" || n === "x-signature";
}

/**
 * The header a call sends its credential in, and its value, in the world's scheme.
 *
 * @example credentialHeader(world.auth, "{{token}}") // ["Authorization", "Bearer {{token}}"]
 */
export function credentialHeader(auth: World["auth"], credential: string): [string, string] {
  return authScheme(auth) === "api_key"
    ? [API_KEY_HEADER, credential]
    : ["Authorization", `Bearer ${credential}`];
}

/**
 * The credential a request presents in the world's scheme (the bearer token, or the API key), or
 * undefined when it presents none.
 *
 * @example presentedCredential(world.auth, (h) => headers[h]) // "tk_abc123"
 */
export function presentedCredential(
  auth: World["auth"],
  header: (name: string) => string | undefined,
): string | undefined {
  if (authScheme(auth) === "api_key") {
    const key = header("x-api-key")?.trim();
    return key ? key : undefined;
  }
  return /^Bearer\s+(\S+)$/i.exec((header("authorization") ?? "").trim())?.[1];
}

/**
 * The field of the token endpoint's reply that holds the credential to send.
 *
 * @example credentialField(world.auth) // "access_token" (or "api_key")
 */
export function credentialField(auth: World["auth"]): "access_token" | "api_key" {
  return authScheme(auth) === "api_key" ? "api_key" : "access_token";
}

/**
 * What the credential is called in errors, tickets and the spec.
 *
 * @example credentialNoun(world.auth) // "bearer token" (or "API key")
 */
export function credentialNoun(auth: World["auth"]): string {
  return authScheme(auth) === "api_key" ? "API key" : "bearer token";
}

/**
 * The grant types the token endpoint accepts.
 *
 * @example tokenGrants(world.auth) // ["refresh_token"] in a refresh-rotation world
 */
export function tokenGrants(auth: World["auth"]): string[] {
  if (authScheme(auth) === "refresh_rotation") return ["refresh_token"];
  return auth.refresh ? ["client_credentials", "refresh_token"] : ["client_credentials"];
}

/**
 * The name of the vault variable that holds the client's long-lived credential in this scheme:
 * `refresh_token` for refresh rotation, `client_secret` otherwise (with `client_id` beside it).
 *
 * @example grantSecretName(world.auth) // "client_secret"
 */
export function grantSecretName(auth: World["auth"]): "client_secret" | "refresh_token" {
  return authScheme(auth) === "refresh_rotation" ? "refresh_token" : "client_secret";
}

/**
 * The body of a token request in the world's scheme: client credentials, or (refresh rotation) the
 * newest refresh token; `scope` when asked for.
 *
 * @example tokenRequestBody(world.auth, { clientId: "c", clientSecret: "s", refreshToken: "rt" })
 */
export function tokenRequestBody(
  auth: World["auth"],
  creds: { clientId: string; clientSecret: string; refreshToken: string; scope?: string },
): Record<string, string> {
  const scope: Record<string, string> = creds.scope !== undefined ? { scope: creds.scope } : {};
  if (authScheme(auth) === "refresh_rotation")
    return { grant_type: "refresh_token", refresh_token: creds.refreshToken, ...scope };
  return {
    grant_type: "client_credentials",
    client_id: creds.clientId,
    client_secret: creds.clientSecret,
    ...scope,
  };
}

/**
 * One line naming the scheme, for the datasheet and the spec.
 *
 * @example schemeLabel(world.auth) // "API key header (X-Api-Key), issued for client credentials"
 */
export function schemeLabel(auth: World["auth"]): string {
  switch (authScheme(auth)) {
    case "api_key":
      return `API key header (${API_KEY_HEADER}), issued for client credentials`;
    case "refresh_rotation":
      return "bearer with refresh-token rotation";
    case "signed_requests":
      return "signed requests (HMAC-SHA256 with the client secret, logical nonce)";
    default:
      return `oauth2 client credentials with scopes${auth.refresh ? " + refresh" : ""}`;
  }
}

/**
 * The name of the vault variable that holds the client's old, expired credential.
 *
 * @example staleCredentialName(world.auth) // "access_token" (or "api_key")
 */
export function staleCredentialName(auth: World["auth"]): "access_token" | "api_key" {
  return credentialField(auth);
}

/**
 * The vault a task starts with in this scheme: the expired credential, and what the client gets a
 * fresh one with (client id and secret, or the initial refresh token).
 *
 * @example seedVault(world.auth, "tk_old")
 */
export function seedVault(auth: World["auth"], stale: string): Record<string, string> {
  const grant: Record<string, string> =
    authScheme(auth) === "refresh_rotation"
      ? { refresh_token: auth.initial_refresh_token ?? "" }
      : { client_id: auth.client_id, client_secret: auth.client_secret };
  return { ...grant, [staleCredentialName(auth)]: stale };
}

/**
 * A ticket's sentence on what the client authenticates with, in the world's scheme: the expired
 * credential in the vault and what gets a fresh one.
 *
 * @example vaultSentence(world.auth) // "It was sent with the `access_token` from the vault; the client credentials are there too."
 */
export function vaultSentence(auth: World["auth"]): string {
  const stale = staleCredentialName(auth);
  return authScheme(auth) === "refresh_rotation"
    ? `It was sent with the \`${stale}\` from the vault; the client's \`refresh_token\` is there too.`
    : `It was sent with the \`${stale}\` from the vault; the client credentials are there too.`;
}
