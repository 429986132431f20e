import { describe, expect, it } from "vitest";
import type { JsonValue } from "./json.js";
import { lastKey, valuesAtPath } from "./key-path.js";

describe("key paths", () => {
  it("walks arrays and indexes them by numeric segments", () => {
    const v = { items: [{ serial: "a" }, { serial: "b" }] };
    expect(valuesAtPath(v, "items.serial")).toEqual(["a", "b"]);
    expect(valuesAtPath(v, "items.1.serial")).toEqual(["b"]);
    expect(valuesAtPath(v, "items.nope")).toEqual([]);
  });

  it("walks objects alone, then arrays, as one walk (issue 18: no list per object segment)", () => {
    const v: JsonValue = { a: { b: [{ c: 1 }, { c: [2, 3] }, { d: 4 }], "0": { c: 5 } } };
    expect(valuesAtPath(v, "a.b.c")).toEqual([1, [2, 3]]);
    expect(valuesAtPath(v, "a.b.1.c")).toEqual([[2, 3]]);
    // A numeric segment on an object is its key; past the end of a list, nothing.
    expect(valuesAtPath(v, "a.0.c")).toEqual([5]);
    expect(valuesAtPath(v, "a.b.7.c")).toEqual([]);
    expect(valuesAtPath(v, "")).toEqual([v]);
    expect(valuesAtPath(null, "")).toEqual([null]);
    expect(valuesAtPath(null, "a")).toEqual([]);
    expect(valuesAtPath(undefined, "")).toEqual([]);
    expect(valuesAtPath({ a: null }, "a")).toEqual([null]);
    expect(valuesAtPath({ a: null }, "a.b")).toEqual([]);
    expect(valuesAtPath({ a: "text" }, "a.length")).toEqual([]);
    // Each call returns its own list: a caller may add to it.
    const first = valuesAtPath(v, "a.b.c");
    first.push(9);
    expect(valuesAtPath(v, "a.b.c")).toEqual([1, [2, 3]]);
  });

  it("names the last key of a path, and a plain key itself", () => {
    expect(lastKey("data.refresh_token")).toBe("refresh_token");
    expect(lastKey("refresh_token")).toBe("refresh_token");
    expect(lastKey("a.b.c")).toBe("c");
  });
});
