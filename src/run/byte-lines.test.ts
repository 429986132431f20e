import { describe, expect, it } from "vitest";
import { ByteLines } from "./byte-lines.js";

const linesOf = (text: string) => {
  const lines = new ByteLines(Buffer.from(text, "utf8"));
  return Array.from({ length: lines.length }, (_, i) => lines.text(i));
};

describe("ByteLines", () => {
  it("splits as String.split does, less the empty line after a final line break", () => {
    for (const text of ["", "\n", "a", "a\n", "a\nb", "a\nb\n", "a\n\n", "\n\nb", 'é→\n{"x":"ü"}\n']) {
      const split = text.split("\n");
      if (split.length > 1 && split.at(-1) === "") split.pop();
      expect(linesOf(text)).toEqual(split);
    }
  });

  it("decodes multi-byte characters whole, and reads nothing past the last line", () => {
    const lines = new ByteLines(Buffer.from("ascii\n“quoted” — ü\n", "utf8"));
    expect(lines.text(1)).toBe("“quoted” — ü");
    expect(lines.text(2)).toBeUndefined();
    expect(lines.text(-1)).toBeUndefined();
  });

  it("gives the bytes of the lines from one on, as they were joined", () => {
    const lines = new ByteLines(Buffer.from("h\nb1\nb2\n", "utf8"));
    expect(lines.bytesFrom(1).toString("utf8")).toBe("b1\nb2");
    expect(lines.bytesFrom(3).length).toBe(0);
  });
});
