import type { JsonValue } from "../bank/json.js";
import { replacePlaceholders } from "../bank/placeholder-grammar.js";
import type { Parsed } from "./entity-ref.js";
import type { RestRequest } from "./tool-definitions.js";

/**
 * Resolve `{{name}}` placeholders in a request's URL, header values, string body values and signing
 * secret from the workspace variables (vault, then local, then global). An unknown name is an
 * error that names it; nothing is sent with a placeholder left in it.
 *
 * @example resolvePlaceholders({ method: "GET", url: "/v3/x/{{id}}" }, (n) => ({ id: "7" })[n])
 */
export function resolvePlaceholders(
  request: RestRequest,
  lookup: (name: string) => JsonValue | undefined,
): Parsed<RestRequest> {
  const missing: string[] = [];
  const sub = (text: string): string =>
    replacePlaceholders(text, (name, whole) => {
      const value = lookup(name);
      if (value === undefined) {
        missing.push(name);
        return whole;
      }
      return typeof value === "string" ? value : JSON.stringify(value);
    });
  const deep = (value: unknown): unknown => {
    if (typeof value === "string") return sub(value);
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v)]));
    }
    return value;
  };
  const out: RestRequest = {
    ...request,
    url: sub(request.url),
    ...(request.headers
      ? { headers: Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, sub(v)])) }
      : {}),
    ...(request.body !== undefined ? { body: deep(request.body) } : {}),
    ...(request.sign ? { sign: { ...request.sign, secret: sub(request.sign.secret) } } : {}),
  };
  if (missing.length > 0) {
    const names = [...new Set(missing)].map((n) => `{{${n}}}`).join(", ");
    return {
      success: false,
      error: {
        code: "unknown_variable",
        message: `unknown variable ${names}; search(query: "", kind: "variable") lists the variables`,
      },
    };
  }
  return { success: true, data: out };
}
