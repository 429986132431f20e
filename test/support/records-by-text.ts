import type { JsonObject } from "../../src/bank/json.js";
import { type FinalRecords, RECORDS_HOLDING, type RecordsHolding } from "../../src/grade/final-state.js";

/**
 * Final records of one resource, `things`, that answer by their text as a stored log's do
 * (`RECORDS_HOLDING`): a record is a line of JSON, the answer is every line holding every text
 * asked, and undefined when the resource's text holds an escape. Each question asked and each
 * read of the whole resource are counted. Only for tests.
 */
export function recordsByText(things: JsonObject[]) {
  const asked: string[][] = [];
  let wholeReads = 0;
  const lines = things.map((r) => JSON.stringify(r));
  const records: FinalRecords & RecordsHolding = {
    get things() {
      wholeReads++;
      return things;
    },
    [RECORDS_HOLDING]: (resource: string, texts: readonly string[]) => {
      asked.push([...texts]);
      if (resource !== "things") return [];
      if (lines.some((l) => l.includes("\\"))) return undefined;
      return things.filter((_, i) => texts.every((t) => lines[i]?.includes(t)));
    },
  };
  return { records, asked, wholeReads: () => wholeReads };
}
