import { describe, expect, it } from "vitest";
import { defaultBank as bank } from "../../test/support/default-bank-replay.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { axisNecessityFindings } from "./axis-necessity.js";
import { freshTrials } from "./trial-tree.js";

/**
 * Issue 16: a statefulness task that asks for a record to be read again after its change ("move
 * it, then read it again for the live value") must need that re-read. The statefulness-blind agent
 * does not re-read a record it wrote to where an earlier response (the write's reply, the record's
 * row in a listing) shows what the re-read takes. Built to fail: the same review-reference task on
 * a world whose review queue stamps the reference with the move itself (the move's reply shows
 * it), so the re-read is not needed and the gate rejects the task.
 */
const reread = bank.tasks.find(
  (t) =>
    t.kind === "solo" &&
    t.axes[0] === "statefulness" &&
    (t.requirements ?? []).some((r) => r.id === "ref_reread"),
) as Task;

/** The bank with the task's world stamping every `on_enter` value with the write (no delay). */
function stampedWithTheMove(b: Bank): Bank {
  return {
    ...b,
    worlds: b.worlds.map((w) =>
      w.id !== reread.world
        ? w
        : {
            ...w,
            routes: w.routes.map((r) =>
              r.workflow?.on_enter
                ? {
                    ...r,
                    workflow: {
                      ...r.workflow,
                      on_enter: Object.fromEntries(
                        Object.entries(r.workflow.on_enter).map(([k, v]) => [k, { ...v, after_seconds: 0 }]),
                      ),
                    },
                  }
                : r,
            ),
          },
    ),
  };
}

describe("axis necessity of a re-read after a change", () => {
  it("the default bank's review-reference task needs its re-read: the blind agent fails", async () => {
    expect(reread).toBeDefined();
    expect((await axisNecessityFindings(bank, reread, freshTrials(bank))).failures).toEqual([]);
  }, 120_000);

  it("rejects the task when the move's reply already shows the reference (the re-read is not needed)", async () => {
    const shown = stampedWithTheMove(bank);
    const { failures } = await axisNecessityFindings(shown, reread, freshTrials(shown));
    expect(failures).toHaveLength(1);
    expect(failures[0]?.message).toMatch(
      /re-reads nothing.*not read again after its change \(its (PATCH|PUT) reply\)/,
    );
  }, 120_000);
});
