import type { Rng } from "../bank/rng.js";
import type { CanaryRef } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { AuthScheme } from "../world/credential.js";
import { type Archetype, archetypeResources, archetypeRoutes } from "./world-builders/archetype-routes.js";
import { worldAuth } from "./world-builders/auth.js";
import {
  auditScopeOf,
  BEHAVIOUR_SLOTS,
  behaviourRoutes,
  CONFLICT_FIELD,
  type SlotKind,
  signedRoute,
} from "./world-builders/behaviour-routes.js";
import { assetFamilyRoutes, workRoutes } from "./world-builders/family-routes.js";
import { jobRoutes } from "./world-builders/job-routes.js";
import { type ListingPage, listPages } from "./world-builders/listing-pages.js";
import { canary, type SymRecord, seedAssets } from "./world-builders/records.js";
import { worldResources } from "./world-builders/resources.js";
import { worldPaths } from "./world-builders/route-kit.js";
import type { WorldTemplate } from "./world-template.js";
import type { VersioningStyle } from "./world-versioning.js";

export { BEHAVIOUR_SLOTS, dispatchValidator, type SlotKind } from "./world-builders/behaviour-routes.js";
export type { ListingPage } from "./world-builders/listing-pages.js";
export { idFromPattern, MIN_LISTING_PAGES, type SymRecord } from "./world-builders/records.js";

/** What a bank deals each world beyond its template (see `worldLayout`); defaults: client credentials, flat. */
export interface WorldOptions {
  auth?: AuthScheme;
  /** Default `flat`. */
  archetype?: Archetype;
  /**
   * Default `path`. Not part of the built world: `generateBank` applies it to the world and its
   * tasks once the storyline is drawn (`withVersioning`), so the storyline is the same in every style.
   */
  versioning?: VersioningStyle;
}

/** A built world and the handles the subtask templates need. */
export interface BuiltWorld {
  template: WorldTemplate;
  world: World;
  /** The seeded assets as the engine starts them (before any storyline position). */
  assets: SymRecord[];
  routes: {
    listAssets: string;
    asset: (id: string) => string;
    deprecatedAsset: (id: string) => string;
    lookalikeAsset: (id: string) => string;
    work: string;
    workItem: (id: string) => string;
    /** Base of the async job routes (`<jobs>/{job_id}`, `<jobs>/{job_id}/confirm`). */
    jobs: string;
  };
  /**
   * The listing requests that reach the assets at these indexes, in order (see `listPages`);
   * `whole` walks every page (a question about the whole collection).
   */
  listPages: (indexes: readonly number[], whole?: boolean) => ListingPage[];
  /** The minted id of the n-th work record created in a trial (1-based). */
  workId: (n: number) => CanaryRef;
  /** A token the world recognises as long expired (401 token_expired); the vault starts with it. */
  staleToken: string;
  /** Logical seconds a token lives (`expires_in`). */
  ttlSeconds: number;
  /** The scope the audit route needs and tokens do not get by default. */
  auditScope: string;
  /** Route names of behaviours a route shows once per trial (see `BEHAVIOUR_SLOTS`); a position claims one. */
  slots: Record<SlotKind, readonly string[]>;
  /** The asset field another writer changes in a version conflict. */
  conflictField: string;
}

/**
 * Turn a world template into a `World`: seeded assets (ids, names and literals from `rng`,
 * secrets as canaries), the canonical family, a deprecated family serving stale values and a
 * look-alike family for another audience serving partial ones, the behaviour routes, the async job
 * routes, and the auth scheme. Each part has its builder in `world-builders/`; `rng` is drawn in
 * a fixed order (assets, then auth).
 *
 * @example const built = buildWorld(FLEET, Rng.derive("apiflow-1", "world:fleet-telemetry"));
 */
export function buildWorld(t: WorldTemplate, rng: Rng, options: WorldOptions = {}): BuiltWorld {
  const assets = seedAssets(t, rng);
  const paths = worldPaths(t);
  const archetype = options.archetype ?? "flat";
  const routes = [
    ...assetFamilyRoutes(t, paths),
    ...workRoutes(t, paths),
    ...behaviourRoutes(t, paths),
    ...jobRoutes(t, paths),
    ...archetypeRoutes(t, paths, archetype),
    // A client that holds its secret may sign requests: the attestation view takes only those.
    ...(options.auth !== "refresh_rotation" ? [signedRoute(t, paths)] : []),
  ];
  const { auth, staleToken, ttlSeconds } = worldAuth(t, rng, options.auth);
  const world: World = {
    id: t.id,
    title: t.title,
    description: t.description,
    base_url: `http://localhost:${t.port}`,
    auth,
    ...(t.errors ? { errors: t.errors } : {}),
    resources: { ...worldResources(t, assets), ...archetypeResources(t, assets, archetype, rng) },
    routes,
    ...(options.archetype ? { archetype } : {}),
  };
  const w = t.work;
  return {
    template: t,
    world,
    assets,
    routes: {
      listAssets: paths.asset,
      asset: (id) => `${paths.asset}/${id}`,
      deprecatedAsset: (id) => `${paths.deprecated}/${id}`,
      lookalikeAsset: (id) => `${paths.lookalike}/${id}`,
      work: paths.work,
      workItem: (id) => `${paths.work}/${id}`,
      jobs: paths.jobs,
    },
    listPages: (indexes, whole = false) => listPages(t, paths.asset, indexes, whole),
    workId: (n) => canary(`${w.plural}:id#${n}`, w.idTemplate.replace("{canary}", "{code}")),
    staleToken,
    ttlSeconds,
    auditScope: auditScopeOf(t),
    slots: BEHAVIOUR_SLOTS,
    conflictField: CONFLICT_FIELD,
  };
}
