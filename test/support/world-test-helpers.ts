import type { JsonValue } from "../../src/bank/json.js";
import type { World } from "../../src/bank/world-schema.js";
import type { WorldTransport } from "../../src/world/transport.js";

/** One exchange as a test sees it. */
export interface Exchange {
  status: number;
  headers: Record<string, string>;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  body: any;
}

/** Options of one test request: a bearer token, headers, and a JSON (or raw string) body. */
export interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
  body?: JsonValue;
  raw?: string;
}

/** What a test request sends besides method and path: its headers (bearer token, content type) and body. */
function requestParts(opts: CallOptions): { headers: Headers; body: string | undefined } {
  const headers = new Headers(opts.headers ?? {});
  if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  return { headers, body };
}

/** A reply as a test sees it: the body parsed as JSON when it is JSON, else the text itself (null if empty). */
function exchange(status: number, headers: Headers, text: string): Exchange {
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  return { status, headers: Object.fromEntries(headers.entries()), text, body: parsed };
}

/**
 * A tiny client over a transport, for the engine's tests: `call("GET", "/v3/valves", { token })`.
 * Not part of the public surface.
 */
export function client(transport: WorldTransport) {
  return async (method: string, path: string, opts: CallOptions = {}): Promise<Exchange> => {
    const { headers, body } = requestParts(opts);
    const res = await transport(new Request(`http://world.local${path}`, { method, headers, body }));
    return exchange(res.status, res.headers, await res.text());
  };
}

/** `client` over `transport.plain`, the way the workspace sends: parts, the body handed beside them. */
export function plainClient(transport: WorldTransport) {
  const plain = transport.plain;
  if (!plain) throw new Error("an in-process transport has plain");
  return async (method: string, path: string, opts: CallOptions = {}): Promise<Exchange> => {
    const { headers, body } = requestParts(opts);
    // The workspace hands over a parsed URL (dot segments resolved), as a Request would hold it.
    const url = new URL(`http://world.local${path}`).href;
    const res = await plain({ url, method, headers }, body);
    return exchange(res.status, res.headers, res.text);
  };
}

/** A test client: `client` or `plainClient`. */
export type Call = ReturnType<typeof client>;

/** `call`, recording every exchange in `out` as it goes: a scenario's transcript, to compare across transports. */
export function recording(call: Call): { c: Call; out: Exchange[] } {
  const out: Exchange[] = [];
  const c: Call = async (method, path, opts = {}) => {
    const res = await call(method, path, opts);
    out.push(res);
    return res;
  };
  return { c, out };
}

/** Mint a token with the world's client credentials (and optional scopes). */
export async function mintToken(
  call: ReturnType<typeof client>,
  world: World,
  scope?: string,
): Promise<{ token: string; refresh?: string }> {
  const res = await call("POST", world.auth.token_path, {
    body: {
      grant_type: "client_credentials",
      client_id: world.auth.client_id,
      client_secret: world.auth.client_secret,
      ...(scope ? { scope } : {}),
    },
  });
  if (res.status !== 200) throw new Error(`token mint failed: ${res.text}`);
  return { token: res.body.access_token, refresh: res.body.refresh_token };
}
