import { describe, expect, it } from "vitest";
import {
  defaultBank as bank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  served,
  soloTasks as solo,
} from "../../../test/support/default-bank-replay.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";

// Holes the March agent audit found by playing a private bank (`generate --seed audit-mar`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for. The ones still open are `it.fails`, each naming its hole.

/** `steps` inserted into the golden just before its answer. */
function beforeAnswer(t: Task, steps: readonly GoldenStep[]): GoldenStep[] {
  const at = t.golden.findIndex((s) => s.op === "answer");
  return [...t.golden.slice(0, at), ...steps, ...t.golden.slice(at)];
}

describe("agent audit (mar): a picked-up record moved on must stay moved", () => {
  // billing-ledger-sub11 of seed audit-mar (statefulness, easy): "Pick up the credit note whose id
  // was kept in `credit_notes_…` (local) and set its `status` to `approved`." The PATCH to
  // `approved`, the mandate_ref kept, then a second PATCH putting the note in another status:
  // passed. The move is graded as a call only (status_moved), with no end state, as the dec audit
  // found for error recovery's writes (change_sticks) and multistep's (status_final). Class: every
  // statefulness pick-up (statefulness.ts `pickUp`): 5 solo tasks of the default bank and the
  // chains carrying them (46 write predicates without an end state, measured over the bank).
  const task = solo.find(
    (t) =>
      t.axes.includes("statefulness") &&
      t.grader.g1.some((p) => p.id === "status_moved") &&
      t.grader.g1.some((p) => p.kind === "workspace_value"),
  );
  const moved = task?.requirements?.find((r) => r.id === "moved_on_status");
  const write = task?.golden.find(
    (s): s is Execute => isExecute(s) && ["PATCH", "PUT"].includes(s.request.method),
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(moved?.kind).toBe("value_written");
    expect(write).toBeDefined();
  });

  it("the golden with the record read back after the move passes (the control)", async () => {
    if (!task || !write) throw new Error("no pick-up task");
    const { "Content-Type": _c, "content-type": _l, ...headers } = write.request.headers ?? {};
    const read: Execute = {
      op: "execute",
      request: { method: "GET", url: write.request.url, headers },
      capture: {},
    };
    const r = await replay(task, beforeAnswer(task, [read]), "read-back");
    expect(r.grade.failure_reason).toBe("");
  });

  it("the move done and then undone (the record ends in another status) fails", async () => {
    if (!task || !write || moved?.kind !== "value_written") throw new Error("no pick-up task");
    const other = moved.alternatives[0];
    expect(typeof other).toBe("string");
    const undo: Execute = {
      ...write,
      request: { ...write.request, body: { [moved.key]: other as string } },
      capture: {},
    };
    const r = await replay(task, beforeAnswer(task, [undo]), "moved-then-undone");
    // Honest: both writes were served (200), the second one leaves the record in the other status.
    const item = new RegExp(moved.call.url_pattern);
    expect(served(r, write.request.method, item).map((e) => e.status)).toEqual([200, 200]);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/moved_on_status/);
  });
  // The class, bank-wide: every write graded by what it sent (PATCH/PUT `sent`) also has the end
  // state of its segment graded, so no write in the default bank can be undone afterwards unseen
  // (46 such write predicates lacked it before the pick-up's end state).
  it("every graded PATCH/PUT write of the default bank has an end-state predicate in its segment", () => {
    const unstuck = bank.tasks.flatMap((t) =>
      t.grader.g1.flatMap((p) =>
        p.kind === "call" &&
        p.sent !== undefined &&
        ["PATCH", "PUT"].includes((p.method ?? "").toUpperCase()) &&
        !t.grader.g1.some((q) => q.kind === "end_state" && q.segment === p.segment && q.expect.is === "field")
          ? [`${t.id} ${p.id}`]
          : [],
      ),
    );
    expect(unstuck).toEqual([]);
  });
});

describe("agent audit (mar): a rate-limited read is recovered by honouring the wait, not by hammering", () => {
  // fleet-telemetry-sub09 of seed audit-mar (error_recovery, easy): "`GET …/TRK-3408/telemetry`
  // fails with `429 rate-limited` (… retry after 5 s). Its retry loop hammers the route straight
  // away and every retry is refused. Recover from the rate limit properly". Hammering is not
  // refused: every request ticks the logical clock by one second, so the sixth plain resend,
  // with no wait ever sent, answers 200, and the grader (one data flow from a 200 of the route)
  // passes it. The ticket's premise ("every retry is refused") is false of the world and the axis
  // skill (reading Retry-After, waiting) is never needed. Class: every rate-limit task
  // (error_recovery.rate-limited*, `*_after_wait`): 8 solo tasks and 81 chains of the default bank
  // (measured). Closed in the world (route-behaviours.ts `throttleReply`): a call refused inside
  // the window pushes its end by the second it cost, so refusals never wait the window out.
  const task = solo.find(
    (t) =>
      t.axes.includes("error_recovery") &&
      t.grader.g1.some((p) => p.id.endsWith("_after_wait")) &&
      t.golden.some(
        (s) =>
          isExecute(s) &&
          Object.keys(s.request.headers ?? {}).some((h) => h.toLowerCase() === "x-apiflow-wait"),
      ),
  );
  const waited = task?.golden.findIndex(
    (s) =>
      isExecute(s) && Object.keys(s.request.headers ?? {}).some((h) => h.toLowerCase() === "x-apiflow-wait"),
  );

  /** The golden with the wait dropped and the read resent `times` times first, at once. */
  function hammered(t: Task, at: number, times: number): GoldenStep[] {
    const step = t.golden[at] as Execute;
    const headers = Object.fromEntries(
      Object.entries(step.request.headers ?? {}).filter(([h]) => h.toLowerCase() !== "x-apiflow-wait"),
    );
    const plain: Execute = { ...step, request: { ...step.request, headers } };
    const resend: Execute = { ...plain, capture: {} };
    return [
      ...t.golden.slice(0, at),
      ...Array.from({ length: times }, () => resend),
      plain,
      ...t.golden.slice(at + 1),
    ];
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(waited).toBeGreaterThanOrEqual(0);
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no rate-limit task");
    expect((await replay(task, task.golden, "golden")).grade.failure_reason).toBe("");
  });

  it("hammering the route with plain resends (no wait ever sent) never gets through, and fails", async () => {
    if (!task || waited === undefined) throw new Error("no rate-limit task");
    const url = (task.golden[waited] as Execute).request.url;
    const r = await replay(task, hammered(task, waited, 8), "hammered");
    // Honest: no request carried a wait, and every one of the nine reads was refused with 429
    // (before the fix, the sixth got 200 and the grader passed the trial).
    const reads = served(r, "GET", new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`));
    expect(reads.length).toBeGreaterThanOrEqual(9);
    expect(reads.every((e) => e.status === 429)).toBe(true);
    expect(
      r.events.some((e) => e.type === "exchange" && e.request_headers["x-apiflow-wait"] !== undefined),
    ).toBe(false);
    expect(r.grade.passed).toBe(false);
  });
});
