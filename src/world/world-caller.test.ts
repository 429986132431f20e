import { describe, expect, it } from "vitest";
import type { World } from "../bank/world-schema.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";
import { worldCaller } from "./world-caller.js";

const withAuth = (auth: Partial<World["auth"]>): World => ({
  ...W,
  auth: { ...W.auth, refresh: true, ...auth },
});
const list = W.routes.find((r) => r.status === "canonical" && r.action === "list" && !r.path.includes("{"));

describe("worldCaller", () => {
  it("mints in each scheme and sends the credential where the scheme wants it", async () => {
    if (!list) throw new Error("the example world has no plain listing");
    for (const scheme of ["client_credentials", "api_key"] as const) {
      const world = withAuth({ scheme });
      const { call, mint } = worldCaller(
        world,
        inProcessTransport(new TrialWorld(world, `caller-${scheme}`)),
      );
      const credential = await mint();
      expect(credential).toMatch(/\S{8,}/);
      expect((await call("GET", list.path, credential)).status).toBe(200);
      expect((await call("GET", list.path, null)).status).toBe(401);
    }
  });

  it("spends the newest refresh token on each grant under rotation (a reused one would be refused)", async () => {
    const world = withAuth({ scheme: "refresh_rotation", initial_refresh_token: "rt_initial" });
    const { call, mint } = worldCaller(world, inProcessTransport(new TrialWorld(world, "caller-rot")));
    const first = await mint();
    const second = await mint();
    expect(second).not.toBe(first);
    expect(second).not.toBe("undefined");
    if (!list) throw new Error("the example world has no plain listing");
    expect((await call("GET", list.path, second)).status).toBe(200);
  });
});
