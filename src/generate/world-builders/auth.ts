import type { Rng } from "../../bank/rng.js";
import type { World } from "../../bank/world-schema.js";
import type { AuthScheme } from "../../world/credential.js";
import type { WorldTemplate } from "../world-template.js";
import { auditScopeOf } from "./behaviour-routes.js";
import { idFromPattern } from "./records.js";

/** A world's auth scheme, with the stale token the vault starts with and the token lifetime. */
export interface BuiltAuth {
  auth: World["auth"];
  staleToken: string;
  ttlSeconds: number;
}

/**
 * Logical seconds an audit-scoped token lives (3 or 4: two or three calls after its mint), so a
 * task that reads several audit views outlives the elevated token it minted.
 */
export const auditTtlSeconds = (t: WorldTemplate) => t.ttl - 2;

/** Every auth scheme a generated world may have, in the order a bank's worlds are dealt them. */
export const AUTH_SCHEMES: readonly AuthScheme[] = ["client_credentials", "api_key", "refresh_rotation"];

/**
 * A seeded client with tokens (or API keys) that expire on the logical clock (the call budget is
 * generous, so time is what runs out), refresh, the audit scope only on request and short-lived
 * (`auditTtlSeconds`), and one long-expired credential the world recognises. `scheme` says how the
 * client gets and presents its credential: OAuth client credentials (bearer), API keys issued for
 * the client credentials (`X-Api-Key`), or bearer tokens renewed only by refresh-token rotation
 * from an initial refresh token the client holds.
 *
 * @example worldAuth(FLEET, rng, "api_key").auth.scheme // "api_key"
 */
export function worldAuth(t: WorldTemplate, rng: Rng, scheme: AuthScheme = "client_credentials"): BuiltAuth {
  const a = t.asset;
  const staleToken = `${t.tokenPrefix}${rng.int(100000, 999999)}stale`;
  const ttlSeconds = 4 * t.ttl + 4;
  const auth: World["auth"] = {
    type: "oauth2_client_credentials",
    token_path: t.tokenPath,
    client_id: `cid_${t.id.split("-")[0]}_${idFromPattern("##", rng)}`,
    client_secret: `csec_${idFromPattern("xxxxxxxx", rng)}`,
    token_prefix: t.tokenPrefix,
    ttl_calls: 4 * t.ttl,
    ttl_seconds: ttlSeconds,
    scopes: [`${a.plural}:read`, `${a.plural}:write`, auditScopeOf(t)],
    scope_ttl_seconds: { [auditScopeOf(t)]: auditTtlSeconds(t) },
    default_scopes: [`${a.plural}:read`, `${a.plural}:write`],
    refresh: true,
    stale_tokens: [staleToken],
  };
  if (scheme !== "client_credentials") auth.scheme = scheme;
  if (scheme === "api_key") auth.token_path = t.tokenPath.replace(/(\/(oauth2?|auth))?\/[^/]+$/, "/api-keys");
  if (scheme === "refresh_rotation") auth.initial_refresh_token = `rt_${idFromPattern("xxxxxxxxxxxx", rng)}`;
  return { auth, staleToken, ttlSeconds };
}
