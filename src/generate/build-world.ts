import type { JsonObject } from "../bank/json.js";
import type { Rng } from "../bank/rng.js";
import type { CanaryRef, ExpectedValue } from "../bank/task-schema.js";
import type { Route, Validator, World } from "../bank/world-schema.js";
import type { WorldTemplate } from "./world-template.js";

/** Seeded records per world: enough distinct targets for a 20-position storyline. */
export const ASSET_COUNT = 48;

/** A record as the generator tracks it: literal values or canary references. */
export type SymRecord = Record<string, ExpectedValue>;

/**
 * One listing request of a walk: its URL (`{{name}}` names a value an earlier page of the walk
 * captured), what to capture from it for the next request, and where each wanted asset sits in its
 * body (asset index → dotted path).
 */
export interface ListingPage {
  url: string;
  capture?: Record<string, string>;
  items: Map<number, string>;
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
  /** The listing requests that reach the assets at these indexes, in order (see `listPages`). */
  listPages: (indexes: readonly number[]) => ListingPage[];
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
 * Behaviours a route shows once per trial (the first call is throttled, staged or overtaken), so
 * each storyline position that needs one gets a route of its own, named by these nouns:
 * `throttle` — `GET <asset>/{id}/<noun>` answers 429 + Retry-After on its first call;
 * `conflict` — `GET`/update `<asset>/{id}/<noun>` with a body `version`, another writer wins the first update (409);
 * `partial` — `POST <work>/<noun>` stages its first write (503 partial_write, confirm to commit);
 * `transient` — `POST <work>/<noun>` fails 503 transient_failure without an Idempotency-Key;
 * `registry` — `GET <base>/<noun>/<assets>` needs an undocumented filter (400 names it and its values).
 */
export const BEHAVIOUR_SLOTS = {
  throttle: ["telemetry", "history"],
  conflict: ["settings", "thresholds"],
  partial: ["intake", "bulk"],
  transient: ["relay", "express"],
  registry: ["registry", "catalog"],
} as const;
export type SlotKind = keyof typeof BEHAVIOUR_SLOTS;

const camel = (s: string) => s.replace(/[_-]([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The live validator of the dispatch intake (see `buildWorld`): camelCase names, a crew size, enum levels. */
export function dispatchValidator(t: WorldTemplate): Validator {
  return {
    fields: {
      [camel(t.asset.idField)]: { type: "string", required: true },
      [camel(t.work.levelField.name)]: {
        type: "string",
        required: true,
        enum: [...t.work.levelField.values],
      },
      [camel(t.work.copyField)]: { type: "string", required: true },
      crewSize: { type: "integer", required: true },
    },
    reject_unknown: true,
    status: 422,
    spec_lag: true,
  };
}

/** A seeded id from a pattern: `#` digit, `@` upper-case letter, `x` hex digit. */
export function idFromPattern(pattern: string, rng: Rng): string {
  const letters = "ABCDEFGHJKMNPRSTVWXY";
  let out = "";
  for (const ch of pattern) {
    if (ch === "#") out += String(rng.int(0, 9));
    else if (ch === "@") out += letters[rng.int(0, letters.length - 1)];
    else if (ch === "x") out += "0123456789abcdef"[rng.int(0, 15)];
    else out += ch;
  }
  return out;
}

const canary = (name: string, format: string): CanaryRef => ({ $canary: name, format });

/**
 * Turn a world template into a `World`: seeded assets (ids, names and literals from `rng`,
 * secrets as canaries), the canonical family, a deprecated family serving stale values and a
 * look-alike family for another audience serving partial ones.
 *
 * @example const built = buildWorld(FLEET, Rng.derive("apiflow-1", "world:fleet-telemetry"));
 */
export function buildWorld(t: WorldTemplate, rng: Rng): BuiltWorld {
  const a = t.asset;
  const ids = new Set<string>();
  while (ids.size < ASSET_COUNT) ids.add(idFromPattern(a.idPattern, rng));
  const assets: SymRecord[] = [...ids].map((id, i) => {
    const round = Math.floor(i / a.names.length);
    const record: SymRecord = {
      [a.idField]: id,
      [a.nameField]: `${a.names[i % a.names.length]}${round > 0 ? ` ${round + 1}` : ""}`,
    };
    for (const f of a.canaryFields) record[f.name] = canary(`${id}:${f.name}`, f.format);
    record[a.enumField.name] = rng.pick(a.enumField.values);
    // Never a whole number: "9" would be found in any ticket that numbers its steps.
    const tenths = rng.int(a.numberField.min * 10, a.numberField.max * 10);
    record[a.numberField.name] = (tenths % 10 === 0 ? tenths + 3 : tenths) / 10;
    record[a.linkField.name] = null;
    record.version = 1;
    return record;
  });

  const w = t.work;
  const assetPath = `${t.base}/${a.plural}`;
  const deprecatedPath = `${t.deprecatedBase}/${a.plural}`;
  const lookalikePath = `${t.base}/${t.lookalike.segment}/${a.plural}`;
  const workPath = `${t.base}/${w.plural}`;
  const version = (base: string) => /\/(v\d+)/.exec(base)?.[1] ?? "v3";
  const [first, second] = a.canaryFields;
  if (!first || !second) throw new Error(`world template ${t.id} needs two canary fields`);
  const route = (
    r: Partial<Route> & Pick<Route, "id" | "method" | "path" | "summary" | "resource" | "action">,
  ) =>
    ({
      version: version(r.path),
      status: "canonical",
      auth_required: true,
      scopes: [],
      documented: true,
      view: { omit_fields: [], overrides: {} },
      required_fields: [],
      defaults: {},
      headers: {},
      ...r,
    }) as Route;

  const routes: Route[] = [
    route({
      id: `list_${a.plural}`,
      method: "GET",
      path: assetPath,
      summary: `List ${a.plural} (paged)`,
      resource: a.plural,
      action: "list",
      pagination: { style: t.pagination.style, page_size: t.pagination.pageSize },
    }),
    route({
      id: `get_${a.noun.replace(/\W+/g, "_")}`,
      method: "GET",
      path: `${assetPath}/{${a.idField}}`,
      summary: `Read one ${a.noun} with its live values`,
      resource: a.plural,
      action: "get",
    }),
    route({
      id: `update_${a.noun.replace(/\W+/g, "_")}`,
      method: t.updateMethod,
      path: `${assetPath}/{${a.idField}}`,
      summary: `Update fields of one ${a.noun} (merge)`,
      resource: a.plural,
      action: "update",
    }),
    route({
      id: `get_${a.noun.replace(/\W+/g, "_")}_deprecated`,
      method: "GET",
      path: `${deprecatedPath}/{${a.idField}}`,
      status: "deprecated",
      summary: `Read one ${a.noun} (deprecated: served from a nightly snapshot; use ${assetPath}/{${a.idField}})`,
      resource: a.plural,
      action: "get",
      view: {
        omit_fields: [a.linkField.name],
        overrides: { [first.name]: canary(`stale:${first.name}`, first.format) },
      },
      headers: {
        deprecation: "true",
        sunset: "Wed, 31 Dec 2025 23:59:59 GMT",
        link: `<${assetPath}>; rel="successor-version"`,
      },
    }),
    route({
      id: `list_${a.plural}_deprecated`,
      method: "GET",
      path: deprecatedPath,
      status: "deprecated",
      summary: `List ${a.plural} (deprecated snapshot)`,
      resource: a.plural,
      action: "list",
      view: {
        omit_fields: [second.name],
        overrides: { [first.name]: canary(`stale:${first.name}`, first.format) },
      },
      headers: { deprecation: "true" },
    }),
    route({
      id: `get_${t.lookalike.segment}_${a.noun.replace(/\W+/g, "_")}`,
      method: "GET",
      path: `${lookalikePath}/{${a.idField}}`,
      status: "lookalike",
      summary: `Read one ${a.noun} as shown to ${t.lookalike.audience} (redacted, cached hourly)`,
      resource: a.plural,
      action: "get",
      view: {
        omit_fields: [a.numberField.name],
        overrides: { [second.name]: canary(`lookalike:${second.name}`, second.format) },
      },
    }),
    route({
      id: `create_${w.noun.replace(/\W+/g, "_")}`,
      method: "POST",
      path: workPath,
      summary: `Open a ${w.noun}`,
      resource: w.plural,
      action: "create",
      required_fields: [a.idField, w.levelField.name, w.copyField],
      defaults: { [w.statusField]: w.initialStatus },
    }),
    route({
      id: `list_${w.plural.replace(/\W+/g, "_")}`,
      method: "GET",
      path: workPath,
      summary: `List ${w.noun}s`,
      resource: w.plural,
      action: "list",
    }),
    route({
      id: `get_${w.noun.replace(/\W+/g, "_")}`,
      method: "GET",
      path: `${workPath}/{${w.idField}}`,
      summary: `Read one ${w.noun}`,
      resource: w.plural,
      action: "get",
    }),
    route({
      id: `update_${w.noun.replace(/\W+/g, "_")}`,
      method: t.updateMethod,
      path: `${workPath}/{${w.idField}}`,
      summary: `Update one ${w.noun} (merge), e.g. its ${w.statusField}`,
      resource: w.plural,
      action: "update",
    }),
    route({
      id: `delete_${w.noun.replace(/\W+/g, "_")}`,
      method: "DELETE",
      path: `${workPath}/{${w.idField}}`,
      summary: `Delete one ${w.noun} (a superseded or duplicate record); answers 204`,
      resource: w.plural,
      action: "delete",
    }),
  ];

  // Scope-gated audit view of one asset: the only route a default token cannot call.
  const auditScope = `${a.plural.replace(/[^a-z]+/g, "")}:audit`;
  routes.push(
    route({
      id: `get_${a.noun.replace(/\W+/g, "_")}_audit`,
      method: "GET",
      path: `${assetPath}/{${a.idField}}/audit`,
      summary: `Read one ${a.noun} as the compliance audit sees it (needs scope ${auditScope})`,
      resource: a.plural,
      action: "get",
      scopes: [auditScope],
    }),
  );
  const conflictField = "settings_note";
  const throttleSeconds = 3 + (t.ttl % 3);
  for (const noun of BEHAVIOUR_SLOTS.throttle)
    routes.push(
      route({
        id: `get_${a.noun.replace(/\W+/g, "_")}_${noun}`,
        method: "GET",
        path: `${assetPath}/{${a.idField}}/${noun}`,
        summary: `Read one ${a.noun} with its ${noun} (rate limited)`,
        resource: a.plural,
        action: "get",
        throttle: { on_call: 1, retry_after: throttleSeconds },
      }),
    );
  for (const noun of BEHAVIOUR_SLOTS.conflict) {
    const concurrency = {
      mode: "body" as const,
      concurrent_update_on_call: 1,
      concurrent_changes: { [conflictField]: `${noun} adjusted by the night desk` },
    };
    routes.push(
      route({
        id: `get_${a.noun.replace(/\W+/g, "_")}_${noun}`,
        method: "GET",
        path: `${assetPath}/{${a.idField}}/${noun}`,
        summary: `Read one ${a.noun}'s ${noun}, with its current \`version\``,
        resource: a.plural,
        action: "get",
        concurrency,
      }),
      route({
        id: `update_${a.noun.replace(/\W+/g, "_")}_${noun}`,
        method: t.updateMethod,
        path: `${assetPath}/{${a.idField}}/${noun}`,
        summary: `Change one ${a.noun}'s ${noun}; send the \`version\` you read (optimistic concurrency)`,
        resource: a.plural,
        action: "update",
        concurrency,
      }),
    );
  }
  const createLike = {
    method: "POST" as const,
    resource: w.plural,
    action: "create" as const,
    required_fields: [a.idField, w.levelField.name, w.copyField],
    defaults: { [w.statusField]: w.initialStatus },
  };
  for (const noun of BEHAVIOUR_SLOTS.partial)
    routes.push(
      route({
        ...createLike,
        id: `create_${w.noun.replace(/\W+/g, "_")}_${noun}`,
        path: `${workPath}/${noun}`,
        summary: `Open a ${w.noun} through the ${noun} queue (writes may be staged)`,
        partial_write: { on_call: 1 },
      }),
    );
  for (const noun of BEHAVIOUR_SLOTS.transient)
    routes.push(
      route({
        ...createLike,
        id: `create_${w.noun.replace(/\W+/g, "_")}_${noun}`,
        path: `${workPath}/${noun}`,
        summary: `Open a ${w.noun} through the ${noun} gateway`,
        transient: { status: 503, heal: "idempotency_key" },
      }),
    );
  for (const noun of BEHAVIOUR_SLOTS.registry)
    routes.push(
      route({
        id: `list_${a.plural.replace(/\W+/g, "_")}_${noun}`,
        method: "GET",
        path: `${t.base}/${noun}/${a.plural}`,
        summary: `The ${noun} of ${a.plural} (one category at a time)`,
        resource: a.plural,
        action: "list",
        query_params: [
          {
            name: a.enumField.name,
            documented: false,
            required: true,
            allowed: [...a.enumField.values],
            filter_field: a.enumField.name,
          },
        ],
      }),
    );
  // The dispatch intake's live validator wants camelCase and a crew size; the published spec lags
  // behind it (it still shows the snake_case create contract), so only the 422s tell the truth.
  routes.push(
    route({
      ...createLike,
      id: `create_${w.noun.replace(/\W+/g, "_")}_dispatch`,
      path: `${workPath}/dispatch`,
      summary: `Open a ${w.noun} through the dispatch intake`,
      validator: dispatchValidator(t),
    }),
  );
  // Async creation: 202 + Location, poll the job, confirm it.
  const jobsPath = `${t.base}/jobs`;
  routes.push(
    route({
      ...createLike,
      id: `create_${w.noun.replace(/\W+/g, "_")}_async`,
      path: `${workPath}/async`,
      summary: `Open a ${w.noun} as an async job: answers 202 with a Location to poll; confirm the job when it is awaiting_confirmation`,
      async_job: {
        poll_path: `${jobsPath}/{job_id}`,
        pending_seconds: 2,
        confirm: true,
        result_path: `${workPath}/{id}`,
      },
    }),
    route({
      id: `get_${w.noun.replace(/\W+/g, "_")}_job`,
      method: "GET",
      path: `${jobsPath}/{job_id}`,
      summary: `Poll an async ${w.noun} job`,
      resource: w.plural,
      action: "job_status",
    }),
    route({
      id: `confirm_${w.noun.replace(/\W+/g, "_")}_job`,
      method: "POST",
      path: `${jobsPath}/{job_id}/confirm`,
      summary: `Confirm an async ${w.noun} job that is awaiting_confirmation (writes the record)`,
      resource: w.plural,
      action: "job_confirm",
    }),
  );
  const copied = a.canaryFields.find((f) => f.name === w.copyField);
  const staleToken = `${t.tokenPrefix}${rng.int(100000, 999999)}stale`;
  // Tokens expire on the logical clock; the call budget is generous, so time is what runs out.
  const ttlSeconds = 4 * t.ttl + 4;
  const world: World = {
    id: t.id,
    title: t.title,
    description: t.description,
    base_url: `http://localhost:${t.port}`,
    auth: {
      type: "oauth2_client_credentials",
      token_path: t.tokenPath,
      client_id: `cid_${t.id.split("-")[0]}_${idFromPattern("##", rng)}`,
      client_secret: `csec_${idFromPattern("xxxxxxxx", rng)}`,
      token_prefix: t.tokenPrefix,
      ttl_calls: 4 * t.ttl,
      ttl_seconds: ttlSeconds,
      scopes: [`${a.plural}:read`, `${a.plural}:write`, auditScope],
      default_scopes: [`${a.plural}:read`, `${a.plural}:write`],
      refresh: true,
      stale_tokens: [staleToken],
    },
    ...(t.errors ? { errors: t.errors } : {}),
    resources: {
      [a.plural]: {
        id_field: a.idField,
        id_template: "{canary}",
        fields: {
          [a.idField]: { type: "string", description: `${a.noun} id` },
          [a.nameField]: { type: "string", description: `Display name of the ${a.noun}` },
          ...Object.fromEntries(
            a.canaryFields.map((f) => [f.name, { type: "string", description: f.description }]),
          ),
          [a.enumField.name]: {
            type: "string",
            description: `${a.enumField.description} (one of ${a.enumField.values.join(", ")})`,
          },
          [a.numberField.name]: { type: "number", description: a.numberField.description },
          [a.linkField.name]: { type: "string", description: a.linkField.description },
          version: { type: "integer", description: "Record version (optimistic concurrency)" },
          [conflictField]: { type: "string", description: "Last note left by whoever changed the settings" },
        },
        records: assets as JsonObject[],
      },
      [w.plural]: {
        id_field: w.idField,
        id_template: w.idTemplate,
        fields: {
          [w.idField]: { type: "string", description: `${w.noun} id (minted by the server)` },
          [a.idField]: { type: "string", description: `The ${a.noun} this ${w.noun} is for` },
          [w.levelField.name]: { type: "string", description: `One of ${w.levelField.values.join(", ")}` },
          [w.copyField]: {
            type: "string",
            description: `${copied?.description ?? w.copyField}, as the ${a.noun} reports it now`,
          },
          [w.statusField]: {
            type: "string",
            description: `Set by the server on create; then one of ${w.nextStatuses.join(", ")}`,
          },
          [w.noteField]: { type: "string", description: "Free text for the crew" },
        },
        records: [],
      },
    },
    routes,
  };
  return {
    template: t,
    world,
    assets,
    routes: {
      listAssets: assetPath,
      asset: (id) => `${assetPath}/${id}`,
      deprecatedAsset: (id) => `${deprecatedPath}/${id}`,
      lookalikeAsset: (id) => `${lookalikePath}/${id}`,
      work: workPath,
      workItem: (id) => `${workPath}/${id}`,
      jobs: jobsPath,
    },
    listPages: (indexes) => listPages(t, assetPath, indexes),
    workId: (n) => canary(`${w.plural}:id#${n}`, w.idTemplate.replace("{canary}", "{code}")),
    staleToken,
    ttlSeconds,
    auditScope,
    slots: BEHAVIOUR_SLOTS,
    conflictField,
  };
}

/**
 * See `BuiltWorld.listPages`. Every request is one a careful agent can make from what it has seen:
 * the first page is asked with the spec's documented page size; when a wanted record lies beyond
 * it, the agent reads `total` off that page and asks for the whole collection in one page (the
 * style's size parameter set to the total, within the documented maximum), instead of computing
 * page numbers or offsets nobody showed it, or walking every page (the tool-call budget of a long
 * chain cannot afford a walk per listing question).
 */
function listPages(t: WorldTemplate, path: string, indexes: readonly number[]): ListingPage[] {
  const size = t.pagination.pageSize;
  const style = t.pagination.style;
  const query = (n: string | number) =>
    style === "offset" ? `offset=0&limit=${n}` : style === "cursor" ? `limit=${n}` : `page=1&per_page=${n}`;
  const at = (i: number) => `${t.asset.plural}.${i}`;
  if (indexes.every((i) => i < size))
    return [{ url: `${path}?${query(size)}`, items: new Map(indexes.map((i) => [i, at(i)])) }];
  return [
    { url: `${path}?${query(size)}`, capture: { total: "total" }, items: new Map() },
    { url: `${path}?${query("{{total}}")}`, items: new Map(indexes.map((i) => [i, at(i)])) },
  ];
}
