import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rawGet } from "../../test/support/raw-http.js";
import { trial } from "../../test/support/test-records.js";
import { startViewServer, viewTranscriptBase } from "./view-server.js";

describe("startViewServer", () => {
  it("serves the page and the runs' transcripts on 127.0.0.1, and nothing else", async () => {
    const run = mkdtempSync(join(tmpdir(), "apiflow-view-"));
    mkdirSync(join(run, "transcripts", "m"), { recursive: true });
    writeFileSync(join(run, "transcripts", "m", "v56-w01-sub01-t1.json"), '{"task_id":"v56-w01-sub01"}');
    writeFileSync(join(run, "secret.txt"), "TOP-SECRET");
    const rec = trial("m", "v56-w01-sub01", 1, "pass", { transcript: "transcripts/m/v56-w01-sub01-t1.json" });
    const server = await startViewServer("<!doctype html><p>hi</p>", [{ record: rec, run: 0 }], [run]);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(await (await fetch(server.url)).text()).toContain("<p>hi</p>");
      const tx = await fetch(`${server.url.slice(0, -1)}${viewTranscriptBase(0)}${rec.transcript}`);
      expect(await tx.json()).toEqual({ task_id: "v56-w01-sub01" });
      expect((await fetch(`${server.url}runs/0/secret.txt`)).status).toBe(404);
      // Sent byte for byte (fetch would resolve `..` before sending): the server itself must refuse.
      const port = Number(new URL(server.url).port);
      for (const target of [
        "/runs/0/../secret.txt",
        "/runs/0/transcripts/m/../../secret.txt",
        "/runs/0/%2e%2e/secret.txt",
        "/runs/0/%2E%2E%2Fsecret.txt",
        "/runs/0/transcripts/..%2f..%2fsecret.txt",
        `/runs/0/${join(run, "secret.txt")}`,
      ]) {
        const r = await rawGet(port, target);
        expect(r.status, target).toBe(404);
        expect(r.text, target).not.toContain("TOP-SECRET");
      }
      // The same raw request reaches a transcript that is served, so the refusals above are the server's.
      expect((await rawGet(port, `/runs/0/${rec.transcript}`)).text).toContain("v56-w01-sub01");
    } finally {
      await server.close();
    }
  });

  it("answers malformed URLs with 400 and stays up: bad percent-encoding, NUL bytes, an over-long path", async () => {
    const server = await startViewServer("<!doctype html><p>hi</p>", [], []);
    const port = Number(new URL(server.url).port);
    try {
      for (const [target, status, reason] of [
        ["/%E0%A4%A", 400, "not valid percent-encoding"],
        ["/runs/0/%ZZ", 400, "not valid percent-encoding"],
        ["/runs/0/a%00b.json", 400, "NUL"],
        [`/runs/${"a".repeat(5000)}`, 400, "longer than 4096"],
        // Node's own parser answers a raw NUL (400) and a request line past its header limit (431).
        [Buffer.from("/runs/0/a\0b"), 400, ""],
        [`/${"a".repeat(70_000)}`, 431, ""],
      ] as const) {
        const r = await rawGet(port, target);
        expect(r.status, String(target).slice(0, 40)).toBe(status);
        expect(r.text).toContain(reason);
        // Still up: the page answers after each.
        expect((await rawGet(port, "/")).text).toContain("<p>hi</p>");
      }
    } finally {
      await server.close();
    }
  });
});
