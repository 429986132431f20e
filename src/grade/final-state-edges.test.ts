import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonObject } from "../bank/json.js";
import type { RecordRef, RecordSelector } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import {
  decisiveRecord,
  describeRecord,
  isRecordRef,
  meantRecord,
  resolveExpected,
  selectRecords,
} from "./final-state.js";

/**
 * The final state at its edges (issue 21: mutation testing of final-state.ts): what a record
 * reference is, which records a selector picks, the words for the record meant, every reason a
 * reference stays unresolved, and which writes make a record the decisive one.
 */
const SEED = "seed-final-state-edges";
const runs: RecordSelector = { resource: "runs", where: { sample_id: "S-12" } };
const ref = (field: string, $record: RecordSelector = runs): RecordRef => ({ $record, field });

describe("a record reference", () => {
  it("is an object of $record (an object) and field (a string), and nothing else", () => {
    expect(isRecordRef(ref("run_id"))).toBe(true);
    for (const other of [
      null,
      "run_id",
      [ref("run_id")],
      { $record: runs },
      { $record: runs, field: 3 },
      { $record: null, field: "run_id" },
      { $record: "runs", field: "run_id" },
      { ...ref("run_id"), extra: 1 },
    ])
      expect(isRecordRef(other)).toBe(false);
  });

  it("is named in words only when it is one", () => {
    expect(meantRecord(ref("run_id"), SEED)).toBe("the run_id of the runs record with sample_id=S-12");
    expect(meantRecord("RUN-1", SEED)).toBeUndefined();
  });
});

describe("the records a selector picks", () => {
  const records: Record<string, JsonObject[]> = {
    runs: [
      { run_id: "R-1", sample_id: "S-12", status: "Settled" },
      { run_id: "R-2", sample_id: "S-12", status: "settled" },
      { run_id: "R-3", sample_id: "S-13" },
    ],
  };

  it("are those whose every field of where is equal, strings compared exactly", () => {
    const settled = { resource: "runs", where: { sample_id: "S-12", status: "settled" } };
    expect(selectRecords(settled, records, SEED).map((r) => r.run_id)).toEqual(["R-2"]);
  });

  it("resolve a canary in where for the trial", () => {
    const minted = mintCanary(SEED, { $canary: "run" });
    const byCanary = { resource: "runs", where: { run_id: { $canary: "run" } } };
    expect(selectRecords(byCanary, { runs: [{ run_id: minted }, { run_id: "R-1" }] }, SEED)).toEqual([
      { run_id: minted },
    ]);
  });

  it("are none of a resource the final state does not hold", () => {
    expect(selectRecords({ resource: "samples", where: {} }, records, SEED)).toEqual([]);
  });
});

describe("the record meant, in words", () => {
  it("is its role when it has one, else its resource and every field of where (canaries minted)", () => {
    expect(describeRecord({ ...runs, role: "the run confirmed" }, SEED)).toBe("the run confirmed");
    const minted = mintCanary(SEED, { $canary: "s" });
    expect(describeRecord({ resource: "runs", where: { sample_id: { $canary: "s" }, n: 2 } }, SEED)).toBe(
      `the runs record with sample_id=${minted}, n=2`,
    );
    expect(describeRecord({ resource: "runs", where: {} }, SEED)).toBe("every runs record");
  });
});

describe("an expected value", () => {
  it("that is no record reference has its canaries minted", () => {
    expect(resolveExpected({ $canary: "c" }, SEED, undefined)).toEqual({
      ok: true,
      value: mintCanary(SEED, { $canary: "c" }),
    });
  });

  it("is unknown without final records, naming the record meant", () => {
    expect(resolveExpected(ref("run_id"), SEED, undefined)).toEqual({
      ok: false,
      reason:
        "the run_id of the runs record with sample_id=S-12 is unknown: the world's final records were not kept",
    });
  });

  it("is unresolved when no record holds the role, or the one that does lacks the field", () => {
    expect(resolveExpected(ref("run_id"), SEED, { runs: [] })).toEqual({
      ok: false,
      reason: "the run_id of the runs record with sample_id=S-12: no such record at the end of the trial",
    });
    expect(resolveExpected(ref("closed_at"), SEED, { runs: [{ run_id: "R-1", sample_id: "S-12" }] })).toEqual(
      {
        ok: false,
        reason: "the closed_at of the runs record with sample_id=S-12: that record has no closed_at",
      },
    );
  });

  it("reads the last record deleted during the trial when none is left at the end", () => {
    const removed = {
      runs: [
        { run_id: "R-1", sample_id: "S-12" },
        { run_id: "R-9", sample_id: "S-99" },
        { run_id: "R-2", sample_id: "S-12" },
        { run_id: "R-3", sample_id: "S-12" },
      ],
    };
    expect(resolveExpected(ref("run_id"), SEED, { runs: [] }, removed)).toEqual({ ok: true, value: "R-3" });
    const left = { runs: [{ run_id: "R-5", sample_id: "S-12" }] };
    expect(resolveExpected(ref("run_id"), SEED, left, removed)).toEqual({ ok: true, value: "R-5" });
  });
});

describe("the decisive record among several", () => {
  const two: JsonObject[] = [
    { id: "R-1", sample: "S-12" },
    { id: "R-2", sample: "S-12" },
  ];
  const decidedBy = (method: string, url: string, status: number) =>
    decisiveRecord(two, trialLog().call(method, url, status).events())?.id;

  it("is the one a successful write addressed: any 2xx, from 200 to 299", () => {
    expect(decidedBy("PATCH", "/runs/R-2", 200)).toBe("R-2");
    expect(decidedBy("POST", "/runs/R-2/confirm", 299)).toBe("R-2");
    expect(decidedBy("PATCH", "/runs/R-2", 199)).toBeUndefined();
    expect(decidedBy("PATCH", "/runs/R-2", 300)).toBeUndefined();
  });

  it("is never made by a read, GET or HEAD in any case", () => {
    for (const method of ["GET", "HEAD", "get", "head"])
      expect(decidedBy(method, "/runs/R-2", 200)).toBeUndefined();
    expect(decidedBy("delete", "/runs/R-2", 204)).toBe("R-2");
  });

  it("is told apart by a number in the path as by a string", () => {
    const numbered: JsonObject[] = [
      { n: 7, sample: "S-12" },
      { n: 8, sample: "S-12" },
    ];
    expect(decisiveRecord(numbered, trialLog().call("PUT", "/runs/8", 200).events())).toEqual(numbered[1]);
  });

  it("is never told apart by a flag: a write to /runs/true names no record", () => {
    const flagged: JsonObject[] = [
      { sample: "S-12", active: true },
      { sample: "S-12", active: false },
    ];
    expect(decisiveRecord(flagged, trialLog().call("PUT", "/runs/true", 200).events())).toBeUndefined();
  });

  it("counts a value a record holds twice once: it is still that record's own", () => {
    const aliased: JsonObject[] = [
      { id: "R-1", alias: "R-1", sample: "S-12" },
      { id: "R-2", alias: "R-2", sample: "S-12" },
    ];
    expect(decisiveRecord(aliased, trialLog().call("PATCH", "/runs/R-1", 200).events())).toEqual(aliased[0]);
  });

  it("ignores what is not an exchange (a variable written with a candidate's id)", () => {
    expect(decisiveRecord(two, trialLog().store("run", "R-2").events())).toBeUndefined();
  });
});
