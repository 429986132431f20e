import type { World } from "../bank/world-schema.js";
import { credentialField, credentialHeader, tokenRequestBody } from "./credential.js";
import type { WorldTransport } from "./transport.js";
import { wireRequest } from "./versioning.js";

/** What a caller got back: the status and the parsed JSON body (`null` when there is none). */
export interface CallerReply {
  status: number;
  body: Record<string, unknown> | null;
}

/** A minimal client of one trial world, for checks that replay what a ticket says happened. */
export interface WorldCaller {
  /** One call with `credential` (or none) in the world's credential header, `wait` logical seconds before it. */
  call(
    method: string,
    url: string,
    credential: string | null,
    body?: unknown,
    wait?: number,
  ): Promise<CallerReply>;
  /** A fresh credential in the world's scheme; under refresh rotation each grant spends the newest refresh token. */
  mint(): Promise<string>;
}

/**
 * A client of a trial world as the world's own scheme wants it: the credential in its header, token
 * grants in its grant type (client credentials, or the newest rotated refresh token).
 *
 * @example const { call, mint } = worldCaller(world, inProcessTransport(trial)); await call("GET", "/v3/vessels", await mint())
 */
export function worldCaller(world: World, send: WorldTransport): WorldCaller {
  const call: WorldCaller["call"] = async (method, url, credential, body, wait = 0) => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (credential) {
      const [name, value] = credentialHeader(world.auth, credential);
      headers[name.toLowerCase()] = value;
    }
    if (wait > 0) headers["x-apiflow-wait"] = String(wait);
    // `url` names the version in the path; a header- or query-versioned world takes it its way.
    const wire = wireRequest(world.versioning, { url, headers });
    const res = await send(
      new Request(`${world.base_url}${wire.url}`, {
        method,
        headers: wire.headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const parsed = (await res.json().catch(() => null)) as unknown;
    const isObject = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed);
    return { status: res.status, body: isObject ? (parsed as Record<string, unknown>) : null };
  };
  let refreshToken = world.auth.initial_refresh_token ?? "";
  const mint = async () => {
    const r = await call(
      "POST",
      world.auth.token_path,
      null,
      tokenRequestBody(world.auth, {
        clientId: world.auth.client_id,
        clientSecret: world.auth.client_secret,
        refreshToken,
      }),
    );
    if (typeof r.body?.refresh_token === "string") refreshToken = r.body.refresh_token;
    return String(r.body?.[credentialField(world.auth)]);
  };
  return { call, mint };
}
