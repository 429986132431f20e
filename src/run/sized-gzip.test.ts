import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { inflateMember, readSizedGzip, sizedGzip } from "./sized-gzip.js";

describe("sized gzip members", () => {
  it("each member is found from its header alone and inflates on its own; gzip readers see the concatenation", () => {
    const texts = ["head\n", "x".repeat(5000), "é€ and more\n"];
    const bytes = sizedGzip(texts);
    const members = readSizedGzip(bytes);
    expect(members?.map(inflateMember)).toEqual(texts);
    expect(gunzipSync(bytes).toString("utf8")).toBe(texts.join(""));
  });

  it("is null for a plain gzip file, a truncated one, or bytes that are not gzip", () => {
    expect(readSizedGzip(gzipSync("plain"))).toBeNull();
    const bytes = sizedGzip(["a", "b"]);
    expect(readSizedGzip(bytes.subarray(0, bytes.length - 1))).toBeNull();
    expect(readSizedGzip(Buffer.from("not gzip at all, not at all"))).toBeNull();
    expect(readSizedGzip(Buffer.alloc(0))).toBeNull();
  });

  it("an empty member is read as empty without inflating; one that only looks empty is inflated and checked", () => {
    const [empty] = readSizedGzip(sizedGzip([""])) ?? [];
    expect(inflateMember(empty as Buffer)).toBe("");
    // The same length, one byte of its deflate data changed: no longer the known empty member, so
    // it is inflated, and fails.
    const damaged = Buffer.from(empty as Buffer);
    damaged[20] = (damaged[20] as number) ^ 0xff;
    expect(() => inflateMember(damaged)).toThrow();
    // A member holding text is never taken for empty.
    const [one] = readSizedGzip(sizedGzip(["x"])) ?? [];
    expect(inflateMember(one as Buffer)).toBe("x");
  });

  it("a damaged member fails its checksum when inflated", () => {
    const bytes = Buffer.from(sizedGzip(["some text to damage"]));
    bytes[bytes.length - 9] = (bytes[bytes.length - 9] as number) ^ 0xff;
    const [member] = readSizedGzip(bytes) ?? [];
    expect(() => inflateMember(member as Buffer)).toThrow();
  });
});
