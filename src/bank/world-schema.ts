import { z } from "zod";
import { JsonValueSchema } from "./json.js";

/**
 * A world: one synthetic API product declared as data. The engine in `src/world/` serves any
 * value of this schema; no world carries code.
 *
 * Record values may hold a canary reference `{"$canary": "name"}`: the engine replaces it, per
 * trial, with a value minted from the trial seed (see `src/world/canary.ts`).
 */
export const HttpMethodSchema = z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]);
export type HttpMethod = z.infer<typeof HttpMethodSchema>;

export const FieldTypeSchema = z.enum(["string", "number", "integer", "boolean", "array", "object"]);

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

export const RouteActionSchema = z.enum(["list", "get", "create", "update"]);

/** A view rewrites what a route shows of a record: decoys serve stale or partial data. */
export const RecordViewSchema = z.strictObject({
  omit_fields: z.array(z.string()).default([]),
  overrides: z.record(z.string(), JsonValueSchema).default({}),
});

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
  /** Scopes the bearer token must carry. */
  scopes: z.array(z.string()).default([]),
  documented: z.boolean().default(true),
  view: RecordViewSchema.default({ omit_fields: [], overrides: {} }),
  /** For `create`: body fields the validator requires (truthful 422 naming the missing one). */
  required_fields: z.array(z.string()).default([]),
  /** For `create`: values set on the new record regardless of the body. */
  defaults: z.record(z.string(), JsonValueSchema).default({}),
  /** Extra response headers, e.g. `Deprecation` and `Sunset` on decoys. */
  headers: z.record(z.string(), z.string()).default({}),
});
export type Route = z.infer<typeof RouteSchema>;

export const OAuthClientCredentialsSchema = z.strictObject({
  type: z.literal("oauth2_client_credentials"),
  token_path: z.string().startsWith("/"),
  client_id: z.string(),
  client_secret: z.string(),
  /** Tokens are minted as `<prefix><canary>`; the prefix makes them recognisable in a transcript. */
  token_prefix: z.string().default("tk_"),
  /** Authenticated calls a token survives before it answers 401 `token_expired`. */
  ttl_calls: z.number().int().positive(),
  scopes: z.array(z.string()).default([]),
});

export const WorldSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  title: z.string(),
  description: z.string(),
  /** The base URL tickets and the spec mention; in-process calls ignore the host. */
  base_url: z.string().url(),
  auth: OAuthClientCredentialsSchema,
  resources: z.record(z.string(), ResourceSchema),
  routes: z.array(RouteSchema).min(1),
});
export type World = z.infer<typeof WorldSchema>;
