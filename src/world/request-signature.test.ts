import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import { canonicalTarget, requestSignature, SIGNATURE_HEADERS, signingString } from "./request-signature.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** The signed-requests scheme (issue 16 item 3): HMAC-SHA256 over the request, a logical nonce. */
const world: World = { ...W, auth: { ...W.auth, scheme: "signed_requests" } };
const secret = W.auth.client_secret;

/** A signed call as a client computes it by the spec's recipe, with `tamper` applied after signing. */
async function signedCall(
  trial: TrialWorld,
  method: string,
  path: string,
  nonce: number,
  body?: JsonObject,
  tamper: { body?: JsonObject; path?: string; keyId?: string } = {},
) {
  const url = new URL(`${world.base_url}${path}`);
  const signature = requestSignature(secret, method, url, String(nonce), body ?? null);
  const sentBody = tamper.body ?? body;
  const res = await inProcessTransport(trial)(
    new Request(`${world.base_url}${tamper.path ?? path}`, {
      method,
      headers: {
        "content-type": "application/json",
        [SIGNATURE_HEADERS.keyId]: tamper.keyId ?? W.auth.client_id,
        [SIGNATURE_HEADERS.nonce]: String(nonce),
        [SIGNATURE_HEADERS.signature]: signature,
      },
      ...(sentBody !== undefined ? { body: JSON.stringify(sentBody) } : {}),
    }),
  );
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

describe("the signing string", () => {
  it("is method, path with sorted query, nonce and the SHA-256 of the canonical JSON body", () => {
    const url = new URL("http://x/v3/valves?zone=B2&limit=5&a=%20b");
    expect(canonicalTarget(url)).toBe("/v3/valves?a=+b&limit=5&zone=B2");
    const bodyHash = createHash("sha256").update('{"a":2,"b":1}').digest("hex");
    expect(signingString("post", url, "7", { b: 1, a: 2 })).toBe(
      `POST\n/v3/valves?a=+b&limit=5&zone=B2\n7\n${bodyHash}`,
    );
    const empty = createHash("sha256").update("").digest("hex");
    expect(signingString("GET", new URL("http://x/v3/valves"), "1", null)).toBe(
      `GET\n/v3/valves\n1\n${empty}`,
    );
    expect(requestSignature("k", "GET", new URL("http://x/v3/valves"), "1", null)).toBe(
      createHmac("sha256", "k").update(`GET\n/v3/valves\n1\n${empty}`).digest("hex"),
    );
  });
});

describe("a signed-requests world", () => {
  it("serves a correctly signed call and refuses an unsigned one, a replayed nonce and a tampered request with 401", async () => {
    const trial = new TrialWorld(world, "seed-sig");
    const ok = await signedCall(trial, "GET", "/v3/valves?limit=2", 1);
    expect(ok.status).toBe(200);
    const unsigned = await inProcessTransport(trial)(new Request(`${world.base_url}/v3/valves`));
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ error: "missing_signature" });
    expect(await signedCall(trial, "GET", "/v3/valves", 1)).toMatchObject({
      status: 401,
      body: { error: "stale_nonce" },
    });
    // Signed for one path, sent to another; signed for one body, sent with another.
    expect(
      await signedCall(trial, "GET", "/v3/valves/V-1", 2, undefined, { path: "/v3/valves/V-2" }),
    ).toMatchObject({
      status: 401,
      body: { error: "invalid_signature" },
    });
    const patch = await signedCall(
      trial,
      "PATCH",
      "/v3/valves/V-1",
      3,
      { zone: "A1" },
      { body: { zone: "A9" } },
    );
    expect(patch).toMatchObject({ status: 401, body: { error: "invalid_signature" } });
    expect(patch.body?.hint).toMatch(/HMAC-SHA256/);
    expect(await signedCall(trial, "GET", "/v3/valves", 4, undefined, { keyId: "cid_other" })).toMatchObject({
      status: 401,
      body: { error: "invalid_client" },
    });
    // A refused call burns no nonce: 2 was never accepted.
    expect((await signedCall(trial, "GET", "/v3/valves", 2)).status).toBe(200);
  });

  it("says only what is wrong at the hard level: no recipe, no last nonce", async () => {
    const trial = new TrialWorld(world, "seed-sig-hard");
    trial.hints = "terse";
    const bad = await signedCall(trial, "GET", "/v3/valves", 1, undefined, { path: "/v3/valves?limit=1" });
    expect(bad).toMatchObject({ status: 401, body: { error: "invalid_signature" } });
    expect(bad.body).not.toHaveProperty("hint");
    expect(JSON.stringify(bad.body)).not.toMatch(/HMAC|client_secret/);
    expect((await signedCall(trial, "GET", "/v3/valves", 5)).status).toBe(200);
    const stale = await signedCall(trial, "GET", "/v3/valves", 3);
    expect(stale.body).toMatchObject({ error: "stale_nonce" });
    expect(JSON.stringify(stale.body)).not.toMatch(/\b5\b/);
  });

  it("issues no token, documents the recipe in the spec, and never logs the signing key", async () => {
    const trial = new TrialWorld(world, "seed-sig-log");
    const mint = await inProcessTransport(trial)(
      new Request(`${world.base_url}${W.auth.token_path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "client_credentials", client_id: W.auth.client_id }),
      }),
    );
    expect(mint.status).toBe(400);
    expect(await mint.json()).toMatchObject({ error: "unsupported_grant_type" });
    await signedCall(trial, "GET", "/v3/valves", 1);
    await signedCall(trial, "PATCH", "/v3/valves/V-1", 2, { zone: "A1" }, { body: { zone: "A2" } });
    expect(trial.log.exchanges().length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(trial.log.events)).not.toContain(secret);
    const spec = renderOpenApi(world);
    expect(spec.security).toEqual([{ signature: [] }]);
    expect(JSON.stringify(spec.components.securitySchemes)).toMatch(/HMAC-SHA256.*X-Nonce/);
  });
});
