import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore, readRunManifest, tryOpenStore, writeRunManifest } from "./store.js";
import { type TrialRecord, TrialRecordSchema } from "./trial-record.js";

/** A valid record; override what a test cares about. */
function sampleRecord(over: Partial<TrialRecord> = {}): TrialRecord {
  return {
    bank_hash: "bank-1",
    agent: "golden",
    task_id: "v56-w01-sub01",
    epoch: 1,
    world: "w01",
    kind: "solo",
    position: 1,
    length: null,
    axis: null,
    outcome: "pass",
    passed: true,
    g1_passed: true,
    g2_passed: true,
    failure_reason: "",
    partial_score: 1,
    tokens: { input: 10, output: 5, cache_read: 0, cache_write: 0, total: 15 },
    cost_usd: null,
    duration_s: 1.5,
    stop_reason: "answer",
    transcript: "transcripts/golden/v56-w01-sub01-t1.json",
    ...over,
  };
}

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-store-"));

describe("results store", () => {
  it("records, finds and upserts idempotently", () => {
    const dir = tmp();
    const store = openStore(dir);
    const rec = sampleRecord();
    expect(store.has(rec)).toBe(false);
    store.record(rec);
    store.record(rec);
    expect(store.count()).toBe(1);
    expect(store.has(rec)).toBe(true);
    expect(store.get(rec)).toEqual(rec);
    store.record({ ...rec, outcome: "fail", passed: false, g2_passed: false });
    expect(store.get(rec)?.outcome).toBe("fail");
    store.recordMany([
      sampleRecord({ epoch: 2 }),
      sampleRecord({ task_id: "v56-w01-chain-1to02", kind: "chain", position: null, length: 2 }),
    ]);
    expect(store.count()).toBe(3);
    expect([...store.all()].map((r) => `${r.task_id}/${r.epoch}`)).toEqual([
      "v56-w01-chain-1to02/1",
      "v56-w01-sub01/1",
      "v56-w01-sub01/2",
    ]);
    expect(store.query({ kind: "chain" })).toHaveLength(1);
    store.close();
    // Reopening sees the same rows.
    const again = openStore(dir, { readonly: true });
    expect(again.count()).toBe(3);
    again.close();
  });

  it("refuses an invalid record and writes nothing of its batch", () => {
    const store = openStore(tmp());
    expect(() => store.recordMany([sampleRecord(), sampleRecord({ epoch: 2, passed: null })])).toThrow();
    expect(store.count()).toBe(0);
    store.close();
  });

  it("checks that passed agrees with the outcome", () => {
    expect(TrialRecordSchema.safeParse(sampleRecord({ outcome: "unscored", passed: null })).success).toBe(
      true,
    );
    expect(TrialRecordSchema.safeParse(sampleRecord({ outcome: "unscored", passed: false })).success).toBe(
      false,
    );
    expect(TrialRecordSchema.safeParse(sampleRecord({ outcome: "abstained", passed: false })).success).toBe(
      true,
    );
  });

  it("reports a missing store as data", () => {
    const res = tryOpenStore(join(tmp(), "nope"), { readonly: true });
    expect(res.success).toBe(false);
    if (!res.success) expect(res.error.code).toBe("store_unreadable");
  });

  it("round-trips the run manifest", () => {
    const dir = tmp();
    expect(readRunManifest(dir)).toBeNull();
    writeRunManifest(dir, {
      schema_version: 1,
      source: "run",
      created: "now",
      bank_hash: "b",
      agents: ["golden"],
    });
    expect(readRunManifest(dir)?.agents).toEqual(["golden"]);
  });

  it("survives kill -9 mid-write: it opens and holds whole rows only", async () => {
    const dir = tmp();
    const storeModule = fileURLToPath(new URL("./store.ts", import.meta.url));
    const script = join(dir, "writer.ts");
    // The writer records trials one transaction each, as fast as it can, until it is killed.
    writeFileSync(
      script,
      `import { openStore } from ${JSON.stringify(storeModule)};
const rec = ${JSON.stringify(sampleRecord({ failure_reason: "x".repeat(2000) }))};
const store = openStore(${JSON.stringify(dir)});
for (let epoch = 1; ; epoch++) {
  store.record({ ...rec, epoch });
  if (epoch === 200) process.stdout.write("ready\\n");
}
`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("ready")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`writer exited early (${code})`)));
    });
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    const db = new Database(join(dir, "results.sqlite"));
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
    const store = openStore(dir);
    const rows = [...store.all()];
    expect(rows.length).toBeGreaterThanOrEqual(200);
    for (const row of rows) expect(TrialRecordSchema.safeParse(row).success).toBe(true);
    // Epochs are contiguous: no row is missing in the middle, none is half there.
    expect(rows.map((r) => r.epoch).sort((a, b) => a - b)).toEqual(rows.map((_, i) => i + 1));
    store.close();
  });
});
