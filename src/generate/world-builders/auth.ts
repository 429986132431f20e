import type { Rng } from "../../bank/rng.js";
import type { World } from "../../bank/world-schema.js";
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

/**
 * OAuth client credentials with seeded client id and secret, tokens that expire on the logical
 * clock (the call budget is generous, so time is what runs out), refresh, the audit scope only on
 * request and short-lived (`auditTtlSeconds`), and one long-expired token the world recognises.
 *
 * @example worldAuth(FLEET, rng).auth.type // "oauth2_client_credentials"
 */
export function worldAuth(t: WorldTemplate, rng: Rng): BuiltAuth {
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
  return { auth, staleToken, ttlSeconds };
}
