import { describe, expect, it } from "vitest";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { worldOf } from "./certify-kit.js";
import { goldenExchanges } from "./golden-edits.js";
import { goldenMutants } from "./golden-mutants.js";
import { requirementMutantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * Issue 20: on a bank of another seed (hunter-7), a mutant that breaks one requirement fails
 * naming that requirement. Two holes made six tasks fail elsewhere:
 * - a chain segment's "the new id is used next" was held by another segment's create on the
 *   nested route (which the flow admits as another source), so a segment that used a made-up id
 *   failed only its read-back;
 * - a supersede task planted its record alone in the collection, so "delete no other" held
 *   whatever the agent deleted (no sibling to spare).
 */
describe("hunter-7: requirement mutants fail naming their requirement", () => {
  const bank = bankFromContent(defaultBankContent("hunter-7"));
  const runner = sharedTrials(bank);
  const byId = (id: string) => {
    const task = bank.tasks.find((t) => t.id === id);
    if (!task) throw new Error(`no task ${id} in the hunter-7 bank`);
    return task;
  };

  it.each([
    "irrigation-control-chain-1to17",
    "lab-samples-chain-1to11",
    "lab-samples-chain-1to15",
    "lab-samples-chain-1to16",
  ])(
    "%s: a segment that uses a made-up id for its own create fails new_id_used_next",
    async (id) => {
      const { failures, count } = await requirementMutantFindings(bank, byId(id), runner);
      expect(failures).toEqual([]);
      expect(count.killed).toBe(count.generated);
    },
    120_000,
  );

  it("every supersede task ('delete no other') has another record to spare, and the sibling deleted too is caught", async () => {
    const supersede = bank.tasks.filter((t) => t.requirements?.some((r) => r.id === "only_it_goes"));
    const solo = supersede.filter((t) => t.kind === "solo");
    expect(solo.length).toBeGreaterThan(0);
    for (const task of solo) {
      const exchanges = goldenExchanges(task, (await runner.run(task, goldenAgentFactory)).events);
      const mutants = goldenMutants(
        worldOf(bank, task),
        task,
        exchanges.map((e) => e?.status),
        exchanges,
      );
      expect(
        mutants.some((m) => m.requirement === "only_it_goes"),
        task.id,
      ).toBe(true);
      const { failures } = await requirementMutantFindings(bank, task, runner);
      expect(failures, task.id).toEqual([]);
    }
  }, 120_000);
});
