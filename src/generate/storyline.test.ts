import { describe, expect, it } from "vitest";
import { dealtTemplate } from "./storyline.js";

describe("dealtTemplate", () => {
  const candidates = ["a", "b", "c"] as const;
  const tally = (offset: number, perWorld: (w: number) => number) => {
    const n: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let w = 0; w < 13; w++)
      for (let k = 0; k < perWorld(w); k++) {
        const t = dealtTemplate(candidates, w, k, offset);
        n[t] = (n[t] ?? 0) + 1;
      }
    return n;
  };

  it("fills each template about equally often over the worlds, whatever the offset", () => {
    for (const offset of [0, 1, 2, 17, 58]) {
      const counts = Object.values(tally(offset, (w) => (w % 3) + 1));
      expect(Math.max(...counts) - Math.min(...counts), `offset ${offset}`).toBeLessThanOrEqual(1);
    }
  });

  it("gives one world distinct templates before it repeats one", () => {
    expect([0, 1, 2].map((k) => dealtTemplate(candidates, 4, k, 9))).toEqual(
      ["a", "b", "c"].map((_, k) => candidates[(9 + 4 + k) % 3]),
    );
    expect(new Set([0, 1, 2].map((k) => dealtTemplate(candidates, 4, k, 9))).size).toBe(3);
  });

  it("moves which world gets which template with the offset", () => {
    expect(dealtTemplate(candidates, 0, 0, 0)).not.toBe(dealtTemplate(candidates, 0, 0, 1));
  });

  it("refuses an empty deck", () => {
    expect(() => dealtTemplate([], 0, 0, 0)).toThrow(/no candidates/);
  });
});
