import { describe, expect, it } from "vitest";
import type { CanaryRef } from "../bank/task-schema.js";
import { mintCanary, resolveCanaries } from "./canary.js";

describe("resolveCanaries", () => {
  it("resolves a reference to the seed's canary, the same on every resolution", () => {
    const ref: CanaryRef = { $canary: "firmware", format: "FW-{code}" };
    const first = resolveCanaries({ build: ref }, "seed-1");
    expect(first).toEqual({ build: mintCanary("seed-1", ref) });
    expect(resolveCanaries({ again: ref }, "seed-1")).toEqual({ again: mintCanary("seed-1", ref) });
    expect(resolveCanaries(ref, "seed-2")).toBe(mintCanary("seed-2", ref));
    expect(resolveCanaries(ref, "seed-2")).not.toBe(first);
  });

  it("mints a reference changed since it was resolved anew (its name, then its format)", () => {
    const ref: CanaryRef = { $canary: "firmware", format: "FW-{code}" };
    const before = resolveCanaries(ref, "seed-1");
    ref.$canary = "serial";
    const renamed = resolveCanaries(ref, "seed-1");
    expect(renamed).toBe(mintCanary("seed-1", { $canary: "serial", format: "FW-{code}" }));
    expect(renamed).not.toBe(before);
    ref.format = "SN-{code}";
    expect(resolveCanaries(ref, "seed-1")).toBe(
      mintCanary("seed-1", { $canary: "serial", format: "SN-{code}" }),
    );
    expect(resolveCanaries(ref, "seed-1")).toMatch(/^SN-/);
  });
});
