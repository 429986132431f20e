import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissing, launchHeadlessChromium } from "../../test/support/headless-chromium.js";
import { scriptedRunInTempDir } from "../../test/support/scripted-run.js";
import { skipWithout } from "../../test/support/skip-without.js";
import { blankAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { defaultBankContent } from "../generate/default-bank.js";

// Issue 15 item 6: the viewer's evidence pane names the ticket requirement each failed check holds.

describe("the viewer names the requirement a failed check holds", () => {
  it.skipIf(skipWithout("Chromium", chromiumMissing()))(
    "shows `requirement <id>` beside each predicate of a task with requirements",
    async () => {
      const content = defaultBankContent();
      const task = content.tasks.find((t) => t.kind === "solo" && (t.requirements ?? []).length > 0);
      if (!task) throw new Error("no task with requirements");
      const bank = bankFromContent({ ...content, tasks: [task] });
      const { runDir } = await scriptedRunInTempDir(bank, [blankAgentFactory]);
      expect(await runCli(["report", ".", "--html", "page.html"], bufferIo({}, runDir))).toBe(0);
      const context = await launchHeadlessChromium();
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
