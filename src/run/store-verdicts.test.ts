import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trial } from "../../test/support/test-records.js";
import { openStore } from "./store.js";
import type { GradedVerdict } from "./store-gradings.js";
import type { TrialRecord } from "./trial-record.js";

/**
 * What a re-grade reads and writes of the store, on its fast paths: `verdicts()` (a column subset
 * read at once) against `all()`, and `gradings.add`'s hand check of each verdict against the
 * schema it stands for.
 */
const record = (over: Partial<TrialRecord>) =>
  trial("golden", "v56-w01-sub01", 1, "pass", {
    g1_passed: true,
    g2_passed: true,
    partial_score: 1,
    cost_usd: 0.25,
    stop_reason: "answer",
    transcript: "transcripts/golden/v56-w01-sub01-t1.json",
    ...over,
  });

const RECORDS: TrialRecord[] = [
  record({}),
  record({
    agent: "blank",
    outcome: "fail",
    passed: false,
    g1_passed: false,
    g2_passed: null,
    failure_reason: "G1 failed: first failure: no call",
    partial_score: 0.25,
    transcript: null,
  }),
  record({
    epoch: 2,
    outcome: "provider_error",
    passed: null,
    g1_passed: null,
    g2_passed: null,
    partial_score: null,
  }),
];

const VERDICT: GradedVerdict = {
  bank_hash: "bank-test",
  agent: "golden",
  task_id: "v56-w01-sub01",
  epoch: 1,
  outcome: "fail",
  passed: false,
  g1_passed: true,
  g2_passed: false,
  failure_reason: "G2 failed",
  partial_score: 0.5,
};
const META = {
  source: "regrade" as const,
  grader_version: "9.9.9",
  grader_bank_hash: null,
  created: "2026-12-02T00:00:00Z",
};

function storeWith(records: TrialRecord[]) {
  const store = openStore(mkdtempSync(join(tmpdir(), "apiflow-verdicts-")));
  store.recordMany(records);
  return store;
}

describe("store.verdicts", () => {
  it("gives each trial's key, verdict and transcript as all() does, in key order", () => {
    const store = storeWith(RECORDS);
    const fromAll = [...store.all()].map((r) => ({
      bank_hash: r.bank_hash,
      agent: r.agent,
      task_id: r.task_id,
      epoch: r.epoch,
      outcome: r.outcome,
      passed: r.passed,
      g1_passed: r.g1_passed,
      g2_passed: r.g2_passed,
      failure_reason: r.failure_reason,
      partial_score: r.partial_score,
      transcript: r.transcript,
    }));
    expect(store.verdicts()).toEqual(fromAll);
    expect(store.verdicts().map((v) => `${v.agent}/${v.epoch}:${v.outcome}`)).toEqual([
      "blank/1:fail",
      "golden/1:pass",
      "golden/2:provider_error",
    ]);
    store.close();
  });
});

describe("gradings.add checks each verdict as GradedVerdictSchema does", () => {
  it("stores a good verdict and makes it the trial's current one", () => {
    const store = storeWith([record({})]);
    const grading = store.gradings.add(META, [VERDICT], { ...META, source: "run" });
    expect(grading.id).toBe(2);
    expect(store.gradings.verdicts(2)).toEqual([VERDICT]);
    expect(store.verdicts()[0]).toMatchObject({ outcome: "fail", g1_passed: true, partial_score: 0.5 });
    store.close();
  });

  const bad: Array<[string, Record<string, unknown>]> = [
    ["an empty agent", { agent: "" }],
    ["a missing task id", { task_id: undefined }],
    ["epoch 0", { epoch: 0 }],
    ["a fractional epoch", { epoch: 1.5 }],
    ["an unknown outcome", { outcome: "maybe" }],
    ["passed as a string", { passed: "no" }],
    ["g1_passed as a number", { g1_passed: 1 }],
    ["g2_passed missing", { g2_passed: undefined }],
    ["no failure reason", { failure_reason: null }],
    ["a partial score that is no number", { partial_score: "0.5" }],
    ["an infinite partial score", { partial_score: Number.POSITIVE_INFINITY }],
  ];
  it.each(bad)("refuses %s, naming the field, and stores nothing", (_, over) => {
    const store = storeWith([record({})]);
    const verdict = { ...VERDICT, ...over } as GradedVerdict;
    const field = Object.keys(over)[0] as string;
    expect(() => store.gradings.add(META, [VERDICT, verdict], { ...META, source: "run" })).toThrow(field);
    expect(store.gradings.list()).toEqual([]);
    expect(store.verdicts()[0]?.outcome).toBe("pass");
    store.close();
  });

  it("takes a verdict with a key the schema does not know, as the schema does (it strips it)", () => {
    const store = storeWith([record({})]);
    store.gradings.add(META, [{ ...VERDICT, extra: 1 } as GradedVerdict], { ...META, source: "run" });
    expect(store.gradings.verdicts(2)).toEqual([VERDICT]);
    store.close();
  });
});
