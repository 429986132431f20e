import {
  GraphqlRequestSchema,
  McpRequestSchema,
  type RestRequest,
  RestRequestSchema,
} from "./tool-definitions.js";

const REST_KEYS = new Set(["protocol", "method", "url", "headers", "body"]);

/**
 * `RestRequestSchema.parse(raw)` for the plain shape nearly every REST request has (a plain object
 * with the schema's keys only, string method and url, string-valued headers), without zod; undefined
 * when the shape is anything else, so the schema decides. Same output as the schema: keys in the
 * schema's order, `protocol` defaulted, a present key kept even when undefined, headers copied and
 * the body as given. `execute` validates every request it sends, and zod's general object parse was
 * a few percent of a certification run.
 *
 * @example quickRestRequest({ method: "GET", url: "/v3/x" }) // { protocol: "rest", method: "GET", url: "/v3/x" }
 */
export function quickRestRequest(raw: unknown): RestRequest | undefined {
  if (raw === null || typeof raw !== "object" || Object.getPrototypeOf(raw) !== Object.prototype)
    return undefined;
  const r = raw as Record<string, unknown>;
  for (const key of Object.keys(r)) if (!REST_KEYS.has(key)) return undefined;
  if ((r.protocol !== undefined && r.protocol !== "rest") || typeof r.method !== "string") return undefined;
  if (typeof r.url !== "string") return undefined;
  const out: RestRequest = { protocol: "rest", method: r.method, url: r.url };
  if ("headers" in r) {
    const given = r.headers;
    if (given === undefined) out.headers = undefined;
    else {
      if (given === null || typeof given !== "object" || Object.getPrototypeOf(given) !== Object.prototype)
        return undefined;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(given)) {
        // `__proto__` as an own key (from JSON.parse) is the schema's to handle.
        if (typeof value !== "string" || name === "__proto__") return undefined;
        headers[name] = value;
      }
      out.headers = headers;
    }
  }
  if ("body" in r) out.body = r.body;
  return out;
}

/**
 * A request entity checked against its protocol's schema (REST when none is named).
 *
 * @example parseRequestContent({ protocol: "mcp", tool: "get_vessel" }).success // true
 */
export function parseRequestContent(raw: unknown) {
  const protocol = (raw as { protocol?: unknown } | null)?.protocol;
  if (protocol === "graphql") return GraphqlRequestSchema.safeParse(raw);
  if (protocol === "mcp") return McpRequestSchema.safeParse(raw);
  const quick = quickRestRequest(raw);
  if (quick) return { success: true as const, data: quick };
  return RestRequestSchema.safeParse(raw);
}
