import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { authorize, mintTokenReply } from "./auth.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { renderOpenApi } from "./openapi.js";
import {
  canonicalTarget,
  requestSignature,
  SIGNATURE_HEADERS,
  SIGNING_RECIPE,
  signingString,
} from "./request-signature.js";
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

describe("authorize on a signed route, header by header", () => {
  const listValves = W.routes.find((r) => r.id === "listValves")!;
  const target = (path = "/v3/valves") => ({
    method: "GET",
    url: new URL(`${world.base_url}${path}`),
    body: null,
  });
  /** The three headers of a GET /v3/valves signed with `nonce`, looked up by lower-case name as the engine asks. */
  const signed = (nonce: string, extra: Record<string, string | undefined> = {}) => {
    const h: Record<string, string | undefined> = {
      "x-key-id": W.auth.client_id,
      "x-nonce": nonce,
      "x-signature": requestSignature(secret, "GET", target().url, nonce.trim(), null),
      ...extra,
    };
    return (name: string) => h[name];
  };
  const challenge = { "www-authenticate": 'Signature headers="x-key-id x-nonce x-signature"' };

  it("a signed-requests world's token endpoint says no token is issued, with the recipe", () => {
    expect(mintTokenReply(new TrialWorld(world, "s"), { grant_type: "client_credentials" }).body).toEqual({
      error: "unsupported_grant_type",
      message: "this API issues no tokens: every request is signed",
      hint: SIGNING_RECIPE,
    });
  });

  it("accepts the headers with surrounding spaces and remembers the nonce", () => {
    const trial = new TrialWorld(world, "s");
    const h = signed(" 12 ", { "x-key-id": ` ${W.auth.client_id} ` });
    expect(authorize(trial, listValves, h, "rest", target())).toBeNull();
    expect(trial.lastNonce(W.auth.client_id)).toBe(12);
  });

  for (const [name, label] of [
    ["x-key-id", "X-Key-Id"],
    ["x-nonce", "X-Nonce"],
    ["x-signature", "X-Signature"],
  ] as const) {
    for (const value of [undefined, "", "   "]) {
      it(`names ${label} when it alone is missing (${JSON.stringify(value)})`, () => {
        const r = authorize(
          new TrialWorld(world, "s"),
          listValves,
          signed("1", { [name]: value }),
          "rest",
          target(),
        );
        expect(r).toMatchObject({
          status: 401,
          body: {
            error: "missing_signature",
            message: `this route takes signed requests; missing ${label}`,
            hint: SIGNING_RECIPE,
          },
          headers: challenge,
          problem: { terse: "this route takes signed requests" },
        });
      });
    }
  }

  it("names every missing header, in order", () => {
    const r = authorize(new TrialWorld(world, "s"), listValves, () => undefined, "rest", target());
    expect(r?.body).toMatchObject({
      message: "this route takes signed requests; missing X-Key-Id, X-Nonce, X-Signature",
    });
  });

  it("an unknown key id is named, with where the key id comes from", () => {
    const r = authorize(
      new TrialWorld(world, "s"),
      listValves,
      signed("1", { "x-key-id": "cid_other" }),
      "rest",
      target(),
    );
    expect(r).toMatchObject({
      status: 401,
      body: {
        error: "invalid_client",
        message: "unknown signing key cid_other",
        hint: "X-Key-Id is your client_id",
      },
      headers: challenge,
    });
  });

  it("a nonce not above the last accepted one is refused naming the last; the hard level says only what is wrong", () => {
    const trial = new TrialWorld(world, "s");
    expect(authorize(trial, listValves, signed("5"), "rest", target())).toBeNull();
    expect(authorize(trial, listValves, signed("3"), "rest", target())).toMatchObject({
      status: 401,
      body: {
        error: "stale_nonce",
        message: "X-Nonce 3 is not above the last nonce this key used (5)",
        hint: "send a nonce above 5, and sign it",
      },
      headers: challenge,
      problem: { terse: "X-Nonce was used before or is not a positive integer" },
    });
    expect(authorize(trial, listValves, signed("5"), "rest", target())?.body).toMatchObject({
      error: "stale_nonce",
    });
  });

  it("a nonce is a safe positive integer, without a leading zero, sign, point or exponent", () => {
    for (const bad of ["0", "01", "-3", "+3", "2.5", "1e3", "7x", "12345678901234567", "9007199254740992"]) {
      const r = authorize(new TrialWorld(world, "s"), listValves, signed(bad), "rest", target());
      expect(r?.body, bad).toEqual({
        error: "stale_nonce",
        message: `X-Nonce ${bad} is not a positive integer of at most 9007199254740991`,
        hint: "send a nonce above 0, and sign it",
      });
    }
    for (const good of ["1", "12", "1000000000000000", "9007199254740991"]) {
      const trial = new TrialWorld(world, "s");
      expect(authorize(trial, listValves, signed(good), "rest", target()), good).toBeNull();
      expect(trial.lastNonce(W.auth.client_id)).toBe(Number(good));
    }
  });

  it("a signature for another request is refused, the same words at the hard level", () => {
    const r = authorize(
      new TrialWorld(world, "s"),
      listValves,
      signed("1"),
      "rest",
      target("/v3/valves?limit=1"),
    );
    expect(r).toMatchObject({
      status: 401,
      body: {
        error: "invalid_signature",
        message: "the signature does not match the request",
        hint: SIGNING_RECIPE,
      },
      headers: challenge,
      problem: { terse: "the signature does not match the request" },
    });
  });

  it("without the request, the signature is checked over the route's method, the root path and no body", () => {
    const trial = new TrialWorld(world, "s");
    const sig = requestSignature(secret, "GET", new URL("http://any.host/"), "1", null);
    expect(authorize(trial, listValves, signed("1", { "x-signature": sig }))).toBeNull();
  });

  it("a route marked signed takes signed requests in a token world, and a bearer token there is missing_signature", () => {
    const trial = new TrialWorld(W, "s");
    const route = { ...listValves, signed: true };
    const { token } = trial.issueToken();
    const bearer = (name: string) => (name === "authorization" ? `Bearer ${token}` : undefined);
    expect(authorize(trial, route, bearer, "rest", target())?.body).toMatchObject({
      error: "missing_signature",
    });
    expect(authorize(trial, route, signed("1"), "rest", target())).toBeNull();
    expect(authorize(trial, listValves, bearer, "rest", target())).toBeNull();
  });
});
