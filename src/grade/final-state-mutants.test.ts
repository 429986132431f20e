import { describe, expect, it } from "vitest";
import { recordsByText } from "../../test/support/records-by-text.js";
import type { JsonObject } from "../bank/json.js";
import type { RecordSelector } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { selectRecords } from "./final-state.js";

/**
 * Which records a selector picks when the final records can answer "the records whose text holds
 * these strings" (a stored log read lazily, RECORDS_HOLDING), and a selector whose fields mix a
 * canary with plain values (issue 21: final-state.ts's mutants; the stored log's own test,
 * src/run/stored-log-records.test.ts, is outside the grade-final-state area).
 *
 * The final records here answer as the stored log does: a record is a line of JSON, the answer is
 * every line holding every text asked, and undefined when the resource's text holds an escape.
 * Each reads of the whole resource and each question asked are counted.
 */

const THINGS: JsonObject[] = [
  { id: "T-1", status: "open", note: "" },
  { id: "open", status: "done", note: " " },
  { id: "T-3", status: "open", note: " " },
  { id: 3, status: "done", note: "" },
  { id: "3", status: "open", note: "x" },
];
const pick = (where: RecordSelector["where"], things = THINGS) => {
  const lazy = recordsByText(things);
  const got = selectRecords({ resource: "things", where }, lazy.records, "seed");
  return { got, asked: lazy.asked, wholeReads: lazy.wholeReads() };
};

describe("a selector on final records that answer by their text", () => {
  it("asks for the JSON form of each plain string, never reads the whole resource, and checks each record given", () => {
    const open = pick({ status: "open" });
    expect(open.asked).toEqual([['"open"']]);
    expect(open.wholeReads).toBe(0);
    // The record whose id is "open" holds the text too: it is given, and left out as its status is done.
    expect(open.got).toEqual([THINGS[0], THINGS[2], THINGS[4]]);
    const both = pick({ status: "open", id: "T-3" });
    expect(both.asked).toEqual([['"open"', '"T-3"']]);
    expect(both.got).toEqual([THINGS[2]]);
    expect(both.wholeReads).toBe(0);
  });

  it("asks for a blank or empty string too (neither reads as a number)", () => {
    const blank = pick({ note: " " });
    expect(blank.asked).toEqual([['" "']]);
    expect(blank.wholeReads).toBe(0);
    expect(blank.got).toEqual([THINGS[1], THINGS[2]]);
    const empty = pick({ note: "" });
    expect(empty.asked).toEqual([['""']]);
    expect(empty.wholeReads).toBe(0);
    expect(empty.got).toEqual([THINGS[0], THINGS[3]]);
  });

  it("reads the resource whole for a value the world takes in other spellings: a number, true, null", () => {
    // "3" is the world's 3: a record holding the number 3 holds no text "3" in quotes, and is
    // picked. Its digits find both (final-state-numbers.test.ts), the resource is not read whole.
    const numeric = pick({ id: "3" });
    expect(numeric.got).toEqual([THINGS[3], THINGS[4]]);
    expect(numeric.asked).toEqual([[".99999999"], ["3"]]);
    expect(numeric.wholeReads).toBe(0);
    const number = pick({ id: 3 });
    expect(number.got).toEqual([THINGS[3], THINGS[4]]);
    expect(number).toMatchObject({ asked: [], wholeReads: 1 });
    const flags: JsonObject[] = [
      { on: true, off: null },
      { on: false, off: "x" },
    ];
    expect(pick({ on: true }, flags)).toEqual({ got: [flags[0]], asked: [], wholeReads: 1 });
    expect(pick({ off: null }, flags)).toEqual({ got: [flags[0]], asked: [], wholeReads: 1 });
  });

  it("reads the resource whole when the text cannot answer (an escape in it)", () => {
    const escaped: JsonObject[] = [...THINGS, { id: 'T-"6"', status: "open" }];
    const got = pick({ status: "open" }, escaped);
    expect(got.asked).toEqual([['"open"']]);
    expect(got.wholeReads).toBe(1);
    expect(got.got).toEqual([THINGS[0], THINGS[2], THINGS[4], escaped[5]]);
  });
});

describe("a selector mixing a canary with plain values", () => {
  it("picks, in each trial, the record holding that trial's canary (the plain values alone are not resolved once for all)", () => {
    const canary = { $canary: "thing", format: "T-{code}" };
    const selector: RecordSelector = { resource: "things", where: { status: "open", id: canary } };
    const [a, b] = [mintCanary("seed-a", canary), mintCanary("seed-b", canary)];
    expect(a).not.toBe(b);
    const records = {
      things: [
        { id: a, status: "open" },
        { id: b, status: "open" },
        { id: b, status: "done" },
      ],
    };
    expect(selectRecords(selector, records, "seed-a")).toEqual([{ id: a, status: "open" }]);
    expect(selectRecords(selector, records, "seed-b")).toEqual([{ id: b, status: "open" }]);
    expect(selectRecords(selector, records, "seed-a")).toEqual([{ id: a, status: "open" }]);
  });
});
