import { z } from "zod";
import { JsonValueSchema } from "./json.js";

/**
 * What a failure-first ticket claims the world did, declared beside the ticket so certification
 * can check it on the generated world (the `premises` gate) and play it (the `axis_necessity`
 * gate's axis-blind agent sends the client's call as the ticket quotes it).
 *
 * - `call`: the broken call the ticket quotes (method, URL, body) got `status` and, when given,
 *   the error `error` worded `message`. `token` is the credential it went out with: `stale` (the
 *   vault's), `fresh` (just minted) or `expired` (a fresh one spent to its call TTL); `wait` logical
 *   seconds pass before it (`x-apiflow-wait`). A `{{variable}}` in `url` is the workspace variable's
 *   value (the ticket quotes a call on the record a variable holds).
 * - `spec_body`: the ticket says the published spec documents these body fields for `method path`
 *   (a route path template as the spec writes it).
 * - `nonce_counter`: the ticket says the signer's nonce counter for the client's key stands at
 *   `stands_at` for the signed read of `url`: the key's last accepted nonce is `stands_at` - 1, so
 *   the world refuses that nonce again (or any below it) and takes `stands_at`. The world's set-up
 *   seeds the key's last nonce from it (see `prepareTrialWorld`). A chain carries its segments'
 *   counters, each with its `segment`: the world is seeded from the first, and each holds as its
 *   segment starts, after the chain's earlier segments (the solo tasks' other claims are checked on
 *   the solo tasks, whose worlds are in the state the segment starts from).
 *
 * @example PremiseSchema.parse({ kind: "call", method: "GET", url: "/v1/vessels/V-1", token: "fresh", status: 410, error: "gone" })
 */
export const PremiseSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("call"),
    method: z.string().min(1),
    url: z.string().startsWith("/"),
    body: z.record(z.string(), JsonValueSchema).optional(),
    token: z.enum(["stale", "fresh", "expired"]),
    wait: z.number().int().nonnegative().optional(),
    status: z.number().int(),
    error: z.string().optional(),
    message: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal("spec_body"),
    method: z.string().min(1),
    path: z.string().startsWith("/"),
    fields: z.array(z.string().min(1)).min(1),
  }),
  z.strictObject({
    kind: z.literal("nonce_counter"),
    url: z.string().startsWith("/"),
    stands_at: z.number().int().min(1),
    /** In a chain: the position whose step states it (the counter as the segment starts). */
    segment: z.number().int().positive().optional(),
  }),
]);
export type Premise = z.infer<typeof PremiseSchema>;
