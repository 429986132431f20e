import type { World } from "../bank/world-schema.js";

/**
 * Logical seconds a token with these scopes lives: the world's `ttl_seconds`, shortened by any
 * elevated scope it carries (`scope_ttl_seconds`); undefined when it does not expire by time.
 * The engine and the golden builder both read it, so a golden mints again exactly when the
 * engine would refuse its token.
 *
 * @example tokenLifetime({ ...auth, ttl_seconds: 24, scope_ttl_seconds: { "valves:audit": 3 } }, ["valves:audit"]) // 3
 */
export function tokenLifetime(auth: World["auth"], scopes: readonly string[]): number | undefined {
  let life = auth.ttl_seconds;
  for (const s of scopes) {
    const short = auth.scope_ttl_seconds?.[s];
    if (short !== undefined) life = life === undefined ? short : Math.min(life, short);
  }
  return life;
}
