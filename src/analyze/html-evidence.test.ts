import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chromiumMissing, launchHeadlessChromium } from "../../test/support/headless-chromium.js";
import { scriptedRunInTempDir } from "../../test/support/scripted-run.js";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { skipWithout } from "../../test/support/skip-without.js";
import { blankAgentFactory, goldenAgentFactory } from "../agents/scripted-agents.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { ExplanationSchema } from "../grade/explain-verdict.js";
import { openStore } from "../run/store.js";
import { startViewServer, viewTranscriptBase } from "./view-server.js";

const bank = skeletonBank();
const { runDir } = await scriptedRunInTempDir(bank, [goldenAgentFactory, blankAgentFactory], {
  tasks: bank.tasks.slice(0, 1),
  concurrency: 2,
});

describe("the viewer's evidence pane", () => {
  it("apiflow view serves each transcript's explanation from its stored log", async () => {
    const store = openStore(runDir, { readonly: true });
    const trials = [...store.all()].map((record) => ({ record, run: 0 }));
    store.close();
    const server = await startViewServer("<!doctype html>", trials, [runDir]);
    try {
      const golden = trials.find((t) => t.record.agent === "golden")!.record;
      const res = await fetch(
        `${server.url.slice(0, -1)}${viewTranscriptBase(0)}${golden.transcript}.explain.json`,
      );
      const ex = ExplanationSchema.parse(await res.json());
      expect(ex.passed).toBe(true);
      expect((await fetch(`${server.url}runs/0/transcripts/x.json.explain.json`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it.skipIf(skipWithout("Chromium", chromiumMissing()))(
    "the HTML page shows a pass's and a fail's evidence beside the transcript",
    async () => {
      const io = bufferIo({}, runDir);
      expect(await runCli(["report", ".", "--html", "page.html"], io)).toBe(0);
      const context = await launchHeadlessChromium();
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        await page.goto(`file://${join(runDir, "page.html")}`);
        for (const [agent, want] of [
          ["golden", "satisfied by: #"],
          ["blank", "no answer card"],
        ] as const) {
          await page.selectOption("#filter-model", agent);
          await page.locator("button.trial").first().click();
          await page.waitForSelector("#transcript .tx-body .evidence li.predicate");
          const text = (await page.locator("#transcript .evidence").textContent()) ?? "";
          expect(text, agent).toContain(want);
          const bad = await page.locator("#transcript .evidence li.predicate.bad").count();
          if (agent === "golden") expect(bad).toBe(0);
          else expect(bad).toBeGreaterThan(0);
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
  );
});
