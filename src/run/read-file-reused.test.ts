import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileReused } from "./read-file-reused.js";

describe("readFileReused", () => {
  it("reads a file whole, small or larger than its buffer, empty too; throws ENOENT as readFileSync does", () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-read-"));
    const sizes = [0, 1, 65_535, 65_536, 65_537, 300_001];
    for (const size of sizes) {
      const path = join(dir, `f${size}`);
      writeFileSync(path, Buffer.from(Array.from({ length: size }, (_, i) => (i * 31 + size) % 256)));
      expect(Buffer.compare(readFileReused(path), readFileSync(path))).toBe(0);
    }
    // Small again after the buffer grew: the view is the file's length, not the buffer's.
    expect(readFileReused(join(dir, "f1")).length).toBe(1);
    expect(() => readFileReused(join(dir, "absent"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
  });

  it("reuses its buffer: a view is overwritten by the next read (copy what you keep)", () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-read-"));
    writeFileSync(join(dir, "a"), "aaaa");
    writeFileSync(join(dir, "b"), "bbbb");
    const a = readFileReused(join(dir, "a"));
    const kept = Buffer.from(a);
    readFileReused(join(dir, "b"));
    expect(a.toString()).toBe("bbbb");
    expect(kept.toString()).toBe("aaaa");
  });
});
