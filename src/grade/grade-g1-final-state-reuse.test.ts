import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonObject } from "../bank/json.js";
import type { ExpectedValue, GraderSpec } from "../bank/task-schema.js";
import { resolveCanaries } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { type FinalRecords, TrialFinalState } from "./final-state.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (grade-g1-index, after perf-regrade2): G1 reads the final state the caller made for
 * this trial (its picks shared with G2), and only for this trial: a state made for another seed or
 * another log, or a plain one, is not taken as this trial's.
 */
const orders: JsonObject[] = [
  { order_id: "MO-1", vessel_id: "V-1", level: "high" },
  { order_id: "MO-3", vessel_id: "V-3", level: "high" },
];
const ref = (where: Record<string, string>, field: string) =>
  ({ $record: { resource: "orders", where }, field }) as unknown as ExpectedValue;

/** One predicate: the workspace variable `order` holds `value`. */
const holds = (value: ExpectedValue): GraderSpec => ({
  answer: [],
  g1: [{ kind: "workspace_value", id: "stored", explain: "", name: "order", scope: "any", value }],
  constraints: [],
  checkpoints: [],
});

/** Final records that count how often the orders are read. */
function counted(): { records: FinalRecords; reads: () => number } {
  let reads = 0;
  const records = {} as FinalRecords;
  Object.defineProperty(records, "orders", {
    enumerable: true,
    get: () => {
      reads++;
      return orders;
    },
  });
  return { records, reads: () => reads };
}

const passed = (grader: GraderSpec, events: readonly TrialEvent[], seed: string, state: object) =>
  gradeLabour(grader, events, null, seed, state).g1[0]?.passed;

describe("G1 reads this trial's final state", () => {
  it("a plain final state (records alone) is read as given", () => {
    const events = trialLog().store("order", "MO-1").events();
    expect(
      passed(holds(ref({ vessel_id: "V-1" }, "order_id")), events, "s", { finalRecords: { orders } }),
    ).toBe(true);
  });

  it("a state made for another seed is not taken: canaries are minted for this trial's seed", () => {
    const canary = { $canary: "vessel", format: "V-{code}" } as unknown as ExpectedValue;
    const events = trialLog().store("order", resolveCanaries(canary, "seed-b")).events();
    const other = new TrialFinalState({}, "seed-a", events);
    expect(resolveCanaries(canary, "seed-a")).not.toBe(resolveCanaries(canary, "seed-b"));
    expect(passed(holds(canary), events, "seed-b", other)).toBe(true);
  });

  it("a state made for another log is not taken: the decisive write is this log's", () => {
    // Two high orders: the reference names the one this trial's successful write addressed.
    const events = trialLog().call("PATCH", "/v1/orders/MO-3", 200, {}).store("order", "MO-3").events();
    const value = ref({ level: "high" }, "order_id");
    const blank = new TrialFinalState({ finalRecords: { orders } }, "s", []);
    expect(blank.resolve(value).ok).toBe(false);
    expect(passed(holds(value), events, "s", blank)).toBe(true);
  });

  it("a state made for another seed still gives this trial its records, the deleted ones too", () => {
    // MO-0 is only among the records deleted during the trial.
    const removed = { orders: [{ order_id: "MO-0", vessel_id: "V-9", level: "low" }] };
    const events = trialLog().store("order", "MO-0").events();
    const other = new TrialFinalState(
      { finalRecords: { orders }, removedRecords: removed },
      "seed-a",
      events,
    );
    expect(passed(holds(ref({ vessel_id: "V-9" }, "order_id")), events, "seed-b", other)).toBe(true);
    expect(passed(holds(ref({ vessel_id: "V-1" }, "order_id")), events, "seed-b", other)).toBe(false);
  });

  it("the caller's state for this trial is read, not rebuilt: a selector is picked once for G1 and G2", () => {
    const events = trialLog().store("order", "MO-1").events();
    const { records, reads } = counted();
    const state = new TrialFinalState({ finalRecords: records }, "s", events);
    const value = ref({ vessel_id: "V-1" }, "order_id");
    expect(state.resolve(value)).toEqual({ ok: true, value: "MO-1" });
    expect(reads()).toBe(1);
    expect(passed(holds(value), events, "s", state)).toBe(true);
    expect(reads()).toBe(1);
  });
});
