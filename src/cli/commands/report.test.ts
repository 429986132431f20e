import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { chromiumMissing, launchHeadlessChromium } from "../../../test/support/headless-chromium.js";
import { OFFICIAL_FIXTURES, officialSample } from "../../../test/support/official-sample.js";
import { skipWithout } from "../../../test/support/skip-without.js";
import { ReportSchema } from "../../analyze/report-schema.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const sample = officialSample();
const CHARTS = ["chain-length", "reliability", "heatmap", "failure-composition", "cost-frontier", "items"];

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "apiflow-report-"));
  const io = bufferIo({}, dir);
  expect(await runCli(["import", "official", OFFICIAL_FIXTURES, "--out", "run"], io)).toBe(0);
  expect(io.out()).toContain("trials imported   27 (25 scored, 2 unscored)");
});

describe("apiflow import official", () => {
  it("is a one-line error for a missing directory", async () => {
    const io = bufferIo({}, dir);
    expect(await runCli(["import", "official", "nope", "--out", "x"], io)).toBe(2);
    expect(io.err().trim().split("\n")).toHaveLength(1);
    expect(io.err()).toMatch(/^apiflow: import official: cannot read .*nope/);
  });

  it.skipIf(skipWithout("the published 1.0 sample", sample.missing))(
    "imports the published 1.0 sample (APIFLOW_OFFICIAL_SAMPLE): 242 trials, 2 unscored",
    async () => {
      const io = bufferIo({}, dir);
      expect(await runCli(["import", "official", sample.dir!, "--out", "sample-run"], io)).toBe(0);
      expect(io.out()).toContain("trials imported   242 (240 scored, 2 unscored)");
    },
  );
});

describe("apiflow report", () => {
  it("prints terminal tables by default", async () => {
    const io = bufferIo({}, dir);
    expect(await runCli(["report", "run"], io)).toBe(0);
    expect(io.out()).toContain("Models (90% CI");
    expect(io.out()).toContain("delta-pro");
    expect(io.out()).toMatch(/Chains by length against the independent-error null/);
    expect(io.out()).toContain("cluster-robust");
    expect(io.out()).not.toContain("Items (per task)");
  });

  it("prints the item table with --items, one row per task with a scored trial", async () => {
    const io = bufferIo({}, dir);
    expect(await runCli(["report", "run", "--items"], io)).toBe(0);
    expect(io.out()).toContain("Items: spread of difficulty");
    expect(await runCli(["report", "run", "--items", "--json", "items.json"], bufferIo({}, dir))).toBe(0);
    const report = ReportSchema.parse(JSON.parse(readFileSync(join(dir, "items.json"), "utf8")));
    const ids = report.items!.items.map((t) => t.task_id);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(io.out()).toContain(id);
    // The page: the item chart, and each task of the item table linked to its transcripts.
    expect(await runCli(["report", "run", "--items", "--html", "items.html"], bufferIo({}, dir))).toBe(0);
    const html = readFileSync(join(dir, "items.html"), "utf8");
    expect(html).toContain('<figure class="chart" data-chart="items">');
    expect(html).toContain(`<td><a href="#task=${ids[0]}">${ids[0]}</a></td>`);
  });

  it("refuses a missing run or a bad flag in one line", async () => {
    for (const args of [
      ["report", "missing"],
      ["report", "run", "--embed-limit", "-1"],
      ["report", "run", "--bootstrap", "200"],
      ["report", "run", "--seed", "s"],
      ["compare", "run", "run", "--bootstrap", "300"],
      ["compare", "run", "run", "--seed", "s"],
    ]) {
      const io = bufferIo({}, dir);
      expect(await runCli(args, io)).toBe(2);
      expect(io.err().trim().split("\n")).toHaveLength(1);
      if (args.some((a) => a === "--bootstrap" || a === "--seed"))
        expect(io.err()).toMatch(/was removed: the 90% intervals are closed-form/);
    }
  });

  it("writes JSON in the report schema, Markdown and HTML", async () => {
    const io = bufferIo({}, dir);
    const args = ["report", "run", "--json", "r.json", "--md", "r.md", "--html", "r.html"];
    expect(await runCli(args, io)).toBe(0);
    const report = ReportSchema.parse(JSON.parse(readFileSync(join(dir, "r.json"), "utf8")));
    expect(report.trials).toMatchObject({ total: 27, scored: 25, unscored: 2 });
    expect(Object.keys(report.models)).toHaveLength(5);
    expect(report.interval).toMatchObject({ level: 0.9, min_clusters: 10 });
    expect(report.interval.method).toMatch(/cluster-robust/);
    expect(report.items).toBeUndefined();
    expect(Object.keys(report.slices.chain_by_length)).toContain("20");
    // Deterministic: the same runs give the same report.
    const io2 = bufferIo({}, dir);
    await runCli(["report", "run", "--json", "r2.json"], io2);
    expect(readFileSync(join(dir, "r2.json"), "utf8")).toBe(readFileSync(join(dir, "r.json"), "utf8"));
    expect(readFileSync(join(dir, "r.md"), "utf8")).toMatch(/^# APIFlow-Bench report/);
    expect(existsSync(join(dir, "r.html"))).toBe(true);
  });

  it.skipIf(skipWithout("Chromium", chromiumMissing()))(
    "renders a page that works offline in Chromium: no console errors, every chart drawn, a transcript opens",
    async () => {
      const html = join(dir, "page.html");
      const io = bufferIo({}, dir);
      expect(await runCli(["report", "run", "--items", "--html", "page.html"], io)).toBe(0);
      // A fresh profile per run: nothing cached or synced from a previous one.
      const context = await launchHeadlessChromium();
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("console", (m) => {
          if (m.type() === "error") errors.push(m.text());
        });
        page.on("pageerror", (e) => errors.push(e.message));
        // Offline: any request leaving the page fails the test.
        const requests: string[] = [];
        page.on("request", (r) => {
          if (!r.url().startsWith("file:") && !r.url().startsWith("data:")) requests.push(r.url());
        });
        await page.goto(`file://${html}`);
        for (const id of CHARTS) {
          const figure = page.locator(`figure[data-chart="${id}"] svg`);
          expect(await figure.count(), id).toBe(1);
          const box = await figure.boundingBox();
          expect(box?.width ?? 0, id).toBeGreaterThan(50);
          // Non-empty: the chart drew marks (paths, symbols or rects), not just axes.
          const marks = await page
            .locator(
              `figure[data-chart="${id}"] svg g.mark-symbol path, figure[data-chart="${id}"] svg g.mark-rect path, figure[data-chart="${id}"] svg g.mark-line path`,
            )
            .count();
          expect(marks, id).toBeGreaterThan(0);
        }
        await page.selectOption("#filter-model", "delta-pro");
        await page.locator("button.trial").first().click();
        await page.waitForSelector("#transcript ol.messages li.msg");
        expect(await page.locator("#transcript h3").textContent()).toContain("delta-pro");
        expect(await page.locator("#transcript li.msg").count()).toBeGreaterThan(2);
        // The item chart: one click on a task's point opens that task's transcript. The last point
        // is drawn on top, so the click lands on it and not on a point under it.
        const link = page.locator('figure[data-chart="items"] svg a').last();
        const href = (await link.getAttribute("xlink:href")) ?? (await link.getAttribute("href"));
        const task = decodeURIComponent(href!.replace("#task=", ""));
        await link.locator("path").click();
        await page.locator("#transcript h3", { hasText: task }).waitFor();
        expect(await page.locator("#filter-task").inputValue()).toBe(task);
        expect(errors).toEqual([]);
        expect(requests).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
