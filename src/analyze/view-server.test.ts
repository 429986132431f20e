import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { startViewServer, viewTranscriptBase } from "./view-server.js";

describe("startViewServer", () => {
  it("serves the page and the runs' transcripts on 127.0.0.1, and nothing else", async () => {
    const run = mkdtempSync(join(tmpdir(), "apiflow-view-"));
    mkdirSync(join(run, "transcripts", "m"), { recursive: true });
    writeFileSync(join(run, "transcripts", "m", "v56-w01-sub01-t1.json"), '{"task_id":"v56-w01-sub01"}');
    writeFileSync(join(run, "secret.txt"), "no");
    const rec = trial("m", "v56-w01-sub01", 1, "pass", { transcript: "transcripts/m/v56-w01-sub01-t1.json" });
    const server = await startViewServer("<!doctype html><p>hi</p>", [{ record: rec, run: 0 }], [run]);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(await (await fetch(server.url)).text()).toContain("<p>hi</p>");
      const tx = await fetch(`${server.url.slice(0, -1)}${viewTranscriptBase(0)}${rec.transcript}`);
      expect(await tx.json()).toEqual({ task_id: "v56-w01-sub01" });
      expect((await fetch(`${server.url}runs/0/secret.txt`)).status).toBe(404);
      expect((await fetch(`${server.url}runs/0/../secret.txt`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
