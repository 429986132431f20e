import * as crypto from "node:crypto";

/**
 * Canonical JSON: object keys sorted by code point, no insignificant white space, numbers as
 * JavaScript prints them. Two equal values always serialise to the same bytes, so hashes over a
 * bank do not depend on the order a generator happened to build its objects in.
 *
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

/** Pretty canonical JSON (two-space indent, sorted keys, trailing newline) for files people read. */
export function canonicalJsonPretty(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

// Node's one-shot hash (20.12+) is about 2.5x faster than a Hash object; a trial mints hundreds of
// canaries, each a SHA-256. Same digest either way.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array) => string }).hash;

/** SHA-256 of a string or bytes, as lower-case hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot ? oneShot("sha256", data) : crypto.createHash("sha256").update(data).digest("hex");
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
