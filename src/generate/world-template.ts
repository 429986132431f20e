import type { ErrorStyle } from "../bank/world-schema.js";

/**
 * A world template: one product domain described compactly enough that `buildWorld` can turn it
 * into a full `World` (resources, seeded records with canaries, canonical routes, decoys, auth).
 * Templates differ in more than nouns: the route base, the update verb, the token endpoint, the id
 * format of seeded records and minted ids, and the decoys' audience all vary.
 *
 * @example
 * const t: WorldTemplate = { id: "fleet-telemetry", ..., asset: { plural: "trucks", idPattern: "TRK-####", ... } };
 */
export interface WorldTemplate {
  id: string;
  title: string;
  description: string;
  port: number;
  /** Canonical route base, e.g. `/v3` or `/api/v3` or `/v3/ops`. */
  base: string;
  /** Base of the deprecated family, e.g. `/v2` or `/api/v1`. */
  deprecatedBase: string;
  /** The look-alike family's extra segment and who it is really for, e.g. `partner` / "resellers". */
  lookalike: { segment: string; audience: string };
  tokenPath: string;
  tokenPrefix: string;
  /** Authenticated calls a token survives. */
  ttl: number;
  /** Verb of the update routes (PATCH or PUT); the other one answers 405. */
  updateMethod: "PATCH" | "PUT";
  /**
   * How the asset listing pages (each style is the engine's; see `PaginationSchema`): the default
   * page size and the cap (a larger `limit`/`per_page` is refused with 400).
   */
  pagination: { style: "cursor" | "page" | "offset" | "link"; pageSize: number; maxPageSize: number };
  /** Seeded assets: enough that the listing takes at least three pages at `maxPageSize`. */
  collectionSize: number;
  /** Who files tickets in this domain, e.g. "the night dispatcher". */
  reporters: readonly string[];
  /** Systems that call the API, e.g. "the route planner". */
  systems: readonly string[];
  asset: AssetTemplate;
  work: WorkTemplate;
  /** Optional. How the world words its errors (shape, code spelling, message phrasing). Default: plain. */
  errors?: ErrorStyle;
}

/** The seeded resource: records the storyline reads and updates. */
export interface AssetTemplate {
  plural: string;
  noun: string;
  idField: string;
  /** `#` a digit, `@` an upper-case letter, `x` a lower-case hex digit; other characters kept. */
  idPattern: string;
  nameField: string;
  names: readonly string[];
  /** Per-record secret-ish values, minted per trial (the usual answer fields). */
  canaryFields: ReadonlyArray<{ name: string; description: string; format: string }>;
  /** A literal categorical field (e.g. a release channel). */
  enumField: { name: string; description: string; values: readonly string[] };
  /** A literal numeric field with one decimal. */
  numberField: { name: string; description: string; min: number; max: number };
  /** Field on the asset that can hold the id of a work record (set by statefulness tasks). */
  linkField: { name: string; description: string };
}

/** The created resource: work records agents open, update and read back. */
export interface WorkTemplate {
  plural: string;
  noun: string;
  idField: string;
  /** Minted ids: `{canary}` is replaced by six seeded characters, e.g. `MO-{canary}`. */
  idTemplate: string;
  /** Priority-like required field and its allowed values. */
  levelField: { name: string; values: readonly string[] };
  /** Asset field whose value the work record must carry (copied from a fresh asset read). */
  copyField: string;
  statusField: string;
  /** Status the server sets on create, then the statuses an update may move it to. */
  initialStatus: string;
  nextStatuses: readonly string[];
  /** A free-text field the ticket dictates. */
  noteField: string;
}
