import { describe, expect, it } from "vitest";
import { blindRoute } from "../../test/support/blind-segments.js";
import { SUB03, skeletonEdited, taskOf } from "../../test/support/test-banks.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { axisNecessityFindings } from "./axis-necessity.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * The gate's second play of a statefulness task (axis necessity 2.1.0): once the blind agent fails
 * (here by its stores alone), the golden is played blind to the re-read only, and that agent must
 * fail too. On the skeleton's harbour world, given an order update: SUB03 updates its order, then
 * reads it twice. The update's reply shows what both reads take, so the re-read-only agent leaves
 * both out. A grader that demands a read of the order after the update fails it (the re-read is
 * needed: no finding); SUB03's own grader does not (the finding, both reads named). The focused
 * tests of `npm run mutate certify-axis-necessity` (axis-blind-reread.test.ts plays the default bank).
 */

const auth = { Authorization: "Bearer {{token}}" };
const update: GoldenStep = {
  op: "execute",
  request: {
    method: "PATCH",
    url: "/v3/maintenance-orders/{{order}}",
    headers: { ...auth, "Content-Type": "application/json" },
    body: { priority: "high" },
  },
  capture: {},
};
const reread = (capture: Record<string, string>): GoldenStep => ({
  op: "execute",
  request: { method: "GET", url: "/v3/maintenance-orders/{{order}}", headers: auth },
  capture,
});

/** SUB03 with an update after its store, then two reads of the order (its golden's own last). */
function updatedThenReread(t: Task): Task {
  const answerAt = t.golden.findIndex((s) => s.op === "answer");
  return {
    ...t,
    golden: [
      ...t.golden.slice(0, answerAt - 1),
      update,
      reread({ priority: "priority" }),
      ...t.golden.slice(answerAt - 1),
    ],
  };
}

/** The same task, its grader demanding a read of the order (which only the re-reads make). */
const readDemanded = (t: Task): Task => {
  const edited = updatedThenReread(t);
  return {
    ...edited,
    grader: {
      ...edited.grader,
      g1: [
        ...edited.grader.g1,
        {
          kind: "call",
          id: "read_after_update",
          explain: "The order is read back after its update.",
          method: "GET",
          url_pattern: "^/v3/maintenance-orders/MO-",
          status: 200,
          body_has_keys: [],
        },
      ],
    },
  };
};

/** The skeleton with an update route for maintenance orders, SUB03 edited by `edit`. */
function withUpdate(edit: (t: Task) => Task) {
  const bank = skeletonEdited(
    (w) => {
      w.routes.push(
        blindRoute({
          id: "updateMaintenanceOrder",
          method: "PATCH",
          path: "/v3/maintenance-orders/{order_id}",
          resource: "maintenance-orders",
          action: "update",
        }),
      );
    },
    edit,
    SUB03,
  );
  return axisNecessityFindings(bank, taskOf(bank, SUB03), sharedTrials(bank));
}

describe("axis necessity: a statefulness task's re-read must be needed on its own", () => {
  it("no finding when the grader fails the agent that leaves out the reads after the update", async () => {
    expect((await withUpdate(readDemanded)).failures).toEqual([]);
  });

  it("a finding naming every read left out when nothing the grader checks needs them", async () => {
    const { failures } = await withUpdate(updatedThenReread);
    expect(failures).toHaveLength(1);
    const order = /MO-[A-Z0-9]+/.exec(failures[0]?.message ?? "")?.[0];
    const left = `GET /v3/maintenance-orders/${order} not read again after its change (its PATCH reply)`;
    expect(failures).toEqual([
      {
        task_id: SUB03,
        check: "axis_blind:statefulness",
        message: `an agent that re-reads nothing (its values kept) passes (${left}; ${left}): the re-read is not needed`,
      },
    ]);
  });
});
