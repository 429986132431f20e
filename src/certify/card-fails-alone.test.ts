import { describe, expect, it } from "vitest";
import { SUB01, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { finalAssistantText } from "../grade/answer-card.js";
import { trialSeed } from "../world/canary.js";
import { cardFailsAlone } from "./card-fails-alone.js";
import { cardMessage, scripted, trial } from "./certify-kit.js";
import { exploitFindings } from "./exploit-audit.js";
import { RELEASED_EPOCH } from "./exploits/exploit-kit.js";
import { OTHER_RUN_SALT, replayOtherRunExploit } from "./exploits/replay-other-run.js";
import { replayOtherTrialExploit } from "./exploits/replay-other-trial.js";
import { sharedTrials } from "./trial-tree.js";

const skeleton = bankFromContent(skeletonContent());
const task = taskOf(skeleton, SUB01);
const seed = trialSeed(skeleton.manifest.seed, task.id, 1);

describe("cardFailsAlone", () => {
  it("is false for the golden's own card, true for another trial's (other canaries) and for no card", async () => {
    const golden = await trial(skeleton, task, goldenAgentFactory);
    expect(golden.grade.passed).toBe(true);
    expect(cardFailsAlone(task, seed, finalAssistantText(golden.messages))).toBe(false);
    const other = await trial(skeleton, task, goldenAgentFactory, RELEASED_EPOCH);
    expect(cardFailsAlone(task, seed, finalAssistantText(other.messages))).toBe(true);
    expect(cardFailsAlone(task, seed, "Done.")).toBe(true);
  });

  it("never judges a record reference, which only the world's final records resolve", () => {
    const byRecord: Task = {
      ...task,
      grader: {
        ...task.grader,
        answer: [
          {
            field: "order_id",
            explain: "The open order, by its role.",
            comparator: "string",
            expected: { $record: { resource: "orders", where: { status: "open" } }, field: "id" },
          },
        ],
      },
    };
    expect(cardFailsAlone(byRecord, seed, cardMessage({ order_id: "anything" }))).toBe(false);
  });

  it("is graded as gradeTrial grades: a trial finishing at once with a card it condemns fails", async () => {
    const other = await trial(skeleton, task, goldenAgentFactory, RELEASED_EPOCH);
    const message = finalAssistantText(other.messages);
    const r = await trial(
      skeleton,
      task,
      scripted(skeleton, "other-card", async (s) => s.finish(message)),
    );
    expect(cardFailsAlone(task, seed, message)).toBe(true);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g2_passed).toBe(false);
  });
});

describe("verdict-only replays", () => {
  it("answer at once where the other trial's card fails alone, with the audit's verdicts unchanged", async () => {
    const exploits = [replayOtherTrialExploit, replayOtherRunExploit(OTHER_RUN_SALT)];
    for (const exploit of exploits) {
      const quick = await trial(
        skeleton,
        task,
        scripted(skeleton, exploit.name, exploit.play, { verdictOnly: true }),
      );
      expect(quick.tool_calls).toBe(0);
      expect(quick.grade.passed).toBe(false);
      const whole = await trial(skeleton, task, scripted(skeleton, exploit.name, exploit.play));
      expect(whole.tool_calls).toBeGreaterThan(0);
      expect(whole.grade.passed).toBe(false);
    }
    const found = await exploitFindings(skeleton, task, exploits, sharedTrials(skeleton));
    expect(found.attacked).toEqual(exploits.map((e) => e.name));
    expect(found.passed).toEqual([]);
  });

  it("still replay every call where the card alone does not fail (the same run's salt is the answer key)", async () => {
    const same = replayOtherRunExploit("");
    const r = await trial(
      skeleton,
      task,
      scripted(skeleton, same.name, same.play, { verdictOnly: true }),
      100,
    );
    expect(r.tool_calls).toBeGreaterThan(0);
    expect(r.grade.passed).toBe(true);
  });
});
