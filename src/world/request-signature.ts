import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson, sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";

/** The headers a signed request carries (`signed_requests` scheme). */
export const SIGNATURE_HEADERS = {
  keyId: "X-Key-Id",
  nonce: "X-Nonce",
  signature: "X-Signature",
} as const;

/**
 * The request's canonical target: its path, then `?` and its query parameters sorted by name (then
 * value), percent-encoded as `URLSearchParams` writes them; the path alone without a query.
 *
 * @example canonicalTarget(new URL("http://x/v3/a?b=2&a=1")) // "/v3/a?a=1&b=2"
 */
export function canonicalTarget(url: URL): string {
  const params = [...url.searchParams].sort(([a, x], [b, y]) =>
    a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0,
  );
  return params.length === 0 ? url.pathname : `${url.pathname}?${new URLSearchParams(params).toString()}`;
}

/**
 * The string a signed request signs: method (upper case), canonical target, nonce, and the hex
 * SHA-256 of the body as canonical JSON (keys sorted, no white space; the empty string when there
 * is no body), one per line. The nonce is logical: a positive integer the client keeps, above every
 * nonce its key sent before, so no wall clock enters a signature.
 *
 * @example signingString("POST", new URL("http://x/v3/jobs"), "7", { b: 1, a: 2 }) // "POST\n/v3/jobs\n7\n<sha256 of {\"a\":2,\"b\":1}>"
 */
export function signingString(method: string, url: URL, nonce: string, body: JsonValue | null): string {
  const payload = body === null || body === undefined ? "" : canonicalJson(body);
  return [method.toUpperCase(), canonicalTarget(url), nonce, sha256Hex(payload)].join("\n");
}

/**
 * A request's signature: hex HMAC-SHA256 of its `signingString`, keyed with the client's secret.
 *
 * @example requestSignature("csec_1", "GET", new URL("http://x/v3/a"), "1", null) // 64 hex digits
 */
export function requestSignature(
  secret: string,
  method: string,
  url: URL,
  nonce: string,
  body: JsonValue | null,
): string {
  return createHmac("sha256", secret)
    .update(signingString(method, url, nonce, body))
    .digest("hex");
}

/**
 * Whether `presented` is the request's signature (compared in constant time; any case of hex).
 *
 * @example signatureMatches(sig, "csec_1", "GET", url, "1", null) // true
 */
export function signatureMatches(
  presented: string,
  secret: string,
  method: string,
  url: URL,
  nonce: string,
  body: JsonValue | null,
): boolean {
  const expected = Buffer.from(requestSignature(secret, method, url, nonce, body), "utf8");
  const got = Buffer.from(presented.trim().toLowerCase(), "utf8");
  return got.length === expected.length && timingSafeEqual(got, expected);
}

/**
 * The signing recipe as the spec and hints state it.
 *
 * @example SIGNING_RECIPE.startsWith("X-Signature") // true
 */
export const SIGNING_RECIPE =
  "X-Signature is the hex HMAC-SHA256, keyed with your client_secret, of four lines joined by \\n: the method in upper case; the path with its query parameters sorted by name; the X-Nonce value; the hex SHA-256 of the body as canonical JSON (keys sorted, no white space; empty string without a body). X-Key-Id is your client_id; X-Nonce is an integer above every nonce your key sent before.";
