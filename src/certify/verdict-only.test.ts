import { describe, expect, it } from "vitest";
import { selectiveChain, skeletonContent } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { type GradeInput, gradeTrial, VERDICT_ONLY_FAIL } from "../grade/grade-trial.js";
import { runTrial } from "../run/run-trial.js";
import type { AgentFactory } from "../trial/agent.js";
import { chainSegments, playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import { negativeReplays } from "./chain-replay.js";
import { EXPLOITS } from "./exploits/index.js";
import { triadExams } from "./triad.js";

/**
 * A verdict-only grade (what certification's must-fail trials get) says what the full grade says
 * of the verdict, on every trial the gates run on a bank: the answer key, the blank and sabotaged
 * exams, the chains' negative replays and every exploit; a failing one is cut short, a passing
 * one is the full grade.
 */
describe("gradeTrial with verdictOnly", () => {
  const plain = skeletonContent();
  // A selective chain too: its ungraded segments must not fail a verdict-only grade.
  const bank = bankFromContent({
    ...plain,
    tasks: [...plain.tasks, ...plain.tasks.filter((t) => t.kind === "chain").map(selective)],
  });

  it("gives the full grade's verdict on every exam, replay and exploit of the skeleton bank", async () => {
    let passing = 0;
    let failing = 0;
    for (const task of bank.tasks) {
      for (const agent of agentsFor(task)) {
        const inputs: GradeInput[] = [];
        await runTrial({
          bank,
          task,
          agent,
          epoch: 1,
          grade: (input) => {
            inputs.push(input);
            return gradeTrial(input);
          },
        });
        const input = inputs[0] as GradeInput;
        const full = gradeTrial(input);
        const quick = gradeTrial(input, { verdictOnly: true });
        expect(quick.passed, `${task.id} ${agent.name}`).toBe(full.passed);
        if (full.passed) {
          passing++;
          expect(quick).toEqual(full);
        } else {
          failing++;
          expect(quick.failure_reason).toBe(VERDICT_ONLY_FAIL);
        }
      }
    }
    // Both kinds were exercised: the answer keys pass, the rest fail.
    expect(passing).toBeGreaterThanOrEqual(bank.tasks.length);
    expect(failing).toBeGreaterThan(bank.tasks.length * 5);
  });

  function agentsFor(task: Task): AgentFactory[] {
    const agents = triadExams(bank, task).map((e) => e.agent);
    const segments = chainSegments(task);
    if (task.kind === "chain" && segments.success)
      for (const replay of negativeReplays(bank, task, segments.data))
        agents.push(
          scripted(bank, `replay-${replay.name}`, (s) => playAndAnswer(s, task, replay.steps).then(() => {})),
        );
    for (const exploit of EXPLOITS)
      if (exploit.applies(task, worldOf(bank, task)))
        agents.push(scripted(bank, `exploit-${exploit.name}`, (s, ctx) => exploit.play(s, ctx)));
    return agents;
  }
});

function selective(task: Task): Task {
  return { ...selectiveChain(task), id: `${task.id}-selective` };
}
