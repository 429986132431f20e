import { describe, expect, it } from "vitest";
import type { JsonObject } from "../bank/json.js";
import type { ExpectedValue, G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import type { FinalRecords } from "./final-state.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * End-state predicates at their edges (issue 21: mutation testing): the verdict, not only the
 * reason, of a record missing or ambiguous; a count's bounds one at a time; a field unset; an
 * expected value that cannot be resolved.
 */
const none = new EventLog().events;
const notes = (...rows: JsonObject[]): FinalRecords => ({ notes: rows });
const grade = (p: G1Predicate, records?: FinalRecords) => gradeG1Predicate(p, none, null, "seed", records);

function count(
  bounds: { min?: number; max?: number },
  role?: string,
): Extract<G1Predicate, { kind: "end_state" }> {
  return {
    kind: "end_state",
    id: "open_notes",
    explain: "",
    record: { resource: "notes", where: { status: "open" }, ...(role ? { role } : {}) },
    expect: { is: "count", ...bounds },
  };
}

const open = (n: number) =>
  notes(...Array.from({ length: n }, (_, i) => ({ note_id: `CN-${i}`, status: "open" })));

describe("end state: a count of records", () => {
  it("holds a minimum alone: below it fails, at it passes", () => {
    expect(grade(count({ min: 2 }), open(1))).toMatchObject({
      passed: false,
      value: 1,
      reason: "1 records are notes record with status=open; the ticket wants at least 2",
    });
    expect(grade(count({ min: 2 }), open(2))).toMatchObject({ passed: true, value: 2 });
  });

  it("holds a maximum alone: at it passes, above it fails", () => {
    expect(grade(count({ max: 1 }), open(1))).toMatchObject({ passed: true, value: 1 });
    expect(grade(count({ max: 1 }), open(2))).toMatchObject({
      passed: false,
      value: 2,
      reason: "2 records are notes record with status=open; the ticket wants at most 1",
    });
  });

  it("holds a range: outside it fails naming both bounds", () => {
    expect(grade(count({ min: 1, max: 3 }), open(4)).reason).toBe(
      "4 records are notes record with status=open; the ticket wants 1 to 3",
    );
    expect(grade(count({ min: 1, max: 3 }), open(3)).passed).toBe(true);
  });

  it("names the records: a leading 'the ' or 'every ' dropped, nothing inside a role", () => {
    expect(grade(count({ max: 0 }, "open notes the crew files every day"), open(1)).reason).toBe(
      "1 records are open notes the crew files every day; the ticket wants at most 0",
    );
    const every: G1Predicate = { ...count({ max: 0 }), record: { resource: "notes", where: {} } };
    expect(grade(every, open(1)).reason).toBe("1 records are notes record; the ticket wants at most 0");
  });
});

describe("end state: a field of one record", () => {
  const settled = (value: ExpectedValue = "settled"): G1Predicate => ({
    kind: "end_state",
    id: "note_settled",
    explain: "",
    record: { resource: "notes", where: { note_id: "CN-12" } },
    expect: { is: "field", field: "status", value },
  });

  it("fails (not only explains) without final records, or without the record", () => {
    expect(grade(settled())).toMatchObject({ passed: false });
    expect(grade(settled(), notes())).toMatchObject({
      passed: false,
      reason: "the notes record with note_id=CN-12: no such record at the end of the trial",
    });
  });

  it("fails when several records match and no write decides between them, even if the first holds the value", () => {
    const two = notes({ note_id: "CN-12", status: "settled" }, { note_id: "CN-12", status: "open" });
    expect(grade(settled(), two)).toEqual({
      id: "note_settled",
      kind: "end_state",
      explain: "",
      passed: false,
      reason:
        "the notes record with note_id=CN-12: 2 records match at the end of the trial, and no later write was applied to exactly one of them",
    });
  });

  it("says a field the record lacks is unset", () => {
    expect(grade(settled(), notes({ note_id: "CN-12" }))).toMatchObject({
      passed: false,
      reason: 'the notes record with note_id=CN-12 ends with status unset, not "settled"',
    });
  });

  it("fails with the reason when the expected value is a record the final state does not have", () => {
    const ref = { $record: { resource: "runs", where: { sample: "S-1" } }, field: "status" };
    expect(grade(settled(ref), notes({ note_id: "CN-12", status: "settled" }))).toEqual({
      id: "note_settled",
      kind: "end_state",
      explain: "",
      passed: false,
      reason: "the status of the runs record with sample=S-1: no such record at the end of the trial",
    });
  });
});
