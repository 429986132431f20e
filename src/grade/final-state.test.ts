import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { RecordRef } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { decisiveRecord, resolveExpected } from "./final-state.js";

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
