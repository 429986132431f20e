import type { Route, Validator } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import { createLike, idPart, route, type WorldPaths } from "./route-kit.js";

/**
 * Behaviours a route shows once per trial (the first call is throttled, staged or overtaken), so
 * each storyline position that needs one gets a route of its own, named by these nouns:
 * `throttle` — `GET <asset>/{id}/<noun>` answers 429 + Retry-After on its first call;
 * `conflict` — `GET`/update `<asset>/{id}/<noun>` with a body `version`, another writer wins the first update (409);
 * `partial` — `POST <work>/<noun>` stages its first write (503 partial_write, confirm to commit);
 * `transient` — `POST <work>/<noun>` fails 503 transient_failure without an Idempotency-Key;
 * `registry` — `GET <base>/<noun>/<assets>` needs an undocumented filter (400 names it and its values);
 *   its rows leave the number field out (`registryRoutes`).
 */
export const BEHAVIOUR_SLOTS = {
  throttle: ["telemetry", "history"],
  conflict: ["settings", "thresholds"],
  partial: ["intake", "bulk"],
  transient: ["relay", "express"],
  registry: ["registry", "catalog"],
} as const;
export type SlotKind = keyof typeof BEHAVIOUR_SLOTS;

/** The asset field another writer changes in a version conflict. */
export const CONFLICT_FIELD = "settings_note";

/** The scope the audit route needs and tokens do not get by default, e.g. `valves:audit`. */
export const auditScopeOf = (t: WorldTemplate) => `${t.asset.plural.replace(/[^a-z]+/g, "")}:audit`;

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
  };
}

/**
 * The routes that carry a behaviour: the scope-gated audit view, then one route per slot noun of
 * each once-per-trial behaviour (`BEHAVIOUR_SLOTS`), then the dispatch intake whose live validator
 * (documented in the spec) refuses the old snake_case contract.
 */
export function behaviourRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  return [
    auditRoute(t, p),
    ...throttleRoutes(t, p),
    ...conflictRoutes(t, p),
    ...workVariantRoutes(t, p),
    ...registryRoutes(t),
    // The dispatch intake's live validator wants camelCase and a crew size, and the published spec
    // documents exactly that (issue 16: a body built as the spec documents it is accepted); clients
    // built on the old snake_case create contract get 422s.
    route({
      ...createLike(t),
      id: `create_${idPart(t.work.noun)}_dispatch`,
      path: `${p.work}/dispatch`,
      summary: `Open a ${t.work.noun} through the dispatch intake`,
      validator: dispatchValidator(t),
    }),
  ];
}

/** The path noun and the field of the signed attestation view (`signedRoute`). */
export const SIGNED_VIEW = { noun: "attestation", field: "attestation_code" } as const;

/**
 * The signed attestation view of one asset (`GET <asset>/{id}/attestation`): it takes signed
 * requests (the client id, a nonce and an HMAC-SHA256 with the client secret) in place of a token,
 * and carries an attestation code no other route serves (a per-trial canary). Worlds whose client
 * holds no secret (refresh-token rotation) have none.
 *
 * @example signedRoute(FLEET, worldPaths(FLEET)).signed // true
 */
export function signedRoute(t: WorldTemplate, p: WorldPaths): Route {
  const a = t.asset;
  return route({
    id: `get_${idPart(a.noun)}_${SIGNED_VIEW.noun}`,
    method: "GET",
    path: `${p.asset}/{${a.idField}}/${SIGNED_VIEW.noun}`,
    summary: `Read one ${a.noun} with its signed attestation (signed requests only: no token)`,
    resource: a.plural,
    action: "get",
    signed: true,
    view: {
      omit_fields: [],
      overrides: {
        [SIGNED_VIEW.field]: { $canary: `${a.plural}:${SIGNED_VIEW.field}`, format: "AT-{code}" },
      },
    },
  });
}

/** Scope-gated audit view of one asset: the only route a default token cannot call. */
function auditRoute(t: WorldTemplate, p: WorldPaths): Route {
  const a = t.asset;
  const auditScope = auditScopeOf(t);
  return route({
    id: `get_${idPart(a.noun)}_audit`,
    method: "GET",
    path: `${p.asset}/{${a.idField}}/audit`,
    summary: `Read one ${a.noun} as the compliance audit sees it (needs scope ${auditScope})`,
    resource: a.plural,
    action: "get",
    scopes: [auditScope],
  });
}

function throttleRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const a = t.asset;
  const throttleSeconds = 3 + (t.ttl % 3);
  return BEHAVIOUR_SLOTS.throttle.map((noun) =>
    route({
      id: `get_${idPart(a.noun)}_${noun}`,
      method: "GET",
      path: `${p.asset}/{${a.idField}}/${noun}`,
      summary: `Read one ${a.noun} with its ${noun} (rate limited)`,
      resource: a.plural,
      action: "get",
      throttle: { on_call: 1, retry_after: throttleSeconds },
    }),
  );
}

function conflictRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const a = t.asset;
  return BEHAVIOUR_SLOTS.conflict.flatMap((noun) => {
    const concurrency = {
      mode: "body" as const,
      concurrent_update_on_call: 1,
      concurrent_changes: { [CONFLICT_FIELD]: `${noun} adjusted by the night desk` },
    };
    return [
      route({
        id: `get_${idPart(a.noun)}_${noun}`,
        method: "GET",
        path: `${p.asset}/{${a.idField}}/${noun}`,
        summary: `Read one ${a.noun}'s ${noun}, with its current \`version\``,
        resource: a.plural,
        action: "get",
        concurrency,
      }),
      route({
        id: `update_${idPart(a.noun)}_${noun}`,
        method: t.updateMethod,
        path: `${p.asset}/{${a.idField}}/${noun}`,
        summary: `Change one ${a.noun}'s ${noun}; send the \`version\` you read (optimistic concurrency)`,
        resource: a.plural,
        action: "update",
        concurrency,
      }),
    ];
  });
}

/** The create routes whose first write is staged (partial) or fails without an idempotency key (transient). */
function workVariantRoutes(t: WorldTemplate, p: WorldPaths): Route[] {
  const w = t.work;
  const partial = BEHAVIOUR_SLOTS.partial.map((noun) =>
    route({
      ...createLike(t),
      id: `create_${idPart(w.noun)}_${noun}`,
      path: `${p.work}/${noun}`,
      summary: `Open a ${w.noun} through the ${noun} queue (writes may be staged)`,
      partial_write: { on_call: 1 },
    }),
  );
  const transient = BEHAVIOUR_SLOTS.transient.map((noun) =>
    route({
      ...createLike(t),
      id: `create_${idPart(w.noun)}_${noun}`,
      path: `${p.work}/${noun}`,
      summary: `Open a ${w.noun} through the ${noun} gateway`,
      transient: { status: 503, heal: "idempotency_key" },
    }),
  );
  return [...partial, ...transient];
}

/**
 * The registry answers one category in one call: its rows leave the number field out, so a scan
 * ranking a category by it ("the highest <number field> among <category>") still pages the listing
 * (or reads each record), and the registry never answers the ranking in one call (issue 16).
 */
function registryRoutes(t: WorldTemplate): Route[] {
  const a = t.asset;
  return BEHAVIOUR_SLOTS.registry.map((noun) =>
    route({
      id: `list_${idPart(a.plural)}_${noun}`,
      method: "GET",
      path: `${t.base}/${noun}/${a.plural}`,
      summary: `The ${noun} of ${a.plural} (one category at a time, without ${a.numberField.name})`,
      resource: a.plural,
      action: "list",
      view: { omit_fields: [a.numberField.name], overrides: {} },
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
}
