import { describe, expect, it } from "vitest";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { Rng } from "../bank/rng.js";
import { runTrial } from "../run/run-trial.js";
import { DEFAULT_LIMITS } from "../trial/stop-conditions.js";
import { defaultBankContent } from "./default-bank.js";
import { generateBank } from "./generate-bank.js";
import { GOLDEN_TOOL_CALL_BUDGET, goldenToolCalls, overBudget } from "./tool-budget.js";

const content = defaultBankContent();
const bank = bankFromContent(content);

describe("the tool-call budget of goldens", () => {
  it("is half the default limit", () => {
    expect(GOLDEN_TOOL_CALL_BUDGET).toBe(Math.floor(DEFAULT_LIMITS.maxToolCalls * 0.5));
  });

  it("counts exactly the tool calls the golden interpreter makes (a seeded sample with the longest chains)", async () => {
    const longest = [...bank.tasks]
      .sort((a, b) => goldenToolCalls(b.golden) - goldenToolCalls(a.golden))
      .slice(0, 3);
    const sample = [
      ...longest,
      ...Rng.derive("budget-test", "sample")
        .shuffle([...bank.tasks])
        .slice(0, 12),
    ];
    for (const task of sample) {
      const r = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      const made = r.messages.reduce(
        (n, m) => n + (m.role === "assistant" ? (m.tool_calls?.length ?? 0) : 0),
        0,
      );
      expect(r.grade.passed, task.id).toBe(true);
      expect(goldenToolCalls(task.golden), task.id).toBe(made);
    }
  }, 120_000);

  it("keeps every golden of the default bank and of another seed within the budget", () => {
    expect(overBudget(content.tasks)).toEqual([]);
    const other = generateBank({ seed: "private-split-7" });
    expect(other.success).toBe(true);
    const max = Math.max(...content.tasks.map((t) => goldenToolCalls(t.golden)));
    expect(max).toBeLessThanOrEqual(GOLDEN_TOOL_CALL_BUDGET);
  });

  it("refuses to write a bank whose goldens outgrow the budget", () => {
    const r = generateBank({ worlds: 1, positions: 20, toolCallBudget: 40 });
    expect(r.success).toBe(false);
    if (!r.success) {
      expect(r.error.code).toBe("golden_over_budget");
      expect(r.error.message).toMatch(/need more than 40 tool calls/);
    }
  });
});
