import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate, RecordRef } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { decisiveRecord, resolveExpected } from "./final-state.js";
import { gradeG1Predicate } from "./grade-g1.js";

// Issue 15 item 3: when several records hold a role at the end, the one meant is the one the
// trial's decisive action was applied to; an abandoned duplicate, never acted on again, is not it.

const SEED = "seed-final-state";
const ref: RecordRef = {
  $record: {
    resource: "orders",
    where: { vessel_id: "V-1", level: "high" },
    role: "the order opened for V-1",
  },
  field: "order_id",
};
const duplicates = {
  orders: [
    { order_id: "MO-1", vessel_id: "V-1", level: "high", status: "open" },
    { order_id: "MO-2", vessel_id: "V-1", level: "high", status: "open" },
  ],
};

function events(...calls: Array<[string, string, number]>) {
  const log = new EventLog();
  for (const [method, url, status] of calls)
    log.append({
      type: "exchange",
      protocol: "rest",
      method,
      url,
      request_headers: {},
      request_body: null,
      status,
      response_headers: {},
      response_body: {} as JsonValue,
    });
  return log.events;
}

describe("the record a role means among several", () => {
  const created: Array<[string, string, number]> = [
    ["POST", "/v2/vessels/V-1/orders", 201],
    ["POST", "/v2/vessels/V-1/orders", 201],
  ];

  it("is the one a later successful write addressed (the order moved on), not the abandoned duplicate", () => {
    const log = events(...created, ["PATCH", "/v2/orders/MO-1", 200]);
    expect(resolveExpected(ref, SEED, duplicates, undefined, log)).toEqual({ ok: true, value: "MO-1" });
    expect(decisiveRecord(duplicates.orders, log)?.order_id).toBe("MO-1");
  });

  it("stays unresolved, naming the record meant, when no write, a failed one, or a read tells them apart", () => {
    for (const log of [
      events(...created),
      events(...created, ["PATCH", "/v2/orders/MO-2", 409]),
      events(...created, ["GET", "/v2/orders/MO-2", 200]),
    ]) {
      const r = resolveExpected(ref, SEED, duplicates, undefined, log);
      expect(r).toEqual({
        ok: false,
        reason:
          "the order_id of the order opened for V-1: 2 records match at the end of the trial, and no later write was applied to exactly one of them",
      });
    }
  });

  it("stays unresolved when both were acted on (two orders moved: not one record)", () => {
    const log = events(...created, ["PATCH", "/v2/orders/MO-1", 200], ["PATCH", "/v2/orders/MO-2", 200]);
    expect(resolveExpected(ref, SEED, duplicates, undefined, log).ok).toBe(false);
  });

  it("ignores values the candidates share (the vessel in a nested create's path)", () => {
    const log = events(["PATCH", "/v2/vessels/V-1", 200]);
    expect(decisiveRecord(duplicates.orders, log)).toBeUndefined();
  });

  it("without the log (a caller that has none) keeps the old rule: several is unresolved", () => {
    expect(resolveExpected(ref, SEED, duplicates).ok).toBe(false);
  });
});

describe("an end-state field among several records holding the role", () => {
  // The order meant ends `committed`; an abandoned duplicate of it stays `open`.
  const records = {
    orders: [
      { order_id: "MO-1", vessel_id: "V-1", level: "high", status: "open" },
      { order_id: "MO-2", vessel_id: "V-1", level: "high", status: "committed" },
    ],
  };
  const committed: G1Predicate = {
    kind: "end_state",
    id: "order_committed",
    explain: "",
    record: { resource: "orders", where: { vessel_id: "V-1", level: "high" }, role: "the order for V-1" },
    expect: { is: "field", field: "status", value: "committed" },
  };
  const created: Array<[string, string, number]> = [
    ["POST", "/v2/vessels/V-1/orders", 201],
    ["POST", "/v2/vessels/V-1/orders", 201],
  ];
  const grade = (log: ReturnType<typeof events>) => gradeG1Predicate(committed, log, null, SEED, records);

  it("reads the record the trial's later write acted on, not the abandoned duplicate", () => {
    const r = grade(events(...created, ["PATCH", "/v2/orders/MO-2", 200]));
    expect(r.passed).toBe(true);
    expect(r.value).toBe("committed");
  });

  it("fails naming the field when the record acted on ends with another value", () => {
    const r = grade(events(...created, ["PATCH", "/v2/orders/MO-1", 200]));
    expect(r.passed).toBe(false);
    expect(r.reason).toBe('the order for V-1 ends with status "open", not "committed"');
  });

  it("stays unresolved when no write, or a write to each, tells them apart", () => {
    for (const log of [
      events(...created),
      events(...created, ["PATCH", "/v2/orders/MO-1", 200], ["PATCH", "/v2/orders/MO-2", 200]),
    ]) {
      const r = grade(log);
      expect(r.passed).toBe(false);
      expect(r.reason).toBe(
        "the order for V-1: 2 records match at the end of the trial, and no later write was applied to exactly one of them",
      );
    }
  });
});
