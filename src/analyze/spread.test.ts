import { describe, expect, it } from "vitest";
import { spread } from "./spread.js";

describe("spread", () => {
  it("is max − min on both scales, with the ½ correction on log-odds", () => {
    const s = spread([
      { passes: 9, n: 10 },
      { passes: 1, n: 10 },
      { passes: 5, n: 10 },
    ]);
    expect(s.abs).toBeCloseTo(0.8);
    // (9.5/11) vs (1.5/11): log(9.5/1.5) − log(1.5/9.5) = 2·log(9.5/1.5).
    expect(s.log_odds).toBeCloseTo(2 * Math.log(9.5 / 1.5));
  });

  it("stays finite at 0% and 100% and needs two models", () => {
    const s = spread([
      { passes: 0, n: 4 },
      { passes: 4, n: 4 },
    ]);
    expect(s.abs).toBe(1);
    expect(Number.isFinite(s.log_odds)).toBe(true);
    expect(
      spread([
        { passes: 1, n: 2 },
        { passes: 0, n: 0 },
      ]),
    ).toEqual({ abs: null, log_odds: null });
  });
});
