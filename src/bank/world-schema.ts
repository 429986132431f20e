import { z } from "zod";
import { JsonValueSchema } from "./json.js";
import { CanaryRefSchema } from "./task-schema.js";
import { VersioningSchema } from "./versioning-schema.js";

export { type Versioning, VersioningSchema } from "./versioning-schema.js";

/**
 * A world: one synthetic API product declared as data. The engine in `src/world/` serves any
 * value of this schema; no world carries code.
 *
 * Record values may hold a canary reference `{"$canary": "name"}`: the engine replaces it, per
 * trial, with a value minted from the trial seed (see `src/world/canary.ts`).
 *
 * Behaviours are declared per route as optional blocks (`throttle`, `pagination`, `validator`, …).
 * Every block added after the walking skeleton is `.optional()` (its default is applied by the
 * engine and stated in its doc comment), so a world written for the skeleton stays valid and its
 * `World` literal still type-checks.
 *
 * ## The logical clock
 * Each trial has a clock in logical seconds (`TrialWorld.clock`), starting at 0. Every request the
 * world serves advances it by 1 *before* it is handled; a request header `x-apiflow-wait: N`
 * (0 ≤ N ≤ 3600) advances it by N more first — this is how an agent honours `Retry-After` without
 * sleeping (the 429 hint says so). The wall clock is never read. Token expiry by time, throttle
 * windows and job progress all read this clock.
 */
export const HttpMethodSchema = z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]);
export type HttpMethod = z.infer<typeof HttpMethodSchema>;

export const FieldTypeSchema = z.enum(["string", "number", "integer", "boolean", "array", "object"]);
export type FieldType = z.infer<typeof FieldTypeSchema>;

export const ResourceFieldSchema = z.strictObject({
  type: FieldTypeSchema,
  description: z.string().default(""),
});

export const ResourceSchema = z.strictObject({
  /** Field that identifies a record in paths (`/v3/vessels/{vessel_id}`). */
  id_field: z.string().min(1),
  fields: z.record(z.string(), ResourceFieldSchema),
  records: z.array(z.record(z.string(), JsonValueSchema)),
  /** Template for ids minted on create: `{seq}` is a per-trial counter, `{canary}` a per-trial token. */
  id_template: z.string().default("{canary}"),
});
export type Resource = z.infer<typeof ResourceSchema>;

/**
 * What a route does. `list`/`get`/`create`/`update` act on the route's resource. Added:
 * - `delete`: removes the record named by the id path parameter; answers 204 with no body.
 * - `job_status`: `GET /v3/jobs/{job_id}` — reads an async job opened by a `create` route with
 *   `async_job` (see `AsyncJobSchema`); `resource` names the resource those jobs create.
 *   The path parameter must be called `job_id`.
 * - `job_confirm`: `POST /v3/jobs/{job_id}/confirm` — confirms a job that is
 *   `awaiting_confirmation`; the record is written then.
 */
export const RouteActionSchema = z.enum([
  "list",
  "get",
  "create",
  "update",
  "delete",
  "job_status",
  "job_confirm",
]);
export type RouteAction = z.infer<typeof RouteActionSchema>;

/**
 * A view rewrites what a route shows of a record: decoys serve stale or partial data, look-alike
 * families serve another audience's subset.
 *
 * @example {"omit_fields": ["firmware_channel"], "overrides": {"berth": {"$canary": "stale", "format": "BX-{code}"}}, "where": {"audience": "partner"}}
 */
export const RecordViewSchema = z.strictObject({
  omit_fields: z.array(z.string()).default([]),
  overrides: z.record(z.string(), JsonValueSchema).default({}),
  /** Optional. `list` shows, and `get` finds, only records whose fields equal these values. Default: all records. */
  where: z.record(z.string(), JsonValueSchema).optional(),
});

/**
 * A query parameter the route understands beyond pagination. Undocumented ones (`documented:
 * false`) are left out of the spec; an agent learns them from a 400 (`required`, `allowed`) or from
 * the `notice` field a response carries while the parameter is absent.
 *
 * Semantics, all optional: `required` → 400 `missing_query_parameter` naming it (and `allowed`);
 * `allowed` → 400 `invalid_query_parameter` listing the allowed values; `filter_field` → `list`
 * keeps records whose field, as a string, equals the value; `reveals_fields` → fields omitted by
 * the route's view are shown when the parameter is present and not `false`; `unhides` → records
 * matching it are hidden from `list`/`get` unless the parameter is present and not `false`;
 * `notice` → while the parameter is absent, `list` bodies (and `get` bodies) carry `"notice": text`.
 *
 * @example {"name": "include_archived", "documented": false, "allowed": ["true", "false"], "unhides": {"archived": true}, "notice": "archived vessels are hidden; pass include_archived=true to list them"}
 * @example {"name": "fleet", "documented": false, "required": true, "allowed": ["north", "south"], "filter_field": "fleet"}
 */
export const QueryParamSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  /** Default true. */
  documented: z.boolean().optional(),
  /** Default false. */
  required: z.boolean().optional(),
  allowed: z.array(z.string()).optional(),
  filter_field: z.string().optional(),
  reveals_fields: z.array(z.string()).optional(),
  unhides: z.record(z.string(), JsonValueSchema).optional(),
  notice: z.string().optional(),
  /**
   * Optional, with `filter_field` (default `exact`): `contains` keeps records whose field contains
   * the value, ignoring case (a text search: "Atlas" also finds "Atlas 2").
   */
  match: z.enum(["exact", "contains"]).optional(),
});
export type QueryParam = z.infer<typeof QueryParamSchema>;

/**
 * One body field of the live validator (schema repair). `required` default false. `enum` lists the
 * allowed values; `type` is checked strictly (`"5"` is not an integer).
 *
 * @example {"type": "integer", "required": true}
 * @example {"type": "string", "enum": ["low", "normal", "high"]}
 */
export const BodyFieldSchema = z.strictObject({
  type: FieldTypeSchema,
  required: z.boolean().optional(),
  enum: z.array(JsonValueSchema).optional(),
  description: z.string().optional(),
});
export type BodyField = z.infer<typeof BodyFieldSchema>;

/**
 * The live validator of a `create`/`update` body (schema repair). Every problem is reported at
 * once, each naming its field, in `errors`:
 *
 * - missing required field → `{"field": "durationMin", "code": "missing"}`
 * - wrong case / spelling variant: an unknown field whose name, lower-cased without `_`/`-`, equals a
 *   declared field → `{"field": "duration_min", "code": "wrong_name", "expected": "durationMin"}`
 *   (reported even when `reject_unknown` is false, because the declared field is then missing)
 * - other unknown field (only when `reject_unknown`, default false) → `{"field": "x", "code": "unknown_field"}`
 * - enum → `{"field": "priority", "code": "invalid_enum", "allowed": ["low", "normal", "high"], "got": "urgent"}`
 * - type → `{"field": "durationMin", "code": "invalid_type", "expected": "integer", "got": "string"}`
 *
 * The answer is `status` (default 422) with body
 * `{"error": "validation_failed", "message": "durationMin: missing; duration_min: unknown field, did you mean durationMin?", "errors": [...], "missing": ["durationMin"]}`.
 * On `update` the `required` flags are ignored (a patch may be partial).
 *
 * `spec_lag` (default false): the published spec renders the request body from the resource's
 * `fields` and the route's `required_fields` (the old contract) instead of this validator, so only
 * the live errors tell the truth.
 *
 * @example {"fields": {"vesselId": {"type": "string", "required": true}, "durationMin": {"type": "integer", "required": true}, "priority": {"type": "string", "enum": ["low", "normal", "high"]}}, "reject_unknown": true, "spec_lag": true}
 */
export const ValidatorSchema = z.strictObject({
  fields: z.record(z.string(), BodyFieldSchema),
  reject_unknown: z.boolean().optional(),
  status: z.union([z.literal(400), z.literal(422)]).optional(),
  spec_lag: z.boolean().optional(),
});
export type Validator = z.infer<typeof ValidatorSchema>;

/**
 * Pagination of a `list` route. Page size defaults to `page_size` (default 10); the client may ask
 * for up to `max_page_size` (default 100; more → 400 `invalid_query_parameter`). Every style
 * reports `total`. Styles:
 * - `cursor`: `?cursor=&limit=` → body `{<resource>: [...], total, next_cursor: "c_…" | null}`;
 *   a cursor not minted by this route → 400 `invalid_cursor`.
 * - `page`: `?page=&per_page=` (1-based) → body `{<resource>: [...], total, page, per_page, total_pages, next_page}`
 *   (`next_page` null on the last page).
 * - `offset`: `?offset=&limit=` → body `{<resource>: [...], total, offset, limit, next_offset}` (null on the last page).
 * - `link`: `?page=&per_page=` → body `{<resource>: [...], total}` and headers
 *   `link: </v3/x?page=2&per_page=10>; rel="next", </v3/x?page=5&per_page=10>; rel="last"` (RFC 8288,
 *   also `first`/`prev`) and `x-total-count`.
 * A page past the end is an empty list, not an error.
 *
 * @example {"style": "cursor", "page_size": 5}
 */
export const PaginationSchema = z.strictObject({
  style: z.enum(["cursor", "page", "offset", "link"]),
  page_size: z.number().int().positive().optional(),
  max_page_size: z.number().int().positive().optional(),
});
export type Pagination = z.infer<typeof PaginationSchema>;

/**
 * A `create` that runs as an async job (multistep). The create answers 202 with header
 * `location: /v3/jobs/job_7Q2K9D` and body `{"job_id": "job_7Q2K9D", "status": "pending", "poll_url": "/v3/jobs/job_7Q2K9D"}`.
 * `poll_path` is the job_status route's path (`{job_id}` is filled in). Polling (the `job_status`
 * route) answers 200 `{"job_id", "status": "pending", "retry_after": s}` with header `retry-after`
 * while the logical clock is at most `pending_seconds` (default 2) past the create — polled back to back, the job answers `pending` to the first `pending_seconds` polls — then:
 * - without `confirm` (default false): `{"status": "done", "result": <record>, "result_url": "/v3/…/ID"}` — the record is written;
 * - with `confirm`: `{"status": "awaiting_confirmation", "confirm_url": "/v3/jobs/job_…/confirm", "preview": <record>}`;
 *   POST to the job_confirm route writes the record and answers 200 `{"status": "done", "result": …}`;
 *   confirming a pending job → 409 `job_not_ready`; confirming twice → 409 `job_already_confirmed`.
 * `result_path` (e.g. `/v3/maintenance-orders/{id}`) builds `result_url`; default: no `result_url`.
 *
 * @example {"poll_path": "/v3/jobs/{job_id}", "pending_seconds": 2, "confirm": true, "result_path": "/v3/maintenance-orders/{id}"}
 */
export const AsyncJobSchema = z.strictObject({
  poll_path: z.string().startsWith("/"),
  pending_seconds: z.number().int().nonnegative().optional(),
  confirm: z.boolean().optional(),
  result_path: z.string().startsWith("/").optional(),
});
export type AsyncJob = z.infer<typeof AsyncJobSchema>;

/**
 * 429 rate limiting (error recovery). The route's `on_call`-th call (default 1) in the trial opens a
 * throttle window of `retry_after` logical seconds (default 5); every call of this route inside the
 * window answers 429 with header `retry-after: <seconds left>` and body
 * `{"error": "rate_limited", "message": "…", "retry_after": 4, "hint": "wait 4 s before retrying: this world's clock is logical, so send the retry with header x-apiflow-wait: 4 (or make 4 calls to other routes first)"}`.
 * After the window the route serves normally.
 *
 * @example {"on_call": 1, "retry_after": 5}
 */
export const ThrottleSchema = z.strictObject({
  on_call: z.number().int().positive().optional(),
  retry_after: z.number().int().positive().optional(),
});

/**
 * 503 partial write (error recovery) on a `create`/`update`: the route's `on_call`-th call (default
 * 1) stages the write without committing it and answers 503 with
 * `{"error": "partial_write", "message": "…staged but not committed…", "staged_id": "MO-…", "hint": "resend the same request with \"confirm\": true in the body to commit the staged write"}`.
 * A resend with `"confirm": true` commits the staged write (the `confirm` key is not stored) and
 * answers as the write would have (201/200). A resend without it answers 409
 * `staged_write_pending` with the same hint. Nothing is visible to reads until committed.
 *
 * @example {"on_call": 1}
 */
export const PartialWriteSchema = z.strictObject({
  on_call: z.number().int().positive().optional(),
});

/**
 * Optimistic concurrency (409 conflicts) on `get`/`update`. Records carry an integer
 * `version_field` (default `"version"`, 1 when absent); `get` answers with header `etag: "<version>"`
 * and `update` must send it, as header `if-match` (`mode: "etag"`, default) or as the body field
 * (`mode: "body"`). Missing → 428 `precondition_required`; stale → 409
 * `{"error": "version_conflict", "message": "…", "hint": "re-read GET … and resend with if-match: <its etag>"}`
 * (the current version is not given: the agent must re-read). A successful update bumps the version.
 * `concurrent_update_on_call` (optional): on that `update` call, another writer changes the record
 * first (applies `concurrent_changes` and bumps the version), so the agent's version is stale.
 *
 * @example {"mode": "etag", "concurrent_update_on_call": 1, "concurrent_changes": {"priority": "high"}}
 */
export const ConcurrencySchema = z.strictObject({
  version_field: z.string().optional(),
  mode: z.enum(["etag", "body"]).optional(),
  concurrent_update_on_call: z.number().int().positive().optional(),
  concurrent_changes: z.record(z.string(), JsonValueSchema).optional(),
});
export type Concurrency = z.infer<typeof ConcurrencySchema>;

/**
 * Transient 5xx (error recovery). With `heal: "idempotency_key"` (default) every call without an
 * `idempotency-key` header answers `status` (default 503) with
 * `{"error": "transient_failure", "message": "…", "retryable": true, "hint": "retry with an Idempotency-Key header (any unique string) so the retry cannot be applied twice"}`;
 * calls with one are served. With `heal: "retry"` the first `fail_calls` (default 1) calls fail and
 * later ones are served. A route with `transient` also honours idempotency keys (see `idempotency`).
 *
 * @example {"status": 503, "heal": "idempotency_key"}
 */
export const TransientSchema = z.strictObject({
  status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)]).optional(),
  heal: z.enum(["idempotency_key", "retry"]).optional(),
  fail_calls: z.number().int().positive().optional(),
});

/**
 * A workflow of states on an `update` route: the record's `field` moves only along `transitions`
 * (state → the states it may move to). An update that would move it elsewhere answers 409
 * `{"error": "invalid_transition", "message": "…is submitted and cannot move to approved…", "from": "submitted", "to": "approved", "allowed": ["in_review", "withdrawn"], "hint": "…"}`
 * (a hard task's error keeps `from` and `to` and loses the fix: the spec's summary of the route
 * documents the transitions). An update that leaves the field as it is, or does not send it, is
 * not a transition.
 *
 * `on_enter` (optional): what the world does when a record enters a state: each field in `mint`
 * gets a value minted for this trial in its format (`{code}` filled in), `after_seconds` logical
 * seconds after the write (default 0: with the write, in its reply). A later value is not in the
 * write's reply: only a read once the clock has passed it shows it (records that change between
 * reads).
 *
 * @example {"field": "state", "transitions": {"draft": ["submitted"], "submitted": ["approved"]}, "on_enter": {"submitted": {"after_seconds": 1, "mint": {"review_ref": "RV-{code}"}}}}
 */
export const WorkflowSchema = z.strictObject({
  field: z.string().min(1),
  transitions: z.record(z.string(), z.array(z.string())),
  on_enter: z
    .record(
      z.string(),
      z.strictObject({
        after_seconds: z.number().int().nonnegative().optional(),
        mint: z.record(z.string(), z.string().includes("{code}")),
      }),
    )
    .optional(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

export const RouteSchema = z.strictObject({
  id: z.string().min(1),
  method: HttpMethodSchema,
  /** Path with `{param}` segments, e.g. `/v3/vessels/{vessel_id}`. */
  path: z.string().startsWith("/"),
  version: z.string().regex(/^v\d+$/),
  /** `canonical` routes are the right ones; `deprecated` and `lookalike` ones are decoys. */
  status: z.enum(["canonical", "deprecated", "lookalike"]),
  summary: z.string(),
  resource: z.string(),
  action: RouteActionSchema,
  auth_required: z.boolean().default(true),
  /** Scopes the bearer token must carry; otherwise 403 `insufficient_scope` naming the first missing one. */
  scopes: z.array(z.string()).default([]),
  /**
   * Optional (default false): the route takes signed requests in place of a token, whatever the
   * world's scheme: `X-Key-Id` (the client_id), `X-Nonce` and `X-Signature`, an HMAC-SHA256 keyed
   * with the client secret (see `src/world/request-signature.ts`); a missing or wrong one answers 401.
   */
  signed: z.boolean().optional(),
  documented: z.boolean().default(true),
  view: RecordViewSchema.default({ omit_fields: [], overrides: {} }),
  /** For `create`: body fields the validator requires (truthful 422 naming the missing one). */
  required_fields: z.array(z.string()).default([]),
  /** For `create`: values set on the new record regardless of the body. */
  defaults: z.record(z.string(), JsonValueSchema).default({}),
  /** Extra response headers, e.g. `Deprecation` and `Sunset` on decoys. */
  headers: z.record(z.string(), z.string()).default({}),
  /** Optional. Query parameters beyond pagination, documented or not. Default: none (unknown ones are ignored). */
  query_params: z.array(QueryParamSchema).optional(),
  /** Optional. The live body validator (schema repair); when set it replaces `required_fields`. */
  validator: ValidatorSchema.optional(),
  /**
   * Optional, `list` only: the order records are listed in (before paging), by a field's value;
   * equal values keep the records' own order. Default: the records' own order.
   *
   * @example {"field": "draft_m", "order": "desc"}
   */
  sort: z.strictObject({ field: z.string(), order: z.enum(["asc", "desc"]) }).optional(),
  /** Optional, `list` only. Default: the whole list in one body `{<resource>: [...], total}`. */
  pagination: PaginationSchema.optional(),
  /** Optional, `create` only: run as an async job (202 + Location → poll → confirm). */
  async_job: AsyncJobSchema.optional(),
  /** Optional. 429 + Retry-After on the logical clock. */
  throttle: ThrottleSchema.optional(),
  /** Optional, `create`/`update`: 503 partial write that needs a `{"confirm": true}` resend. */
  partial_write: PartialWriteSchema.optional(),
  /** Optional, `get`/`update`: etag/version concurrency with 409 on a stale version. */
  concurrency: ConcurrencySchema.optional(),
  /** Optional: transient 5xx healed by an `idempotency-key` header (or by retrying). */
  transient: TransientSchema.optional(),
  /**
   * Optional, `create`/`update` (default false): honour `idempotency-key`. The first response to a
   * key is stored; the same key with the same body replays it (header `idempotent-replayed: true`);
   * the same key with another body → 422 `idempotency_key_reused`.
   */
  idempotency: z.boolean().optional(),
  /**
   * Optional, `list` without pagination: a value derived from the listed records, added to the
   * body as `as` — the sum of the numeric `field` (an append-only ledger's balance).
   *
   * @example {"field": "amount", "as": "balance"}
   */
  aggregate: z.strictObject({ field: z.string(), as: z.string() }).optional(),
  /** Optional, `update` only: the record's states and the transitions allowed between them. */
  workflow: WorkflowSchema.optional(),
});
export type Route = z.infer<typeof RouteSchema>;

/**
 * OAuth 2.0 client credentials at `POST token_path` (JSON or form body).
 *
 * Expiry: by call count (`ttl_calls`: authenticated calls a token survives) and/or by the logical
 * clock (`ttl_seconds`); either one answers 401 `{"error": "token_expired", "message": "…", "hint": "mint a fresh token with POST /v3/oauth/token …"}`
 * with header `www-authenticate: Bearer error="invalid_token"`. `expires_in` in the token response
 * is `ttl_seconds` when set, else `ttl_calls`.
 *
 * Scopes: a token request may send `scope` ("a b"); it is granted when every scope is in `scopes`,
 * otherwise 400 `invalid_scope` naming the unknown one. Without `scope` the token gets
 * `default_scopes` (default: all `scopes`). A route needing a scope the token lacks answers 403
 * `{"error": "insufficient_scope", "message": "the token lacks scope orders:write", "required_scope": "orders:write", "hint": "mint a token with scope=orders:write …"}`.
 *
 * Refresh (`refresh`, default false): token responses carry `refresh_token`; `grant_type=refresh_token`
 * with it mints a new access token (same scopes) and a new refresh token; an old, used or unknown one
 * answers 400 `invalid_grant`.
 *
 * Stale tokens (`stale_tokens`, default none): tokens this world recognises as long expired (seed
 * them into the workspace's vault to simulate a stale credential); they answer 401 `token_expired`.
 * Each is a string or a canary reference minted per trial.
 *
 * @example {"type": "oauth2_client_credentials", "token_path": "/v3/oauth/token", "client_id": "cid", "client_secret": "cs", "ttl_seconds": 30, "scopes": ["orders:read", "orders:write"], "default_scopes": ["orders:read"], "refresh": true, "stale_tokens": [{"$canary": "stale_token", "format": "tk_hb_{code}"}]}
 */
export const OAuthClientCredentialsSchema = z.strictObject({
  type: z.literal("oauth2_client_credentials"),
  token_path: z.string().startsWith("/"),
  client_id: z.string(),
  client_secret: z.string(),
  /** Tokens are minted as `<prefix><canary>`; the prefix makes them recognisable in a transcript. */
  token_prefix: z.string().default("tk_"),
  /** Authenticated calls a token survives before 401 `token_expired` (use a large value for clock-only expiry). */
  ttl_calls: z.number().int().positive(),
  /** Optional (no time expiry when absent): logical seconds a token lives. */
  ttl_seconds: z.number().int().positive().optional(),
  scopes: z.array(z.string()).default([]),
  /** Optional. Scopes granted when the token request names none. Default: all `scopes`. */
  default_scopes: z.array(z.string()).optional(),
  /**
   * Optional. Elevated scopes are short-lived: a token carrying one of these scopes lives at most
   * this many logical seconds (each request is one; its `expires_in` says so), e.g. `{"valves:audit": 3}`.
   */
  scope_ttl_seconds: z.record(z.string(), z.number().int().positive()).optional(),
  /** Optional (default false): issue refresh tokens and accept `grant_type=refresh_token`. */
  refresh: z.boolean().optional(),
  /** Optional. Tokens recognised as expired. */
  stale_tokens: z.array(z.union([z.string(), CanaryRefSchema])).optional(),
  /**
   * Optional (default `client_credentials`): how a client gets and presents its credential.
   * - `client_credentials`: `grant_type=client_credentials` (and `refresh_token` when `refresh`) at
   *   `token_path`; calls send `Authorization: Bearer <access_token>`.
   * - `api_key`: `token_path` issues short-lived API keys for the client credentials (same body,
   *   `scope` included); the reply carries `api_key`; calls send `X-Api-Key: <api_key>`.
   * - `refresh_rotation`: the client holds a refresh token (`initial_refresh_token`), not a secret
   *   it may mint with: only `grant_type=refresh_token` (optionally with `scope`) is accepted; a
   *   refresh token is single use and each reply carries the next one; calls send a bearer token.
   * - `signed_requests`: no token is issued; every call is signed with the client secret (HMAC-SHA256
   *   over method, canonical path and query, a logical nonce and the body's hash) and sends
   *   `X-Key-Id: <client_id>`, `X-Nonce: <n>` (above every nonce the key sent before) and
   *   `X-Signature` (see `src/world/request-signature.ts`); a wrong signature answers 401.
   */
  scheme: z.enum(["client_credentials", "api_key", "refresh_rotation", "signed_requests"]).optional(),
  /** `refresh_rotation` only: the refresh token the client starts with (live at the start of a session). */
  initial_refresh_token: z.string().optional(),
});
export type OAuthClientCredentials = z.infer<typeof OAuthClientCredentialsSchema>;

/**
 * The protocol a world speaks. `rest` (default): its routes over HTTP with `/openapi.json`.
 * `graphql`: the same routes as one GraphQL schema at `POST /graphql` (see `src/world/graphql-schema.ts`).
 * `mcp`: the same routes as MCP tools at `POST /mcp` (see `src/world/mcp-world.ts`). Behaviours,
 * records and the event log are the same in every protocol, so graders do not change.
 */
export const WorldProtocolSchema = z.enum(["rest", "graphql", "mcp"]);
export type WorldProtocol = z.infer<typeof WorldProtocolSchema>;

/**
 * How a world words its errors. The route logic always produces a semantic error (a stable code, a
 * truthful message, and the fields an agent acts on: `hint`, `field`, `allowed`, `retry_after`,
 * `staged_id`, `errors`, …); this block only decides how that error looks on the wire, so every
 * hint stays in the body whatever the style. Shapes (`extra` = those agent-facing fields):
 * - `plain` (default): `{"error": code, "message": message, ...extra}`;
 * - `problem` (RFC 9457, `content-type: application/problem+json`):
 *   `{"type": "urn:problem:<code-kebab>", "title": "Validation failed", "status": 422, "detail": message, ...extra}`;
 * - `errors`: `{"errors": [{"code": code, "message": message, ...extra}]}`;
 * - `fault`: `{"fault": {"code": code, "reason": message, ...extra}}`.
 *
 * `code_case` (default `snake`) spells the code (`validation_failed`, `VALIDATION_FAILED`,
 * `validation-failed`, `ValidationFailed`); `message_template` (default `{message}`) phrases the
 * message, with `{message}`, `{code}` (as spelled) and `{status}` filled in.
 *
 * @example {"shape": "fault", "code_case": "upper", "message_template": "Request refused: {message}."}
 */
export const ErrorStyleSchema = z.strictObject({
  shape: z.enum(["plain", "problem", "errors", "fault"]),
  code_case: z.enum(["snake", "upper", "kebab", "pascal"]).optional(),
  message_template: z.string().includes("{message}").optional(),
});
export type ErrorStyle = z.infer<typeof ErrorStyleSchema>;

export const WorldSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  /** Optional. Default `rest`. */
  protocol: WorldProtocolSchema.optional(),
  title: z.string(),
  description: z.string(),
  /** The base URL tickets and the spec mention; in-process calls ignore the host. */
  base_url: z.string().url(),
  auth: OAuthClientCredentialsSchema,
  resources: z.record(z.string(), ResourceSchema),
  routes: z.array(RouteSchema).min(1),
  /** Optional. How errors look on the wire (see `ErrorStyleSchema`). Default: `plain`. */
  errors: ErrorStyleSchema.optional(),
  /**
   * Optional, descriptive: the shape of the world's resource graph beyond the shared core —
   * `flat` collections only; `nested` sub-resources (`/parents/{id}/children`); an append-only
   * `ledger` with a derived balance; a `search` API of documented query filters; records moving
   * through a `workflow` of states.
   */
  archetype: z.enum(["flat", "nested", "ledger", "search", "workflow"]).optional(),
  /** Optional. How clients name the API version (see `VersioningSchema`). Default: in the path. */
  versioning: VersioningSchema.optional(),
});
export type World = z.infer<typeof WorldSchema>;
