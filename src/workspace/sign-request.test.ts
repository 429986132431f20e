import { describe, expect, it } from "vitest";
import type { World } from "../bank/world-schema.js";
import { EXAMPLE_WORLD } from "../world/example-world.js";
import { renderOpenApi } from "../world/openapi.js";
import { inProcessTransport } from "../world/transport.js";
import { TrialWorld } from "../world/trial-world.js";
import { type ToolResult, Workspace } from "./workspace.js";

/** The example world with its valve read and schedule create taking signed requests. */
const SIGNED: World = {
  ...EXAMPLE_WORLD,
  routes: EXAMPLE_WORLD.routes.map((r) =>
    r.id === "getValve" || r.id === "createSchedule" ? { ...r, signed: true } : r,
  ),
};

function workspace() {
  const trial = new TrialWorld(SIGNED, "sign-seed");
  const ws = new Workspace({
    world: SIGNED,
    transport: inProcessTransport(trial),
    log: trial.log,
    variables: {
      vault: { client_id: "cid_irr", client_secret: "csec_irr", wrong_secret: "csec_other" },
      local: {},
      global: {},
    },
  });
  return { ws, trial };
}

const reply = (r: ToolResult) => JSON.parse(r.content) as { status: number; body_preview: string };
const keyed = (nonce: string) => ({ "X-Key-Id": "{{client_id}}", "X-Nonce": nonce });

describe("the workspace's request signer", () => {
  it("signs a read so a signed route serves it; unsigned, wrongly keyed or with a spent nonce it is refused", async () => {
    const { ws, trial } = workspace();
    const get = (headers: Record<string, string>, sign?: object) =>
      ws.call("execute", {
        request: { method: "GET", url: "/v3/valves/VL-1", headers, ...(sign ? { sign } : {}) },
      });
    const unsigned = reply(await get(keyed("1")));
    expect(unsigned.status).toBe(401);
    expect(unsigned.body_preview).toMatch(/missing_signature/);
    // A bearer token does not stand in for the signature on a signed route.
    const bearer = reply(await get({ Authorization: "Bearer tk_irr_OLD000" }));
    expect(bearer.status).toBe(401);
    const wrong = reply(await get(keyed("1"), { secret: "{{wrong_secret}}" }));
    expect(wrong.status).toBe(401);
    expect(wrong.body_preview).toMatch(/invalid_signature/);
    const ok = reply(await get(keyed("1"), { secret: "{{client_secret}}" }));
    expect(ok.status).toBe(200);
    expect(ok.body_preview).toMatch(/VL-1/);
    // The nonce is spent: the same request again is refused, a higher nonce is served.
    expect(reply(await get(keyed("1"), { secret: "{{client_secret}}" })).status).toBe(401);
    expect(reply(await get(keyed("2"), { secret: "{{client_secret}}" })).status).toBe(200);
    // The secret never travels: only the signature, which a spent nonce makes worthless.
    const log = JSON.stringify(trial.log.exchanges());
    expect(log).toMatch(/"x-signature":"[0-9a-f]{64}"/);
    expect(log).not.toContain("csec_irr");
  });

  it("signs the body and the sorted query as the world checks them, in headers the request names", async () => {
    const { ws } = workspace();
    const post = await ws.call("execute", {
      request: {
        method: "POST",
        url: "/v3/schedules",
        headers: { "X-Key-Id": "cid_irr", "X-Nonce": "7" },
        body: { durationMin: 15, valveId: "VL-1" },
        sign: { secret: "{{client_secret}}" },
      },
    });
    expect(reply(post).status).not.toBe(401);
    // Another header pair: the signature goes where sign.header says, signed over sign.nonce_header.
    const other = await ws.call("execute", {
      request: {
        method: "GET",
        url: "/v3/valves/VL-2",
        headers: { "X-Key-Id": "cid_irr", "X-Seq": "8" },
        sign: { secret: "{{client_secret}}", header: "X-Sig", nonce_header: "X-Seq" },
      },
    });
    // The world reads X-Nonce and X-Signature: a signer aimed at other headers is refused.
    expect(reply(other).status).toBe(401);
  });

  it("refuses to sign without the nonce it signs, naming the header", async () => {
    const { ws } = workspace();
    const r = await ws.call("execute", {
      request: {
        method: "GET",
        url: "/v3/valves/VL-1",
        headers: { "X-Key-Id": "cid_irr" },
        sign: { secret: "s" },
      },
    });
    expect(r.ok).toBe(false);
    expect(r.error?.message).toMatch(/send a X-Nonce header/);
    const unknown = await ws.call("execute", {
      request: {
        method: "GET",
        url: "/v3/valves/VL-1",
        headers: { "X-Nonce": "1" },
        sign: { secret: "{{nope}}" },
      },
    });
    expect(unknown.error?.code).toBe("unknown_variable");
  });

  it("is documented in the spec of a world whose other routes take a token", () => {
    const spec = renderOpenApi(SIGNED);
    const schemes = spec.components.securitySchemes as Record<string, { description: string }>;
    expect(schemes.signature?.description).toMatch(/X-Key-Id, X-Nonce and X-Signature/);
    expect(schemes.oauth2).toBeDefined();
    const op = (spec.paths["/v3/valves/{valve_id}"] as Record<string, { security?: unknown }>).get;
    expect(op?.security).toEqual([{ signature: [] }]);
    expect(renderOpenApi(EXAMPLE_WORLD).components.securitySchemes).not.toHaveProperty("signature");
  });
});
