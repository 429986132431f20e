import { beforeAll, describe, expect, it } from "vitest";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { runTrial } from "../run/run-trial.js";
import { defaultBankContent } from "./default-bank.js";

/**
 * Issue 16's done-when: the baseline agent passes close to no hard task. The scripted baseline
 * (inventory, spec, a mint, GETs of the routes the ticket points at, the hints errors give) is run
 * once over every task of the default bank, as `npm start` runs it; "close to none" is at most 2%
 * of the hard tasks.
 */
const CLOSE_TO_NONE = 0.02;
const bank = bankFromContent(defaultBankContent());

/** The share of the tasks labelled hard that the baseline passed. */
function hardShare(tasks: readonly Pick<Task, "id" | "difficulty">[], passed: ReadonlySet<string>): number {
  const hard = tasks.filter((t) => t.difficulty === "hard");
  return hard.filter((t) => passed.has(t.id)).length / hard.length;
}

describe("the baseline agent on hard tasks", () => {
  const passed = new Set<string>();
  beforeAll(async () => {
    for (const task of bank.tasks) {
      const r = await runTrial({ bank, task, agent: baselineAgentFactory, epoch: 1 });
      if (r.grade.passed) passed.add(task.id);
    }
  }, 600_000);

  it("passes close to no hard task", () => {
    expect(bank.tasks.filter((t) => t.difficulty === "hard").length).toBeGreaterThanOrEqual(100);
    expect(hardShare(bank.tasks, passed)).toBeLessThanOrEqual(CLOSE_TO_NONE);
  });

  it("is a working agent: it passes some tasks, none of them hard", () => {
    expect(passed.size).toBeGreaterThan(0);
    for (const id of passed) expect(bank.tasks.find((t) => t.id === id)?.difficulty, id).not.toBe("hard");
  });

  it("the check fails a labelling that calls the tasks the baseline passes hard", () => {
    const relabelled = bank.tasks.map((t) => (passed.has(t.id) ? { ...t, difficulty: "hard" as const } : t));
    expect(hardShare(relabelled, passed)).toBeGreaterThan(CLOSE_TO_NONE);
  });
});
