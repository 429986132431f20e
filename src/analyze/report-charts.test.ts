import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { buildReport } from "./build-report.js";
import { renderChartSvg, reportCharts } from "./report-charts.js";

describe("report charts", () => {
  it("the cost chart keeps its axis when an agent costs $0", async () => {
    const recs = [
      trial("free", "v56-w01-sub01", 1, "pass", { cost_usd: 0 }),
      trial("paid", "v56-w01-sub01", 1, "pass", { cost_usd: 0.02 }),
      trial("dear", "v56-w01-sub01", 1, "fail", { cost_usd: 0.5 }),
    ];
    const chart = reportCharts(buildReport(recs, { resamples: 0 })).find((c) => c.id === "cost-frontier");
    if (!chart) throw new Error("no cost chart");
    const svg = await renderChartSvg(chart.spec);
    expect(svg).toContain("mean cost per trial (USD)");
    expect(svg).not.toMatch(/NaN|Infinity/);
    // Three points drawn (one per agent), the free one included.
    // The cost axis has its tick labels, $0 among them (a log axis drew none).
    const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    const costTicks = labels.slice(0, labels.indexOf("mean cost per trial (USD)"));
    expect(costTicks[0]).toBe("0.00");
    expect(costTicks.length).toBeGreaterThan(2);
    const points = svg.match(/<path [^>]*aria-roledescription="point"/g) ?? [];
    expect(points.length).toBe(3);
  });
});
