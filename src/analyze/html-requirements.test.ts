import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { blankAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { DEFAULT_PRICE_TABLE } from "../run/price-table.js";
import { runIntoDir } from "../run/run-into-dir.js";

// Issue 15 item 6: the viewer's evidence pane names the ticket requirement each failed check holds.
const CHROMIUM = "/usr/bin/chromium";

describe("the viewer names the requirement a failed check holds", () => {
  it.skipIf(!existsSync(CHROMIUM))(
    "shows `requirement <id>` beside each predicate of a task with requirements",
    async () => {
      const content = defaultBankContent();
      const task = content.tasks.find((t) => t.kind === "solo" && (t.requirements ?? []).length > 0);
      if (!task) throw new Error("no task with requirements");
      const bank = bankFromContent({ ...content, tasks: [task] });
      const runDir = mkdtempSync(join(tmpdir(), "apiflow-requirements-"));
      const ran = await runIntoDir({
        runDir,
        bank,
        agents: [{ factory: blankAgentFactory, settings: { kind: "scripted" as const } }],
        tasks: bank.tasks,
        epochs: 1,
        concurrency: 1,
        priceTable: DEFAULT_PRICE_TABLE,
      });
      if (!ran.success) throw new Error(ran.error.message);
      expect(await runCli(["report", ".", "--html", "page.html"], bufferIo({}, runDir))).toBe(0);
      const context = await chromium.launchPersistentContext(
        mkdtempSync(join(tmpdir(), "apiflow-chromium-")),
        {
          executablePath: CHROMIUM,
          args: [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
          ],
        },
      );
      try {
        const page = await context.newPage();
        await page.goto(`file://${join(runDir, "page.html")}`);
        await page.locator("button.trial").first().click();
        await page.waitForSelector("#transcript .evidence li.predicate.bad");
        const failed = await page.locator("#transcript .evidence li.predicate.bad > div").allTextContents();
        const held = (task.requirements ?? []).map((r) => r.id);
        // Every failed G1 predicate of this grader holds a requirement, and the pane says which.
        const g1 = failed.filter((t) => / G1 /.test(t));
        expect(g1.length).toBeGreaterThan(0);
        for (const line of g1) {
          const named = line.match(/— requirement (\S+)$/)?.[1];
          expect(named, line).toBeDefined();
          expect(held).toContain(named);
        }
      } finally {
        await context.close();
      }
    },
    120_000,
  );
});
