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
  // Every execute resolves its request; most hold no placeholder, so what holds none is kept as it
  // is (nothing changes a request once sent) rather than rebuilt. No named closures: tsx names
  // each one it builds.
  const missing: string[] = [];
  const out: RestRequest = {
    ...request,
    url: resolveText(request.url, lookup, missing),
    ...(request.headers
      ? { headers: resolveDeep(request.headers, lookup, missing) as Record<string, string> }
      : {}),
    ...(request.body !== undefined ? { body: resolveDeep(request.body, lookup, missing) } : {}),
    ...(request.sign
      ? { sign: { ...request.sign, secret: resolveText(request.sign.secret, lookup, missing) } }
      : {}),
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

/** `text` with its placeholders' values; an unknown name is left as it is and added to `missing`. */
function resolveText(
  text: string,
  lookup: (name: string) => JsonValue | undefined,
  missing: string[],
): string {
  return replacePlaceholders(text, (name, whole) => {
    const value = lookup(name);
    if (value === undefined) {
      missing.push(name);
      return whole;
    }
    return typeof value === "string" ? value : JSON.stringify(value);
  });
}

/** `resolveText` on every string inside `value`: `value` itself when none changes. */
function resolveDeep(
  value: unknown,
  lookup: (name: string) => JsonValue | undefined,
  missing: string[],
): unknown {
  if (typeof value === "string") return resolveText(value, lookup, missing);
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const v = resolveDeep(value[i], lookup, missing);
      if (v !== value[i] && !out) out = value.slice(0, i);
      out?.push(v);
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object") {
    // Rebuilt from its entries when something changes (a "__proto__" key stays an own key).
    let out: Array<[string, unknown]> | null = null;
    const entries = Object.entries(value);
    for (let i = 0; i < entries.length; i++) {
      const [k, v] = entries[i] as [string, unknown];
      const r = resolveDeep(v, lookup, missing);
      if (r !== v && !out) out = entries.slice(0, i);
      out?.push([k, r]);
    }
    return out ? Object.fromEntries(out) : value;
  }
  return value;
}
