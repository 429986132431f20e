import { Rng } from "../bank/rng.js";
import type { WorldOptions } from "./build-world.js";
import { ARCHETYPES } from "./world-builders/archetype-routes.js";
import { AUTH_SCHEMES } from "./world-builders/auth.js";
import { VERSIONING_STYLES, type VersioningStyle } from "./world-versioning.js";

/**
 * Deal each of a bank's `count` worlds its structural options from the seed: the auth schemes and
 * the archetypes each cycle over the worlds (so every scheme has ⌊count/3⌋ worlds or one more,
 * every archetype ⌊count/4⌋ or one more) in orders shuffled by the seed, so another seed gives
 * another assignment with the same spread; so do the versioning styles (path, header, query), from
 * a stream of their own.
 *
 * @example worldLayout("apiflow-1", 13)[0] // { auth: "api_key", archetype: "ledger" }
 */
export function worldLayout(seed: string, count: number): WorldOptions[] {
  const rng = Rng.derive(seed, "world-layout");
  const deal = <T>(items: readonly T[]) =>
    rng.shuffle(Array.from({ length: count }, (_, i) => items[i % items.length] as T));
  const auth = deal(AUTH_SCHEMES);
  const archetype = deal(ARCHETYPES);
  // Its own stream: dealing versioning styles leaves the auth and archetype deal as it was.
  const styles = Rng.derive(seed, "world-versioning");
  const versioning = styles.shuffle(
    Array.from(
      { length: count },
      (_, i) => VERSIONING_STYLES[i % VERSIONING_STYLES.length] as VersioningStyle,
    ),
  );
  return auth.map((a, i) => ({
    auth: a,
    archetype: archetype[i] ?? "flat",
    versioning: versioning[i] ?? "path",
  }));
}
