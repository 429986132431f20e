import type { JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import type { WorldTransport } from "./transport.js";

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

/**
 * A tiny client over a transport, for the engine's tests: `call("GET", "/v3/valves", { token })`.
 * Not part of the public surface.
 */
export function client(transport: WorldTransport) {
  return async (method: string, path: string, opts: CallOptions = {}): Promise<Exchange> => {
    const headers = new Headers(opts.headers ?? {});
    if (opts.token) headers.set("authorization", `Bearer ${opts.token}`);
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    const res = await transport(new Request(`http://world.local${path}`, { method, headers, body }));
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: Object.fromEntries(res.headers.entries()), text, body: parsed };
  };
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
