import { z } from "zod";

/**
 * How a world's clients name the API version (issue 16). `path` (the default): the version is a
 * path segment (`/billing/v3/invoices`). `header` and `query`: the wire path has no version
 * segment; the version travels as a header (`Api-Version: 3`) or a query parameter
 * (`?api-version=3`), and the engine folds it back into the path where the request enters, right
 * after `prefix` (`/billing` + `/v3` + `/invoices`). Routes, the event log and every grader
 * predicate keep the path form (the canonical request, see `src/world/versioning.ts`), so a
 * forbidden old version is caught whatever the style. A path-form request to a header or query
 * world is refused (404 naming the style), as is a versioned path sent without a version (400).
 *
 * @example {"style": "header", "name": "Api-Version", "prefix": "/billing"}
 */
export const VersioningSchema = z.discriminatedUnion("style", [
  z.strictObject({ style: z.literal("path") }),
  z.strictObject({
    style: z.enum(["header", "query"]),
    /** The header or query parameter that carries the version number (`3`, or `v3`). */
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9-]*$/),
    /** The path segments before the version segment (`""` when the version comes first). */
    prefix: z.string().regex(/^(\/[^/{}]+)*$/),
  }),
]);
export type Versioning = z.infer<typeof VersioningSchema>;
