import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore, readRunManifest } from "../run/store.js";
import { TrialRecordSchema } from "../run/trial-record.js";
import { buildReport } from "./build-report.js";
import { importOfficial } from "./import-official.js";
import { parseTaskId } from "./task-id.js";

const SAMPLE = new URL("../../../shared/data/official-transcripts-sample", import.meta.url).pathname;
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-import-"));

describe("parseTaskId", () => {
  it("reads world, kind and position or length", () => {
    expect(parseTaskId("v56-w03-sub07")).toEqual({
      bank: "v56",
      world: "w03",
      kind: "solo",
      position: 7,
      length: null,
    });
    expect(parseTaskId("v56-w03-chain-1to12")).toEqual({
      bank: "v56",
      world: "w03",
      kind: "chain",
      position: null,
      length: 12,
    });
    expect(parseTaskId("v56-w03-chain-2to12")).toBeNull();
    expect(parseTaskId("v56-w03-sub00")).toBeNull();
  });
});

describe("importOfficial on the published sample", () => {
  it("imports 242 trials of 24 models, 2 unscored, 6 passes in 10 scored per model", async () => {
    const out = tmp();
    const res = await importOfficial(SAMPLE, out);
    expect(res.success).toBe(true);
    if (!res.success) return;
    const r = res.data;
    expect(r.files).toBe(242);
    expect(r.imported).toBe(242);
    expect(r.unscored).toBe(2);
    expect(r.scored).toBe(240);
    expect(r.malformed).toEqual([]);
    expect(r.agents).toHaveLength(24);
    expect(r.bank_hashes).toEqual(["official-1.0:v56"]);

    const store = openStore(out, { readonly: true });
    const recs = [...store.all()];
    store.close();
    expect(recs).toHaveLength(242);
    for (const rec of recs) expect(TrialRecordSchema.safeParse(rec).success).toBe(true);
    const unscored = recs
      .filter((x) => x.outcome === "unscored")
      .map((x) => `${x.agent}/${x.task_id}-t${x.epoch}`);
    expect(unscored.sort()).toEqual([
      "qwen3p7-plus/v56-w02-chain-1to03-t3",
      "qwen3p7-plus/v56-w02-chain-1to06-t2",
    ]);
    // The pass/fail split and the G1/G2 flags as the verifier wrote them.
    expect(recs.filter((x) => x.passed === true)).toHaveLength(144);
    expect(recs.filter((x) => x.outcome === "abstained")).toHaveLength(17);
    const ch = recs.find(
      (x) => x.agent === "claude-fable-5" && x.task_id === "v56-w02-chain-1to04" && x.epoch === 3,
    )!;
    expect(ch).toMatchObject({ kind: "chain", length: 4, world: "w02", g1_passed: true, g2_passed: true });
    expect(ch.tokens).toEqual({ input: 10, output: 809, cache_read: 25570, cache_write: 0, total: 29289 });
    // Transcripts are copied where the report's viewer looks for them.
    expect(existsSync(join(out, ch.transcript!))).toBe(true);
    expect(readRunManifest(out)).toMatchObject({ source: "import-official", bank_hash: "official-1.0:v56" });

    const report = buildReport(recs, { resamples: 200 });
    expect(report.trials).toMatchObject({ total: 242, scored: 240, unscored: 2 });
    for (const m of Object.values(report.models)) {
      expect(m.n).toBe(10);
      expect(m.pass_rate).toBeCloseTo(0.6);
    }
    expect(report.models["qwen3p7-plus"]?.trials).toMatchObject({ total: 12, scored: 10, unscored: 2 });
    expect(report.slices.solo).toMatchObject({ n: 120, passes: 72 });
    expect(report.slices.chain).toMatchObject({ n: 120, passes: 72, unscored: 2 });

    // Importing again changes nothing.
    const again = await importOfficial(SAMPLE, out);
    expect(again.success && again.data.imported).toBe(242);
    const store2 = openStore(out, { readonly: true });
    expect(store2.count()).toBe(242);
    store2.close();
  });

  it("counts and names malformed files, never crashes", async () => {
    const src = tmp();
    mkdirSync(join(src, "m"));
    cpSync(join(SAMPLE, "claude-fable-5", "v56-w08-sub19-t1.json"), join(src, "m", "v56-w08-sub19-t1.json"));
    writeFileSync(join(src, "m", "v56-w01-sub01-t1.json"), "{ not json");
    writeFileSync(join(src, "m", "v56-w01-sub02-t1.json"), JSON.stringify({ schema_version: "1.0" }));
    writeFileSync(join(src, "m", "v56-w01-sub03-t1.json"), "{}");
    chmodSync(join(src, "m", "v56-w01-sub03-t1.json"), 0o000);
    cpSync(join(SAMPLE, "claude-fable-5", "v56-w08-sub19-t1.json"), join(src, "m", "v56-w08-sub19-t9.json"));
    writeFileSync(join(src, "_export_manifest.json"), "{}");
    const res = await importOfficial(src, tmp(), { transcripts: "reference" });
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.imported).toBe(1);
    const codes = Object.fromEntries(res.data.malformed.map((m) => [m.path, m.code]));
    expect(codes["m/v56-w01-sub01-t1.json"]).toBe("invalid_json");
    expect(codes["m/v56-w01-sub02-t1.json"]).toBe("schema");
    expect(codes["m/v56-w08-sub19-t9.json"]).toBe("name_mismatch");
    // Root reads an unreadable file anyway; anyone else gets `unreadable`.
    expect(["unreadable", "schema"]).toContain(codes["m/v56-w01-sub03-t1.json"]);
  });

  it("reports a missing directory as data", async () => {
    const res = await importOfficial(join(tmp(), "missing"), tmp());
    expect(res.success).toBe(false);
    if (!res.success) expect(res.error.code).toBe("source_missing");
  });
});

describe("importOfficial transcript modes", () => {
  it("hard-links transcripts and re-imports over its own links", async () => {
    const src = tmp();
    mkdirSync(join(src, "m"));
    cpSync(join(SAMPLE, "claude-fable-5", "v56-w08-sub19-t1.json"), join(src, "m", "v56-w08-sub19-t1.json"));
    const out = tmp();
    for (let i = 0; i < 2; i++) {
      const res = await importOfficial(src, out, { transcripts: "link" });
      expect(res.success && res.data.imported).toBe(1);
    }
    const copied = readFileSync(join(out, "transcripts", "m", "v56-w08-sub19-t1.json"), "utf8");
    expect(copied).toBe(readFileSync(join(src, "m", "v56-w08-sub19-t1.json"), "utf8"));
    expect(copied.length).toBeGreaterThan(100);
  });

  it("links by default, and a copy-mode re-import never copies a linked file onto itself", async () => {
    const src = tmp();
    mkdirSync(join(src, "m"));
    const file = join(src, "m", "v56-w08-sub19-t1.json");
    cpSync(join(SAMPLE, "claude-fable-5", "v56-w08-sub19-t1.json"), file);
    const original = readFileSync(file, "utf8");
    const out = tmp();
    const first = await importOfficial(src, out);
    expect(first.success && first.data.imported).toBe(1);
    const dest = join(out, "transcripts", "m", "v56-w08-sub19-t1.json");
    expect(statSync(dest).ino).toBe(statSync(file).ino);
    expect(readRunManifest(out)).toMatchObject({ transcripts: "link" });
    const again = await importOfficial(src, out, { transcripts: "copy" });
    expect(again.success && again.data.imported).toBe(1);
    expect(readFileSync(file, "utf8")).toBe(original);
  });
});

describe("importOfficial parse threads", () => {
  it("gives the same rows and the same malformed files on the calling thread and on workers", async () => {
    const src = tmp();
    cpSync(SAMPLE, src, { recursive: true });
    writeFileSync(join(src, "claude-fable-5", "v56-w01-sub01-t1.json"), "{ not json");
    const rows = async (workers: number) => {
      const out = tmp();
      const res = await importOfficial(src, out, { workers, transcripts: "reference", filesPerBatch: 5 });
      if (!res.success) throw new Error(res.error.message);
      const store = openStore(out, { readonly: true });
      const all = [...store.all()];
      store.close();
      return { all, malformed: res.data.malformed, imported: res.data.imported };
    };
    const inThread = await rows(0);
    const threaded = await rows(2);
    expect(inThread.imported).toBe(242);
    expect(threaded.all).toEqual(inThread.all);
    expect(threaded.malformed).toEqual(inThread.malformed);
    expect(inThread.malformed.map((m) => m.code)).toEqual(["invalid_json"]);
  });
});
