import { describe, expect, it } from "vitest";
import { ExpectedValueSchema, G1PredicateSchema, RequirementSchema, TaskSchema } from "./task-schema.js";

describe("requirements and the G1 kinds they need", () => {
  it("parses a record reference as an expected value, and refuses a malformed one", () => {
    const ref = {
      $record: { resource: "runs", where: { sample_id: "S-12" }, role: "the run for S-12" },
      field: "run_id",
    };
    expect(ExpectedValueSchema.parse(ref)).toEqual(ref);
    expect(ExpectedValueSchema.safeParse({ $record: { resource: "runs" }, field: "run_id" }).success).toBe(
      false,
    );
    expect(ExpectedValueSchema.safeParse({ $record: "runs" }).success).toBe(false);
    expect(ExpectedValueSchema.parse({ plain: "object" })).toEqual({ plain: "object" });
  });

  it("parses each new predicate kind, naming its requirement", () => {
    const call = { method: "PATCH", url_pattern: "^/v2/notes/[^/]+$", status: 200 };
    const kinds = [
      { kind: "call_count", id: "one", requirement: "r1", call, max: 1 },
      {
        kind: "order",
        id: "o",
        requirement: "r2",
        before: call,
        after: { url_pattern: "^/x$" },
        min_wait_seconds: 5,
      },
      {
        kind: "end_state",
        id: "e",
        requirement: "r3",
        record: { resource: "notes", where: { note_id: "CN-1" } },
        expect: { is: "field", field: "status", value: "settled" },
      },
      {
        kind: "end_state",
        id: "a",
        record: { resource: "notes", where: { note_id: "CN-1" } },
        expect: { is: "absent" },
      },
      {
        kind: "end_state",
        id: "c",
        record: { resource: "notes", where: {} },
        expect: { is: "count", min: 1, max: 1 },
      },
    ];
    for (const k of kinds) expect(G1PredicateSchema.parse(k).kind).toBe(k.kind);
  });

  it("refuses a count with no bound, or with min above max", () => {
    const call = { url_pattern: "^/x$" };
    expect(G1PredicateSchema.safeParse({ kind: "call_count", id: "n", call }).success).toBe(false);
    expect(G1PredicateSchema.safeParse({ kind: "call_count", id: "n", call, min: 3, max: 1 }).success).toBe(
      false,
    );
    const record = { resource: "r", where: {} };
    expect(
      G1PredicateSchema.safeParse({ kind: "end_state", id: "c", record, expect: { is: "count" } }).success,
    ).toBe(false);
  });

  it("parses a requirement of each kind and refuses an unknown kind", () => {
    const call = { method: "PATCH", url_pattern: "^/v2/notes/[^/]+$" };
    const base = { id: "r", predicates: ["p"] };
    const reqs = [
      { ...base, kind: "value_written", call, key: "status", value: "settled", alternatives: ["approved"] },
      { ...base, kind: "exact_target", call, target: "CN-1", siblings: ["CN-2"] },
      { ...base, kind: "call_count", call, max: 1 },
      { ...base, kind: "ordering", before: call, after: call },
      { ...base, kind: "end_state", record: { resource: "notes", where: {} }, expect: { is: "absent" } },
      { ...base, kind: "value_flow" },
      { ...base, kind: "report", fields: ["note_id"] },
      { ...base, kind: "stay_canonical" },
    ];
    for (const r of reqs) expect(RequirementSchema.parse(r).kind).toBe(r.kind);
    expect(RequirementSchema.safeParse({ ...base, kind: "vibes" }).success).toBe(false);
  });

  it("keeps a task without requirements valid (banks from before them)", () => {
    const task = {
      id: "t",
      world: "w",
      kind: "solo",
      positions: [1],
      axes: ["multistep"],
      difficulty: "easy",
      ticket: "Do it.",
      workspace: {},
      golden: [{ op: "read_spec" }],
      grader: {
        answer: [{ field: "x", comparator: "string", expected: "1" }],
        g1: [{ kind: "call", id: "c", url_pattern: "^/x$" }],
      },
    };
    expect(TaskSchema.parse(task).requirements).toBeUndefined();
  });
});
