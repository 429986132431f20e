import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { costFrontier, costSummary } from "./cost.js";

describe("cost", () => {
  it("averages price over priced trials and tokens over all", () => {
    const c = costSummary([
      trial("a", "v56-w01-sub01", 1, "pass", { cost_usd: 0.1 }),
      trial("a", "v56-w01-sub01", 2, "fail", { cost_usd: 0.3 }),
      trial("a", "v56-w01-sub01", 3, "unscored"),
    ]);
    expect(c.mean_cost_usd).toBeCloseTo(0.2);
    expect(c.n_priced).toBe(2);
    expect(c.mean_tokens).toBe(150);
  });

  it("keeps the agents no other beats on both cost and pass rate", () => {
    const cost = (usd: number | null) => ({
      mean_cost_usd: usd,
      n_priced: 1,
      mean_tokens: 1000 * (usd ?? 1),
      n: 1,
    });
    const f = costFrontier([
      { agent: "cheap", cost: cost(0.01), pass_rate: 0.3 },
      { agent: "dominated", cost: cost(0.05), pass_rate: 0.2 },
      { agent: "mid", cost: cost(0.05), pass_rate: 0.5 },
      { agent: "best", cost: cost(0.5), pass_rate: 0.8 },
      { agent: "pricey", cost: cost(0.9), pass_rate: 0.8 },
    ]);
    expect(f.basis).toBe("cost_usd");
    expect(f.points.filter((p) => p.on_frontier).map((p) => p.agent)).toEqual(["cheap", "mid", "best"]);
    // One agent without prices: the frontier falls back to tokens.
    expect(costFrontier([{ agent: "x", cost: cost(null), pass_rate: 0.1 }]).basis).toBe("tokens");
  });
});
