import { describe, expect, it } from "vitest";
import { worldLayout } from "./world-layout.js";

describe("worldLayout", () => {
  it("deals every auth scheme and archetype, evenly, the same way for the same seed", () => {
    const layout = worldLayout("apiflow-1", 13);
    const count = (f: (o: (typeof layout)[number]) => string | undefined) => {
      const n = new Map<string, number>();
      for (const o of layout) n.set(f(o) ?? "", (n.get(f(o) ?? "") ?? 0) + 1);
      return n;
    };
    expect([...count((o) => o.auth).values()].sort()).toEqual([4, 4, 5]);
    expect([...count((o) => o.archetype).values()].sort()).toEqual([3, 3, 3, 4]);
    expect(worldLayout("apiflow-1", 13)).toEqual(layout);
  });

  it("deals another seed another assignment", () => {
    expect(worldLayout("private-7", 13)).not.toEqual(worldLayout("apiflow-1", 13));
  });
});
