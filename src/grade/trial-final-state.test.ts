import { describe, expect, it } from "vitest";
import type { JsonObject } from "../bank/json.js";
import type { GraderSpec, RecordRef } from "../bank/task-schema.js";
import { type FinalRecords, resolveExpected, TrialFinalState } from "./final-state.js";
import { gradeTrial } from "./grade-trial.js";

// Issue 18 speed: a trial's final state picks each selector's records once (a chain names one
// record in many predicates and answer fields); what it resolves is what resolveExpected does.

const SEED = "seed-trial-final-state";

function ref(where: Record<string, unknown>, field: string): RecordRef {
  return { $record: { resource: "orders", where: where as RecordRef["$record"]["where"] }, field };
}

/** Final records that count how often each resource is read. */
function countedRecords(records: Record<string, JsonObject[]>): {
  records: FinalRecords;
  reads: Map<string, number>;
} {
  const reads = new Map<string, number>();
  const out: Record<string, JsonObject[]> = {};
  for (const [name, list] of Object.entries(records))
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        reads.set(name, (reads.get(name) ?? 0) + 1);
        return list;
      },
    });
  return { records: out, reads };
}

const orders: JsonObject[] = [
  { order_id: "MO-1", vessel_id: "V-1", level: "high", status: "open" },
  { order_id: "MO-2", vessel_id: "V-2", level: "low", status: "closed" },
  { order_id: "MO-3", vessel_id: "V-3", level: "high", status: "open" },
];

describe("TrialFinalState", () => {
  it("resolves every kind of reference as resolveExpected does", () => {
    const removed = { orders: [{ order_id: "MO-0", vessel_id: "V-9", level: "high" }] };
    const values: unknown[] = [
      ref({ vessel_id: "V-1" }, "order_id"),
      ref({ vessel_id: "V-9" }, "order_id"), // only among the removed
      ref({ level: "high" }, "order_id"), // two live records, no write: unresolved
      ref({ vessel_id: "V-7" }, "order_id"), // none
      ref({ vessel_id: "V-1" }, "missing_field"),
      ref({ vessel_id: { $canary: "vessel" } }, "order_id"),
      { $canary: "firmware", format: "FW-{code}" },
      "plain",
      3,
    ];
    for (const value of values) {
      for (const kept of [true, false]) {
        const records = kept ? { orders } : undefined;
        const state = new TrialFinalState({ finalRecords: records, removedRecords: removed }, SEED, []);
        expect(state.resolve(value)).toEqual(resolveExpected(value, SEED, records, removed, []));
      }
    }
  });

  it("picks a selector's records once, known by the selector as written", () => {
    const { records, reads } = countedRecords({ orders });
    const state = new TrialFinalState({ finalRecords: records }, SEED, []);
    const a = ref({ vessel_id: "V-1", level: "high" }, "order_id");
    // Another object, the same selector: picked from the first pick.
    const b = ref({ vessel_id: "V-1", level: "high" }, "status");
    expect(state.resolve(a)).toEqual({ ok: true, value: "MO-1" });
    expect(state.resolve(b)).toEqual({ ok: true, value: "open" });
    expect(reads.get("orders")).toBe(1);
    // A selector with other fields is picked again.
    expect(state.resolve(ref({ vessel_id: "V-3" }, "order_id"))).toEqual({ ok: true, value: "MO-3" });
    expect(reads.get("orders")).toBe(2);
  });

  it("is made per grade: a second grade of other records is not answered from the first", () => {
    const grader: GraderSpec = {
      g1: [
        {
          kind: "end_state",
          id: "open",
          explain: "",
          record: { resource: "orders", where: { vessel_id: "V-1" } },
          expect: { is: "field", field: "status", value: "open" },
        },
      ],
      answer: [{ field: "order_id", comparator: "string", expected: ref({ vessel_id: "V-1" }, "order_id") }],
      constraints: [],
      checkpoints: [],
    } as unknown as GraderSpec;
    const finalMessage = '```json\n{"order_id": "MO-1"}\n```';
    const first = gradeTrial({ grader, trialSeed: SEED, events: [], finalMessage, finalRecords: { orders } });
    expect(first.passed).toBe(true);
    const closed = [{ ...orders[0], order_id: "MO-9", status: "closed" } as JsonObject];
    const second = gradeTrial({
      grader,
      trialSeed: SEED,
      events: [],
      finalMessage,
      finalRecords: { orders: closed },
    });
    expect(second.passed).toBe(false);
    expect(second.g1[0]?.reason).toContain("ends with status");
    expect(second.g2[0]?.expected).toBe("MO-9");
  });
});
