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
import { MALFORMED_FIXTURES, OFFICIAL_FIXTURES, officialSample } from "../../test/support/official-sample.js";
import { skipWithout } from "../../test/support/skip-without.js";
import { openStore, readRunManifest } from "../run/store.js";
import { TrialRecordSchema } from "../run/trial-record.js";
import { buildReport } from "./build-report.js";
import { importOfficial } from "./import-official.js";
import { parseTaskId } from "./task-id.js";

const sample = officialSample();
/** One well-formed fixture trial (a pass, plain-string assistant content). */
const ONE = { agent: "brook-7b", name: "v56-w04-sub03-t4.json" };
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

describe("importOfficial on the fixture transcripts", () => {
  it("imports 27 trials of 5 models: 2 unscored, 11 passes, 2 abstentions, every row as the files say", async () => {
    const out = tmp();
    const res = await importOfficial(OFFICIAL_FIXTURES, out);
    expect(res.success).toBe(true);
    if (!res.success) return;
    const r = res.data;
    expect(r).toMatchObject({ files: 27, imported: 27, unscored: 2, scored: 25, malformed: [] });
    expect(r.agents).toEqual(["atlas-large", "atlas-small", "brook-7b", "cinder-flash", "delta-pro"]);
    expect(r.bank_hashes).toEqual(["official-1.0:v56"]);

    const store = openStore(out, { readonly: true });
    const recs = [...store.all()];
    store.close();
    expect(recs).toHaveLength(27);
    for (const rec of recs) expect(TrialRecordSchema.safeParse(rec).success).toBe(true);
    const unscored = recs
      .filter((x) => x.outcome === "unscored")
      .map((x) => `${x.agent}/${x.task_id}-t${x.epoch}`);
    expect(unscored.sort()).toEqual(["delta-pro/v56-w01-chain-1to03-t3", "delta-pro/v56-w02-chain-1to20-t2"]);
    for (const x of recs.filter((x) => x.outcome === "unscored")) {
      expect(x).toMatchObject({ passed: null, g1_passed: null, g2_passed: null, partial_score: null });
    }
    // The pass/fail split and the G1/G2 flags as the verifier wrote them.
    expect(recs.filter((x) => x.passed === true)).toHaveLength(11);
    const abstained = recs.filter((x) => x.outcome === "abstained");
    expect(abstained.map((x) => [x.agent, x.task_id, x.stop_reason]).sort()).toEqual([
      ["atlas-small", "v56-w01-sub02", "clarify"],
      ["atlas-small", "v56-w02-sub05", "report_blocked"],
    ]);
    const ch = recs.find(
      (x) => x.agent === "atlas-large" && x.task_id === "v56-w01-chain-1to03" && x.epoch === 2,
    )!;
    expect(ch).toMatchObject({ kind: "chain", length: 3, world: "w01", g1_passed: true, g2_passed: true });
    expect(ch).toMatchObject({ partial_score: 1, duration_s: 44.02 });
    expect(ch.tokens).toEqual({ input: 9, output: 1204, cache_read: 30112, cache_write: 0, total: 31837 });
    const g1Only = recs.find((x) => x.agent === "cinder-flash" && x.task_id === "v56-w01-chain-1to03")!;
    expect(g1Only).toMatchObject({ passed: false, g1_passed: false, g2_passed: true, partial_score: 0.667 });
    expect(g1Only.failure_reason).toMatch(
      /^2\/3 predicates matched; failed: G1 state; first failure: data_flow/,
    );
    // Transcripts are linked where the report's viewer looks for them.
    expect(existsSync(join(out, ch.transcript!))).toBe(true);
    expect(readRunManifest(out)).toMatchObject({ source: "import-official", bank_hash: "official-1.0:v56" });

    const report = buildReport(recs, { resamples: 200 });
    expect(report.trials).toMatchObject({ total: 27, scored: 25, unscored: 2 });
    const byModel = Object.fromEntries(
      Object.entries(report.models).map(([m, x]) => [m, [x.n, x.pass_rate]]),
    );
    expect(byModel).toEqual({
      "atlas-large": [5, 0.8],
      "atlas-small": [5, 0.2],
      "brook-7b": [5, 0.2],
      "cinder-flash": [7, 3 / 7],
      "delta-pro": [3, 2 / 3],
    });
    expect(report.models["delta-pro"]?.trials).toEqual({
      total: 5,
      scored: 3,
      unscored: 2,
      by_outcome: { pass: 2, fail: 1, unscored: 2 },
    });
    expect(report.slices.solo).toMatchObject({ n: 16, passes: 8 });
    expect(report.slices.chain).toMatchObject({ n: 9, passes: 3, unscored: 2 });
    expect(Object.keys(report.slices.chain_by_length)).toEqual(["3", "4", "20"]);

    // Importing again changes nothing.
    const again = await importOfficial(OFFICIAL_FIXTURES, out);
    expect(again.success && again.data.imported).toBe(27);
    const store2 = openStore(out, { readonly: true });
    expect(store2.count()).toBe(27);
    store2.close();
  });

  it("counts and names malformed files, never crashes", async () => {
    const src = tmp();
    cpSync(MALFORMED_FIXTURES, src, { recursive: true });
    writeFileSync(join(src, "brook-7b", "v56-w01-sub03-t1.json"), "{}");
    chmodSync(join(src, "brook-7b", "v56-w01-sub03-t1.json"), 0o000);
    const res = await importOfficial(src, tmp(), { transcripts: "reference" });
    if (!res.success) throw new Error(res.error.message);
    // The good file, and the one whose G2 detail only `regrade-official` reads.
    expect(res.data.imported).toBe(2);
    expect(res.data.files).toBe(10);
    const codes = Object.fromEntries(
      res.data.malformed.map((m) => [m.path.replace("brook-7b/", ""), m.code]),
    );
    // Root reads an unreadable file anyway (then `{}` fails the schema); anyone else gets `unreadable`.
    expect(["unreadable", "schema"]).toContain(codes["v56-w01-sub03-t1.json"]);
    delete codes["v56-w01-sub03-t1.json"];
    expect(codes).toEqual({
      "v56-w01-sub01-t1.json": "invalid_json", // not JSON
      "v56-w01-sub04-t1.json": "invalid_json", // cut short
      "v56-w04-sub01-t1.json": "invalid_json", // a byte-order mark
      "v56-w01-sub05-t1.json": "schema", // no model, no messages
      "v56-w01-sub06-t1.json": "schema", // messages not an array
      "v56-w02-sub00-t1.json": "task_id", // no subtask 0
      "v56-w04-sub03-t9.json": "name_mismatch", // the file says trial 4
    });
  });

  it("reports a missing directory as data", async () => {
    const res = await importOfficial(join(tmp(), "missing"), tmp());
    expect(res.success).toBe(false);
    if (!res.success) expect(res.error.code).toBe("source_missing");
  });
});

describe.skipIf(skipWithout("the published 1.0 sample", sample.missing))(
  "importOfficial on the published sample (APIFLOW_OFFICIAL_SAMPLE)",
  () => {
    it("imports 242 trials of 24 models, 2 unscored, 6 passes in 10 scored per model", async () => {
      const out = tmp();
      const res = await importOfficial(sample.dir!, out);
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
      expect(readRunManifest(out)).toMatchObject({
        source: "import-official",
        bank_hash: "official-1.0:v56",
      });

      const report = buildReport(recs, { resamples: 200 });
      expect(report.trials).toMatchObject({ total: 242, scored: 240, unscored: 2 });
      for (const m of Object.values(report.models)) {
        expect(m.n).toBe(10);
        expect(m.pass_rate).toBeCloseTo(0.6);
      }
      expect(report.models["qwen3p7-plus"]?.trials).toEqual({
        total: 12,
        scored: 10,
        unscored: 2,
        by_outcome: { pass: 6, fail: 2, abstained: 2, unscored: 2 },
      });
      expect(report.slices.solo).toMatchObject({ n: 120, passes: 72 });
      expect(report.slices.chain).toMatchObject({ n: 120, passes: 72, unscored: 2 });

      // Importing again changes nothing.
      const again = await importOfficial(sample.dir!, out);
      expect(again.success && again.data.imported).toBe(242);
      const store2 = openStore(out, { readonly: true });
      expect(store2.count()).toBe(242);
      store2.close();
    });
  },
);

describe("importOfficial transcript modes", () => {
  it("hard-links transcripts and re-imports over its own links", async () => {
    const src = tmp();
    mkdirSync(join(src, "m"));
    cpSync(join(OFFICIAL_FIXTURES, ONE.agent, ONE.name), join(src, "m", ONE.name));
    const out = tmp();
    for (let i = 0; i < 2; i++) {
      const res = await importOfficial(src, out, { transcripts: "link" });
      expect(res.success && res.data.imported).toBe(1);
    }
    const copied = readFileSync(join(out, "transcripts", "m", ONE.name), "utf8");
    expect(copied).toBe(readFileSync(join(src, "m", ONE.name), "utf8"));
    expect(copied.length).toBeGreaterThan(100);
  });

  it("links by default, and a copy-mode re-import never copies a linked file onto itself", async () => {
    const src = tmp();
    mkdirSync(join(src, "m"));
    const file = join(src, "m", ONE.name);
    cpSync(join(OFFICIAL_FIXTURES, ONE.agent, ONE.name), file);
    const original = readFileSync(file, "utf8");
    const out = tmp();
    const first = await importOfficial(src, out);
    expect(first.success && first.data.imported).toBe(1);
    const dest = join(out, "transcripts", "m", ONE.name);
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
    cpSync(OFFICIAL_FIXTURES, src, { recursive: true });
    writeFileSync(join(src, "atlas-large", "v56-w01-sub01-t1.json"), "{ not json");
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
    expect(inThread.imported).toBe(27);
    expect(threaded.all).toEqual(inThread.all);
    expect(threaded.malformed).toEqual(inThread.malformed);
    expect(inThread.malformed.map((m) => m.code)).toEqual(["invalid_json"]);
  });
});
