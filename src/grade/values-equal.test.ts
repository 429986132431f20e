import { describe, expect, it } from "vitest";
import { valuesEqual } from "./values-equal.js";

/**
 * `valuesEqual` at its edges (issue 21: mutation testing): the 1e-9 numeric tolerance from both
 * sides, a number against its decimal string in either order, booleans and structures.
 */
describe("valuesEqual", () => {
  it("numbers are equal within 1e-9, not at or past it", () => {
    expect(valuesEqual(1, 1 + 5e-10)).toBe(true);
    expect(valuesEqual(1 + 5e-10, 1)).toBe(true);
    expect(valuesEqual(0, 2e-9)).toBe(false);
    expect(valuesEqual(0, 1e-9)).toBe(false);
    expect(valuesEqual(1e-9, 0)).toBe(false);
    expect(valuesEqual(2e-9, 0)).toBe(false);
    expect(valuesEqual(1, 1.000001)).toBe(false);
    expect(valuesEqual(-3, 3)).toBe(false);
  });

  it("a number equals its decimal string, in either order, within the same tolerance", () => {
    expect(valuesEqual(3, "3")).toBe(true);
    expect(valuesEqual("3", 3)).toBe(true);
    expect(valuesEqual(" 3.50 ", 3.5)).toBe(true);
    expect(valuesEqual("3", 4)).toBe(false);
    expect(valuesEqual(4, "3")).toBe(false);
  });

  it("strings that are not numbers never equal a number; blank strings are not zero", () => {
    expect(valuesEqual("", 0)).toBe(false);
    expect(valuesEqual("  ", 0)).toBe(false);
    expect(valuesEqual(0, "")).toBe(false);
    expect(valuesEqual("abc", 0)).toBe(false);
    expect(valuesEqual("Infinity", Number.POSITIVE_INFINITY)).toBe(false);
  });

  it("two numeric strings compare as strings, not as numbers", () => {
    expect(valuesEqual("3.0", "3")).toBe(false);
    expect(valuesEqual("007", "7")).toBe(false);
    expect(valuesEqual(" Queued ", "queued")).toBe(true);
  });

  it("booleans equal only the same boolean: not 1, not 'true'", () => {
    expect(valuesEqual(true, true)).toBe(true);
    expect(valuesEqual(false, false)).toBe(true);
    expect(valuesEqual(true, false)).toBe(false);
    expect(valuesEqual(true, 1)).toBe(false);
    expect(valuesEqual(1, true)).toBe(false);
    expect(valuesEqual(true, "true")).toBe(false);
    expect(valuesEqual("false", false)).toBe(false);
  });

  it("null, arrays and objects compare by their JSON", () => {
    expect(valuesEqual(null, null)).toBe(true);
    expect(valuesEqual(null, 0)).toBe(false);
    expect(valuesEqual(null, "null")).toBe(false);
    expect(valuesEqual([1, "a"], [1, "a"])).toBe(true);
    expect(valuesEqual([1, "a"], [1, "A"])).toBe(false);
    expect(valuesEqual({ a: 1 }, { a: 1 })).toBe(true);
    expect(valuesEqual({ a: 1 }, { a: 2 })).toBe(false);
  });
});
