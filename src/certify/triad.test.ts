import { describe, expect, it } from "vitest";
import {
  bankWith,
  canaryTypedIn,
  decoyBlindGrader,
  examKinds,
  SUB01,
  SUB02,
  SUB03,
  skeletonContent,
  storeUnchecked,
  taskOf,
} from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import { triadGate } from "./triad.js";
import { freshTrials, type TrialRunner } from "./trial-tree.js";

describe("grader triad", () => {
  const bank = bankFromContent(skeletonContent());

  it("passes every task of the skeleton bank, with every kind of sabotage exercised", async () => {
    const report = await triadGate(bank, bank.tasks);
    expect(report.first_failure).toBeNull();
    expect(report).toMatchObject({ checked: 4, passed: 4, failed: 0 });
    const names = examKinds(bank);
    for (const kind of [
      "answer_key",
      "blank",
      "sabotage:decoy_route",
      "sabotage:canary_without_call",
      "sabotage:store_skipped",
      "sabotage:stale_token",
    ])
      expect(names).toContain(kind);
  });

  it("rejects a grader whose labour check does not tie the answer to the call (canary typed in)", async () => {
    const broken = bankWith(SUB02, canaryTypedIn);
    const report = await triadGate(broken, [taskOf(broken, SUB02)]);
    expect(report.failed).toBe(1);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:canary_without_call:berth");
  });

  it("rejects a grader that does not check the store the ticket demands", async () => {
    const broken = bankWith(SUB03, storeUnchecked);
    const report = await triadGate(broken, [taskOf(broken, SUB03)]);
    expect(report.failures.map((f) => f.check)).toEqual(["sabotage:store_skipped@4"]);
  });

  it("rejects a grader the decoy route also satisfies", async () => {
    // Only the last port call is asked, which the v2 snapshot serves unchanged; no constraint, no provenance.
    const broken = bankWith(SUB02, decoyBlindGrader);
    const report = await triadGate(broken, [taskOf(broken, SUB02)]);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:decoy_route@3");
  });

  it("rejects a task whose answer key fails its own grader", async () => {
    const broken = bankWith(SUB01, (t) => ({
      ...t,
      grader: {
        ...t.grader,
        answer: t.grader.answer.map((f) =>
          f.field === "firmware_channel" ? { ...f, expected: "maritime-edge" } : f,
        ),
      },
    }));
    const report = await triadGate(broken, [taskOf(broken, SUB01)]);
    expect(report.failures[0]).toMatchObject({ check: "answer_key" });
    expect(report.first_failure).toMatch(/answer key fails its own grader/);
  });

  it("rejects a grader that passes the blank exam", async () => {
    // No GraderSpec the schema admits passes a blank run: at least one answer field is required and
    // a missing card fails it. So the weak grader is given to the gate directly: real trials of the
    // real task, judged by a grader that only checks the constraints (no forbidden call was made),
    // which a run that does nothing satisfies.
    const fresh = freshTrials(bank);
    const constraintsOnly: TrialRunner = {
      async run(task, agent, epoch) {
        const r = await fresh.run(task, agent, epoch);
        return { ...r, grade: { ...r.grade, passed: r.grade.constraints.every((c) => !c.violated) } };
      },
      release: () => {},
    };
    const task = taskOf(bank, SUB01);
    const report = await triadGate(bank, [task], constraintsOnly);
    expect(report.failed).toBe(1);
    expect(report.failures.map((f) => f.check)).toContain("blank");
    expect(report.failures.find((f) => f.check === "blank")?.message).toBe(
      "the blank exam passes: the grader is not load-bearing",
    );
    // The real grader of the same task passes the triad, blank exam included.
    expect((await triadGate(bank, [task], fresh)).failed).toBe(0);
  });
});
