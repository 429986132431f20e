import { describe, expect, it } from "vitest";
import { sameInWorld, valuesEqual } from "./values-equal.js";

/**
 * sameInWorld (issue 21: mutation testing): what an agent wrote into the world is compared as the
 * world compares. Two strings only when identical; a number and its decimal string, as the card's
 * rule, either way round.
 */
describe("sameInWorld", () => {
  it("compares two strings exactly: case and surrounding spaces count", () => {
    expect(sameInWorld("settled", "settled")).toBe(true);
    expect(sameInWorld("Settled", "settled")).toBe(false);
    expect(sameInWorld(" settled", "settled")).toBe(false);
    // The card's rule would take both.
    expect(valuesEqual("Settled", "settled")).toBe(true);
  });

  it("takes a number for its decimal string, whichever side holds the string", () => {
    expect(sameInWorld(3, "3")).toBe(true);
    expect(sameInWorld("3", 3)).toBe(true);
    expect(sameInWorld("2.50", 2.5)).toBe(true);
    expect(sameInWorld("4", 3)).toBe(false);
  });

  it("compares other values as the card's rule does", () => {
    expect(sameInWorld(true, true)).toBe(true);
    expect(sameInWorld(true, "true")).toBe(false);
    expect(sameInWorld(null, null)).toBe(true);
    expect(sameInWorld({ a: 1 }, { a: 1 })).toBe(true);
  });
});
