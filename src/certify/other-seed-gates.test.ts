import { describe, expect, it } from "vitest";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { worldOf } from "./certify-kit.js";
import { goldenExchanges } from "./golden-edits.js";
import { goldenMutants } from "./golden-mutants.js";
import { requirementMutantFindings } from "./requirement-gates.js";
import { triadExams, triadFindings } from "./triad.js";
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

/**
 * kestrel-3's satellite chain: two segments walk one cursor listing, each through its own cursor
 * bindings, so the page showing segment 13's runner-up is one request written twice. The canary
 * exam that leaves out the calls revealing the runner-up must leave out both.
 */
describe("kestrel-3: the triad's canary exam leaves out every step that sent the revealing request", () => {
  const bank = bankFromContent(defaultBankContent("kestrel-3"));
  const runner = sharedTrials(bank);
  const task = bank.tasks.find((t) => t.id === "satellite-ground-chain-1to13");

  it("the grader is load-bearing for the runner-up's value", async () => {
    if (!task) throw new Error("no satellite-ground-chain-1to13 in the kestrel-3 bank");
    expect(await triadFindings(bank, task, runner)).toEqual([]);
  }, 120_000);

  it("without the played requests, the exam keeps the other segment's read of the page, and passes", async () => {
    if (!task) throw new Error("no satellite-ground-chain-1to13 in the kestrel-3 bank");
    const answerKey = await runner.run(task, goldenAgentFactory, 1);
    const exam = (played: Parameters<typeof triadExams>[3]) =>
      triadExams(bank, task, answerKey.grade, played).find(
        (e) => e.name === "sabotage:canary_without_call:runner_up_obsw_build",
      );
    const blind = exam([]);
    const seeing = exam(goldenExchanges(task, answerKey.events));
    if (!blind || !seeing) throw new Error("no canary exam of runner_up_obsw_build");
    expect((await runner.run(task, blind.agent, 1)).grade.passed).toBe(true);
    expect((await runner.run(task, seeing.agent, 1)).grade.passed).toBe(false);
  }, 120_000);
});
