import { describe, expect, it } from "vitest";
import { recordsByText } from "../../test/support/records-by-text.js";
import type { JsonObject } from "../bank/json.js";
import type { RecordSelector } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { selectRecords } from "./final-state.js";
import { sameInWorld } from "./values-equal.js";

/**
 * A selector asking for a whole number as a string (`{"room_no": "512"}`: 116 tasks of the default
 * bank) on final records that answer by their text, as a stored log's do: its records are found by
 * the number's digits instead of parsing the whole resource, and every record the world takes for
 * that number is still found (a number within 1e-9 of it, the string itself). Each question asked
 * and each read of the whole resource are counted.
 */

const pick = (where: RecordSelector["where"], things: JsonObject[], seed = "seed") => {
  const lazy = recordsByText(things);
  const got = selectRecords({ resource: "things", where }, lazy.records, seed);
  return { got, asked: lazy.asked, wholeReads: lazy.wholeReads() };
};

const ROOMS: JsonObject[] = [
  { room: 512, floor: "5" },
  { room: "512", floor: "5" },
  { room: 5120, floor: "51" },
  { room: 512.0000000001, floor: "5" },
  { room: "0512", floor: "5" },
  { room: " 512", floor: "5" },
  { room: 513, floor: "5" },
];

describe("a selector asking for a whole number as a string", () => {
  it("asks whether a number lies just below a whole one first, then for its digits; picks the number, the string, a number within 1e-9", () => {
    const got = pick({ room: "512" }, ROOMS);
    expect(got.asked).toEqual([[".99999999"], ["512"]]);
    expect(got.wholeReads).toBe(0);
    // 5120 holds the digits and is left out; "0512" and " 512" are other strings (the world keeps them as sent).
    expect(got.got).toEqual([ROOMS[0], ROOMS[1], ROOMS[3]]);
  });

  it("reads the resource whole when a record holds a number just below it (its digits are another number's)", () => {
    const below: JsonObject[] = [
      ...ROOMS,
      { room: 511.99999999995, floor: "5" },
      { room: 511.9999, floor: "5" },
    ];
    const got = pick({ room: "512" }, below);
    expect(got.asked).toEqual([[".99999999"]]);
    expect(got.wholeReads).toBe(1);
    expect(got.got).toEqual([ROOMS[0], ROOMS[1], ROOMS[3], below[7]]);
  });

  it("reads the resource whole when the text cannot answer (an escape in it)", () => {
    const escaped: JsonObject[] = [...ROOMS, { room: 'R-"1"', floor: "5" }];
    const got = pick({ room: "512" }, escaped);
    expect(got.asked).toEqual([[".99999999"]]);
    expect(got.wholeReads).toBe(1);
    expect(got.got).toEqual([ROOMS[0], ROOMS[1], ROOMS[3]]);
  });

  it("finds one, at the edge: the number 1 (just below it, 0.9999999999)", () => {
    const ones: JsonObject[] = [{ n: 1 }, { n: 0.9999999999 }, { n: 1.0000000001 }, { n: 0.99 }, { n: 10 }];
    const got = pick({ n: "1" }, ones);
    expect(got.asked).toEqual([[".99999999"]]);
    expect(got.wholeReads).toBe(1);
    expect(got.got).toEqual([ones[0], ones[1], ones[2]]);
    const plain = pick({ n: "1" }, [ones[0] as JsonObject, ones[2] as JsonObject, ones[4] as JsonObject]);
    expect(plain).toEqual({ got: [ones[0], ones[2]], asked: [[".99999999"], ["1"]], wholeReads: 0 });
  });

  it("takes the first field spelled as a whole number, and none when a field shows a string's text", () => {
    const things: JsonObject[] = [
      { a: "0512", b: 7 },
      { a: 512, b: "7" },
      { a: "0512", b: 6.9999999999 },
    ];
    const got = pick({ a: "0512", b: "7" }, things);
    expect(got.asked).toEqual([[".99999999"]]);
    expect(got.wholeReads).toBe(1);
    // 512 is the world's "0512" (a number against a numeric string), as 6.9999999999 is its "7".
    expect(got.got).toEqual(things);
    const plain = things.slice(0, 2);
    expect(pick({ a: "0512", b: "7" }, plain)).toEqual({
      got: plain,
      asked: [[".99999999"], ["7"]],
      wholeReads: 0,
    });
    expect(pick({ a: "512", b: "7" }, plain)).toEqual({
      got: [plain[1]],
      asked: [[".99999999"], ["512"]],
      wholeReads: 0,
    });
    // A plain string's text is asked instead (it finds fewer lines), the number not at all.
    const named: JsonObject[] = [
      { id: "T-1", room: 512 },
      { id: "T-1", room: 513 },
      { id: "T-2", room: 512 },
    ];
    expect(pick({ room: "512", id: "T-1" }, named)).toEqual({
      got: [named[0]],
      asked: [['"T-1"']],
      wholeReads: 0,
    });
  });

  it("asks the trial's canary first, then the plain strings; the number then is not asked", () => {
    const canary = { $canary: "thing", format: "T-{code}" };
    const id = mintCanary("seed-a", canary);
    const things: JsonObject[] = [
      { id, status: "open", room: 512 },
      { id: mintCanary("seed-b", canary), status: "open", room: 512 },
      { id, status: "done", room: 512 },
    ];
    const got = pick({ status: "open", room: "512", id: canary }, things, "seed-a");
    expect(got.asked).toEqual([[JSON.stringify(id), '"open"']]);
    expect(got.wholeReads).toBe(0);
    expect(got.got).toEqual([things[0]]);
    // A canary alone: only its text.
    const alone = pick({ id: canary }, things, "seed-a");
    expect(alone).toEqual({ got: [things[0], things[2]], asked: [[JSON.stringify(id)]], wholeReads: 0 });
  });

  it("asks the plain strings alone when the canary's text needs an escape (it may be written otherwise)", () => {
    const canary = { $canary: "thing", format: 'T-"{code}"' };
    const id = mintCanary("seed-a", canary);
    const things: JsonObject[] = [
      { id, status: "open" },
      { id: mintCanary("seed-b", canary), status: "open" },
    ];
    const got = pick({ status: "open", id: canary }, things, "seed-a");
    expect(got.asked).toEqual([['"open"']]);
    // The stored text holds the escape: the resource is read whole, and the trial's record picked.
    expect(got.wholeReads).toBe(1);
    expect(got.got).toEqual([things[0]]);
  });

  it.each([
    ["0", [{ n: 5e-11 }, { n: 0 }, { n: "0" }, { n: 1 }], [0, 1, 2]],
    ["1.5", [{ n: 1.4999999999 }, { n: 1.5 }, { n: "1.5" }, { n: 15 }], [0, 1, 2]],
    ["-3", [{ n: -3 }, { n: -2.9999999999 }, { n: -3.0000000001 }, { n: 3 }], [0, 1, 2]],
    ["0512", [{ n: 512 }, { n: "0512" }, { n: "512" }], [0, 1]],
    ["1e3", [{ n: 1000 }, { n: "1e3" }, { n: "1000" }], [0, 1]],
    ["9007199254740993", [{ n: 9007199254740992 }, { n: "9007199254740993" }], [0, 1]],
  ] as Array<[string, JsonObject[], number[]]>)(
    "reads the resource whole for %j: no whole positive number spelled as it prints",
    (value, things, picked) => {
      const got = pick({ n: value }, things);
      expect(got.asked).toEqual([]);
      expect(got.wholeReads).toBe(1);
      expect(got.got).toEqual(picked.map((i) => things[i]));
    },
  );
});

/**
 * Why the digits suffice: every number the world takes for a whole number n (within 1e-9 of it)
 * prints, as JSON.stringify writes it, n's digits or n - 1's followed by eight nines. Checked on
 * the doubles nearest n and nearest the 1e-9 bounds, ulp by ulp, and on evenly spread ones between.
 */
describe("the numbers equal to a whole number print its digits or those just below it", () => {
  const next = (x: number, up: boolean) => {
    const b = new Float64Array([x]);
    const i = new BigInt64Array(b.buffer);
    i[0] = (i[0] as bigint) + (up === x >= 0 ? 1n : -1n);
    return b[0] as number;
  };
  const around = (x: number, steps: number) => {
    const out = [x];
    let lo = x;
    let hi = x;
    for (let k = 0; k < steps; k++) {
      lo = next(lo, false);
      hi = next(hi, true);
      out.push(lo, hi);
    }
    return out;
  };

  it.each([1, 2, 9, 10, 99, 512, 4287, 55949, 999_999, 4_000_000, 2 ** 31, 1e12 + 7, 2 ** 53 - 1])(
    "%d",
    (n) => {
      const digits = String(n);
      const below = `${n - 1}.99999999`;
      const candidates = [
        ...around(n, 3000),
        ...around(n - 1e-9, 3000),
        ...around(n + 1e-9, 3000),
        ...Array.from({ length: 4001 }, (_, k) => n - 1.2e-9 + (k * 2.4e-9) / 4000),
      ];
      let equal = 0;
      for (const x of candidates) {
        if (!sameInWorld(x, digits)) continue;
        equal++;
        const text = JSON.stringify(x);
        expect(text.includes(digits) || text.includes(below), `${text} for ${n}`).toBe(true);
      }
      expect(equal).toBeGreaterThan(0);
    },
  );
});
