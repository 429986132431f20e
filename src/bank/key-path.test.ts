import { describe, expect, it } from "vitest";
import { lastKey, valuesAtPath } from "./key-path.js";

describe("key paths", () => {
  it("walks arrays and indexes them by numeric segments", () => {
    const v = { items: [{ serial: "a" }, { serial: "b" }] };
    expect(valuesAtPath(v, "items.serial")).toEqual(["a", "b"]);
    expect(valuesAtPath(v, "items.1.serial")).toEqual(["b"]);
    expect(valuesAtPath(v, "items.nope")).toEqual([]);
  });

  it("names the last key of a path, and a plain key itself", () => {
    expect(lastKey("data.refresh_token")).toBe("refresh_token");
    expect(lastKey("refresh_token")).toBe("refresh_token");
    expect(lastKey("a.b.c")).toBe("c");
  });
});
