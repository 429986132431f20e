import { describe, expect, it } from "vitest";
import type { World } from "../bank/world-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { EXAMPLE_WORLD } from "../world/example-world.js";
import { specBodyMismatches } from "./spec-bodies.js";

/** Issue 16: a body built exactly as the published spec documents it is one the world accepts. */
describe("spec bodies the world accepts", () => {
  const content = defaultBankContent();

  it("every world of the default bank documents bodies its validators accept, and the If-Match its updates need", () => {
    for (const world of content.worlds) expect(specBodyMismatches(world), world.id).toEqual([]);
  });

  it("rejects a world whose spec documents the old snake_case body of a camelCase validator", () => {
    const world = content.worlds[0] as World;
    const lagging: World = {
      ...world,
      routes: world.routes.map((r) =>
        r.validator && r.path.endsWith("/dispatch")
          ? { ...r, validator: { ...r.validator, spec_lag: true } }
          : r,
      ),
    };
    const found = specBodyMismatches(lagging);
    expect(found).toHaveLength(1);
    expect(found[0]?.route).toMatch(/^POST .*\/dispatch$/);
    expect(found[0]?.message).toMatch(/refused by the live validator: .*wrong_name/);
    // The example world keeps a lagging spec on purpose (engine tests): the check names it.
    expect(specBodyMismatches(EXAMPLE_WORLD).map((m) => m.route)).toContain("POST /v3/schedules");
  });
});
