import { describe, expect, it } from "vitest";
import { sha256Hex } from "../bank/canonical-json.js";
import { isCanaryRef, mintCanary, resolveCanaries } from "./canary.js";

/**
 * A canary is a pure function of the trial seed and the reference's name and format, whatever was
 * minted before it: the seed last asked of a reference, and the ones before it, are remembered
 * (a re-grade mints one trial's canaries many times over), never mixed up.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** The canary recomputed from its definition (sha256 of `canary:<seed>:<name>`, six letters). */
function expected(seed: string, name: string, format = "{code}"): string {
  const hex = sha256Hex(`canary:${seed}:${name}`);
  let code = "";
  for (let i = 0; i < 6; i++) code += ALPHABET[Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 32];
  return format.replace("{code}", code);
}

describe("mintCanary", () => {
  it("gives each seed its own canary, asked in any order and again, for one reference and for an equal one", () => {
    const ref = { $canary: "firmware", format: "FW-{code}" };
    const seeds = ["seed-a", "seed-b", "seed-a", "seed-c", "seed-b", "seed-b", "seed-a"];
    for (const seed of seeds) {
      expect(mintCanary(seed, ref)).toBe(expected(seed, "firmware", "FW-{code}"));
      // Another object with the same name and format: the same canary.
      expect(mintCanary(seed, { ...ref })).toBe(expected(seed, "firmware", "FW-{code}"));
    }
    expect(new Set(["seed-a", "seed-b", "seed-c"].map((s) => mintCanary(s, ref))).size).toBe(3);
  });

  it("keeps references apart: two names under one seed, and a name without a format", () => {
    const a = { $canary: "a" };
    const b = { $canary: "b", format: "B-{code}" };
    for (const seed of ["s1", "s2", "s1"]) {
      expect(mintCanary(seed, a)).toBe(expected(seed, "a"));
      expect(mintCanary(seed, b)).toBe(expected(seed, "b", "B-{code}"));
    }
    expect(mintCanary("s1", a)).toMatch(/^[0-9A-HJKMNP-TV-Z]{6}$/);
  });

  it("stays right past the remembered seeds' bound (20,000 per reference)", () => {
    const ref = { $canary: "many" };
    const first = mintCanary("seed-0", ref);
    for (let i = 1; i <= 20_002; i++) mintCanary(`seed-${i}`, ref);
    expect(mintCanary("seed-0", ref)).toBe(first);
    expect(mintCanary("seed-20001", ref)).toBe(expected("seed-20001", "many"));
    expect(first).toBe(expected("seed-0", "many"));
  });
});

describe("resolveCanaries", () => {
  it("mints every canary reference at any depth and leaves the rest as it is", () => {
    const ref = { $canary: "x", format: "X-{code}" };
    expect(resolveCanaries({ a: [ref, 1, "y", null], b: { c: ref }, d: true }, "seed")).toEqual({
      a: [expected("seed", "x", "X-{code}"), 1, "y", null],
      b: { c: expected("seed", "x", "X-{code}") },
      d: true,
    });
    expect(isCanaryRef({ $canary: "x", other: 1 })).toBe(false);
    expect(resolveCanaries({ $canary: "x", other: 1 }, "seed")).toEqual({ $canary: "x", other: 1 });
  });
});
