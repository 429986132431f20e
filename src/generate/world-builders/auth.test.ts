import { describe, expect, it } from "vitest";
import { client, mintToken } from "../../../test/support/world-test-helpers.js";
import { Rng } from "../../bank/rng.js";
import { tokenLifetime } from "../../world/token-lifetime.js";
import { inProcessTransport } from "../../world/transport.js";
import { TrialWorld } from "../../world/trial-world.js";
import { buildWorld } from "../build-world.js";
import { defaultBankContent } from "../default-bank.js";
import { WORLD_TEMPLATES } from "../worlds/index.js";
import { auditTtlSeconds } from "./auth.js";

/**
 * Issue 16: a token carrying the audit scope expires within the work of the task that needs it,
 * on the logical clock every request advances (no wait header), at its edge: the last second
 * it lives is served, the next is refused; the default token is unaffected.
 */
describe.each(WORLD_TEMPLATES.map((t) => [t.id, t] as const))("the %s audit token", (_id, t) => {
  const built = buildWorld(t, Rng.derive("seed-auth", `world:${t.id}`));
  const w = built.world;
  const life = auditTtlSeconds(t);

  it(`lives ${life} logical seconds: ${life - 1} calls are served, the next is token_expired`, async () => {
    expect(tokenLifetime(w.auth, [built.auditScope])).toBe(life);
    expect(life).toBeLessThan(tokenLifetime(w.auth, w.auth.default_scopes ?? []) ?? Infinity);
    const call = client(inProcessTransport(new TrialWorld(w, "seed-auth")));
    const audit = `${built.routes.asset(String(built.assets[0]?.[t.asset.idField]))}/audit`;
    const minted = await call("POST", w.auth.token_path, {
      body: {
        grant_type: "client_credentials",
        client_id: w.auth.client_id,
        client_secret: w.auth.client_secret,
        scope: built.auditScope,
      },
    });
    expect(minted.body.expires_in).toBe(life);
    const token: string = minted.body.access_token;
    for (let i = 1; i < life; i++)
      expect((await call("GET", audit, { token })).status, `call ${i}`).toBe(200);
    const late = await call("GET", audit, { token });
    expect(late.status).toBe(401);
    expect(JSON.stringify(late.body)).toMatch(/token[-_ ]?expired/i);
    // A default token minted at the same time still works after as many calls.
    const plain = await mintToken(call, w);
    for (let i = 0; i < life; i++)
      expect(
        (
          await call("GET", built.routes.asset(String(built.assets[1]?.[t.asset.idField])), {
            token: plain.token,
          })
        ).status,
      ).toBe(200);
  });
});

describe("the missing-scope auth tasks of the default bank", () => {
  it("read more audit views than one elevated token serves, so their goldens mint it again", () => {
    const tasks = defaultBankContent().tasks.filter(
      (t) => t.kind === "solo" && t.axes.includes("auth") && t.ticket.includes("audit views of"),
    );
    expect(tasks.length).toBeGreaterThan(0);
    for (const task of tasks) {
      const mints = task.golden.filter(
        (s) => s.op === "execute" && JSON.stringify(s.request.body ?? "").includes(":audit"),
      );
      expect(mints.length, task.id).toBeGreaterThanOrEqual(2);
    }
  });
});
