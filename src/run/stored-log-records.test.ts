import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { v5Text } from "../../test/support/stored-log-versions.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { JsonObject, JsonValue } from "../bank/json.js";
import { RECORDS_HOLDING, type RecordsHolding, selectRecords } from "../grade/final-state.js";
import { runTrial } from "./run-trial.js";
import { readSizedGzip } from "./sized-gzip.js";
import { decodeTrialLog, encodeTrialLog, type StoredTrialLog, storedTrialLogOf } from "./stored-trial-log.js";

const bank = skeletonBank();

async function goldenLog(): Promise<StoredTrialLog> {
  const task = bank.tasks[0]!;
  return storedTrialLogOf(
    await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 }),
    task,
    bank.manifest.content_hash,
  );
}

/** A version 5 or 6 log's final records as a re-grade reads them: lazily, each line parsed when picked. */
function lazyRecords(log: StoredTrialLog, bytes = encodeTrialLog(log)): StoredTrialLog["final_records"] {
  const decoded = decodeTrialLog(bytes, { lazy: true });
  if (!decoded.success) throw new Error(decoded.error.message);
  return decoded.data.final_records;
}

// Values that JSON writes with escapes, that read as numbers, that only differ by case or space.
const STRINGS = [
  "a",
  "A",
  " a",
  "S-12",
  "3",
  "3.0",
  "",
  'x"y',
  "back\\slash",
  "é",
  "line\nbreak",
  "\u2028",
  "<redacted:1>",
];
const value = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<JsonValue>(...STRINGS, 3, 3.5, true, null, ["a"], { a: "a" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
);
/** A selector's field values are scalars. */
const scalar = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom<string | number | boolean | null>(...STRINGS, 3, 3.5, true, null) },
  { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
);
const KEYS = ["id", "status"];
const record = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 2 });

describe("a version 5 or 6 log's final records, picked by their text", () => {
  it("pick exactly the records a full read picks, for any records and any selector (escapes, numbers as strings, case), inline or in a member of their own", async () => {
    const log = await goldenLog();
    // Records no selector picks, enough to keep the resource out of a version 6 head's member.
    const filler: JsonObject[] = Array.from({ length: 8 }, () => ({ note: "x".repeat(300) }));
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 8 }),
        fc.dictionary(fc.constantFrom(...KEYS), scalar, { minKeys: 1, maxKeys: 2 }),
        fc.boolean(),
        (picked, where, padded) => {
          const records = (padded ? [...picked, ...filler] : picked) as JsonObject[];
          const stored = { ...log, final_records: { things: records } };
          const selector = { resource: "things", where };
          const want = JSON.stringify(selectRecords(selector, { things: records }, "seed"));
          const v6 = encodeTrialLog(stored);
          expect(readSizedGzip(v6)?.length).toBe(padded ? 3 : 2);
          return [v6, encodeTrialLog(v5Text(stored))].every((bytes) => {
            const lazy = lazyRecords(stored, bytes);
            return JSON.stringify(selectRecords(selector, lazy as NonNullable<typeof lazy>, "seed")) === want;
          });
        },
      ),
      { numRuns: 1000, seed: 5 },
    );
  });

  it("parse only the records holding the selector's strings; with an escape in the resource, every record", async () => {
    const log = await goldenLog();
    const things: JsonObject[] = [
      { id: "T-1", status: "open" },
      { id: "T-2", status: "done" },
      { id: "T-3", status: "open" },
    ];
    const stored = { ...log, final_records: { things } };
    // The second record's line broken: it is read only when a selector could pick it.
    const texts = gunzipSync(encodeTrialLog(stored)).toString("utf8").split("\n");
    const at = texts.indexOf(JSON.stringify(things[1]));
    const withBroken = (broken: string) =>
      encodeTrialLog(texts.map((l, i) => (i === at ? broken : l)).join("\n"));
    const lazy = lazyRecords(stored, withBroken('{"id":"T-2","status":'));
    const records = lazy as NonNullable<typeof lazy>;
    expect(selectRecords({ resource: "things", where: { status: "open" } }, records, "s")).toEqual([
      things[0],
      things[2],
    ]);
    expect(() => selectRecords({ resource: "things", where: { id: "T-2" } }, records, "s")).toThrow(
      /not JSON/,
    );
    // No string to look for (a number): the resource is read whole.
    expect(() => selectRecords({ resource: "things", where: { n: 3 } }, records, "s")).toThrow(/not JSON/);
    // An escape anywhere in the resource: a string may be written otherwise, so every record is read.
    const escaped = lazyRecords(stored, withBroken('{"id":"T-\\u0032","status":'));
    expect(() =>
      selectRecords(
        { resource: "things", where: { status: "open" } },
        escaped as NonNullable<typeof escaped>,
        "s",
      ),
    ).toThrow(/not JSON/);
    // The shortcut is the log's alone: not an enumerable key, not in the log's JSON.
    expect((records as RecordsHolding)[RECORDS_HOLDING]).toBeTypeOf("function");
    expect(Object.keys(records)).toEqual(["things"]);
  });
});
