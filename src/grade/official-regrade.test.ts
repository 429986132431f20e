import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MALFORMED_FIXTURES, OFFICIAL_FIXTURES, officialSample } from "../../test/support/official-sample.js";
import { skipWithout } from "../../test/support/skip-without.js";
import { OfficialRegradeSchema, regradeOfficial } from "./official-regrade.js";

const sample = officialSample();

describe("regrade of the fixture transcripts", () => {
  it("agrees with every recorded G2 field: verdict, value read and reason", async () => {
    // The fixtures record 1.0's grades by hand: the last of three ```json blocks, a card drafted only
    // in the reasoning, a bare fence, a trailing comma, sets, numeric strings, nulls, JSON true.
    const r = await regradeOfficial(OFFICIAL_FIXTURES);
    if (!r.success) throw new Error(r.error.message);
    expect(OfficialRegradeSchema.safeParse(r.data).success).toBe(true);
    expect(r.data).toMatchObject({ malformed: [], trials: 27, unscored: 2, fields: 50 });
    expect(r.data.disagreements).toEqual([]);
    expect(r.data.field_disagreements).toBe(0);
    expect(r.data.trial_disagreements).toBe(0);
  });

  it("names each malformed fixture file and regrades the rest", async () => {
    const r = await regradeOfficial(MALFORMED_FIXTURES);
    if (!r.success) throw new Error(r.error.message);
    // The good file, its copy under a wrong trial number and the one with task id sub00: the
    // regrade reads transcripts, not file names or task ids.
    expect(r.data).toMatchObject({ trials: 3, fields: 6, field_disagreements: 0 });
    expect(r.data.malformed.map((m) => [m.file.replace("brook-7b/", ""), m.code])).toEqual([
      ["v56-w01-sub01-t1.json", "not-json"],
      ["v56-w01-sub04-t1.json", "not-json"],
      ["v56-w01-sub05-t1.json", "not-a-transcript"],
      ["v56-w01-sub06-t1.json", "not-a-transcript"],
      ["v56-w04-sub01-t1.json", "not-json"],
      ["v56-w04-sub02-t1.json", "bad-g2-predicate"],
    ]);
  });
});

describe.skipIf(skipWithout("the published 1.0 sample", sample.missing))(
  "regrade of the published 1.0 sample (APIFLOW_OFFICIAL_SAMPLE)",
  () => {
    it("agrees with every recorded G2 field: verdict, value read and reason", async () => {
      const r = await regradeOfficial(sample.dir!);
      expect(r.success).toBe(true);
      if (!r.success) return;
      expect(OfficialRegradeSchema.safeParse(r.data).success).toBe(true);
      expect(r.data.malformed).toEqual([]);
      expect(r.data.trials).toBe(242);
      expect(r.data.unscored).toBe(2);
      expect(r.data.fields).toBe(502);
      // No remaining disagreement, so no recorded verdict had to be explained as a 1.0 defect.
      expect(r.data.disagreements).toEqual([]);
      expect(r.data.field_disagreements).toBe(0);
      expect(r.data.trial_disagreements).toBe(0);
    });
  },
);

/** A minimal 1.0 transcript with one G2 field graded as 1.0 would record it. */
function transcript(finalText: string, recorded: { passed: boolean; got?: unknown; reason?: string }) {
  return {
    schema_version: "1.0",
    model: "m",
    task_id: "v56-w01-sub01",
    trial: 1,
    verdict: recorded.passed ? "C" : "I",
    passed: recorded.passed,
    messages: [
      { role: "user", content: "ticket" },
      { role: "assistant", content: [{ type: "text", text: finalText }] },
    ],
    verifier: {
      scorer: "validator_scorer",
      value: recorded.passed ? "C" : "I",
      explanation: "",
      metadata: {
        predicates: [
          {
            label: "answer.status == 'committed'",
            group: "G2",
            passed: recorded.passed,
            detail: { field: "status", expected: "committed", comparator: "string", ...recorded },
          },
          { label: "data_flow#1", group: "G1", passed: true, detail: {} },
        ],
      },
    },
  };
}

describe("regradeOfficial on a built directory", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "apiflow-regrade-"));
    await mkdir(join(dir, "model-a"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const put = (name: string, content: unknown) =>
    writeFile(join(dir, "model-a", name), typeof content === "string" ? content : JSON.stringify(content));

  it("reports malformed files by name and goes on", async () => {
    await put(
      "good-t1.json",
      transcript('```json\n{"status": "committed"}\n```', { passed: true, got: "committed" }),
    );
    await put("broken-t1.json", '{"schema_version": "1.0", "mess');
    await put("wrong-t1.json", { schema_version: "1.0", messages: "none" });
    const bad = transcript("x", { passed: false });
    bad.verifier.metadata.predicates[0]!.detail = { field: "status" } as never;
    await put("bad-detail-t1.json", bad);
    await writeFile(join(dir, "_export_manifest.json"), "{}");
    const r = await regradeOfficial(dir);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.trials).toBe(1);
    expect(r.data.fields).toBe(1);
    expect(r.data.malformed.map((m) => [m.file, m.code])).toEqual([
      ["model-a/bad-detail-t1.json", "bad-g2-predicate"],
      ["model-a/broken-t1.json", "not-json"],
      ["model-a/wrong-t1.json", "not-a-transcript"],
    ]);
  });

  it("lists a disagreement with file and field, and counts the trial once", async () => {
    // Recorded as passing, but the card says "checking": ours fails it.
    await put(
      "v56-w01-sub01-t1.json",
      transcript('```json\n{"status": "checking"}\n```', { passed: true, got: "checking" }),
    );
    const r = await regradeOfficial(dir);
    if (!r.success) throw new Error(r.error.message);
    expect(r.data.field_disagreements).toBe(1);
    expect(r.data.trial_disagreements).toBe(1);
    expect(r.data.trials_differing).toEqual(["model-a/v56-w01-sub01-t1.json"]);
    expect(r.data.disagreements[0]).toMatchObject({
      file: "model-a/v56-w01-sub01-t1.json",
      field: "status",
      differs: "passed",
      recorded: { passed: true, got: "checking" },
      ours: { passed: false, got: "checking", reason: "'checking' != expected 'committed'" },
    });
  });

  it("counts a differing reason as a field disagreement but not a trial one", async () => {
    await put("t-t1.json", transcript("no card", { passed: false, reason: "no answer" }));
    const r = await regradeOfficial(dir);
    if (!r.success) throw new Error(r.error.message);
    expect(r.data.disagreements.map((d) => d.differs)).toEqual(["reason"]);
    expect(r.data.trial_disagreements).toBe(0);
  });

  it("counts unscored trials without comparing them", async () => {
    const unscored = { ...transcript("", { passed: false }), verdict: "", passed: null, verifier: null };
    await put("u-t1.json", unscored);
    const r = await regradeOfficial(dir);
    if (!r.success) throw new Error(r.error.message);
    expect(r.data).toMatchObject({ trials: 1, unscored: 1, fields: 0, field_disagreements: 0 });
  });

  it("returns an error, not an exception, for a missing directory or a file", async () => {
    const missing = await regradeOfficial(join(dir, "nope"));
    expect(missing).toMatchObject({ success: false, error: { code: "dir-not-found" } });
    await put("f.json", "{}");
    const file = await regradeOfficial(join(dir, "model-a", "f.json"));
    expect(file).toMatchObject({ success: false, error: { code: "not-a-directory" } });
    expect(await readFile(join(dir, "model-a", "f.json"), "utf8")).toBe("{}");
  });
});
