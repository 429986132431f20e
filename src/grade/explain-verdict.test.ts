import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { runTrial } from "../run/run-trial.js";
import { gradeInputOf, storedTrialLogOf } from "../run/stored-trial-log.js";
import type { AgentFactory } from "../trial/agent.js";
import { explainVerdict, formatExplanation } from "./explain-verdict.js";

const bank = skeletonBank();
const task = bank.tasks.find((t) => t.grader.g1.some((p) => p.kind === "data_flow")) ?? bank.tasks[0]!;

async function explained(agent: AgentFactory, finalMessage?: (m: string | null) => string) {
  const result = await runTrial({ bank, task, agent, epoch: 1 });
  const log = storedTrialLogOf(result, task, bank.manifest.content_hash);
  if (finalMessage) log.final_message = finalMessage(log.final_message);
  return { log, ex: explainVerdict(gradeInputOf(log)) };
}

describe("explainVerdict", () => {
  it("accounts for a pass: every predicate holds, each G1 one names the event that satisfied it", async () => {
    const { log, ex } = await explained(goldenAgentFactory);
    expect(ex.passed).toBe(true);
    expect(ex.predicates.filter((p) => p.group !== "checkpoint").every((p) => p.passed)).toBe(true);
    const seqs = new Set(log.events.map((e) => e.seq));
    for (const p of ex.predicates.filter((q) => q.group === "G1")) {
      const by = p.evidence.find((e) => e.role === "satisfied_by");
      expect(by?.seq !== null && seqs.has(by?.seq as number), `${p.id} cites an event of the log`).toBe(true);
    }
    // Each answer field: what it held, what it had to hold, and the response that carried it.
    for (const p of ex.predicates.filter((q) => q.group === "G2")) {
      expect(p.got).toEqual(p.expected);
      expect(p.evidence.some((e) => e.role === "seen_in" && e.seq !== null)).toBe(true);
    }
    expect(formatExplanation(ex, "golden")).toMatch(/^golden: PASS/);
  });

  it("accounts for a fail: the broken answer field names what it got, and the G1 predicate that needs the card fails with its reason", async () => {
    // The golden run's calls, but the answer card's first field changed.
    const field = task.grader.answer[0]!.field;
    const { ex } = await explained(goldenAgentFactory, () => `\`\`\`json\n{"${field}": "not-it"}\n\`\`\``);
    expect(ex.passed).toBe(false);
    const g2 = ex.predicates.find((p) => p.group === "G2" && p.id === field);
    expect(g2).toMatchObject({ passed: false, got: "not-it" });
    expect(g2?.reason).toBeTruthy();
    expect(g2?.evidence).toEqual([
      { seq: null, role: "seen_in", summary: 'no response of the trial carries "not-it"' },
    ]);
    expect(ex.failure_reason).toContain("first failure");
    for (const p of ex.predicates.filter((q) => !q.passed && q.group !== "checkpoint"))
      expect(p.reason).toBeTruthy();
    expect(formatExplanation(ex, "edited")).toContain(`✗ G2 answer.`);
  });

  it("names the event that broke a predicate that held before it", async () => {
    // A workspace value is overwritten: the predicate held after the first write, the second broke it.
    const grader = {
      ...task.grader,
      g1: [
        {
          kind: "workspace_value" as const,
          id: "kept",
          explain: "keep x",
          name: "x",
          scope: "local" as const,
          value: 1,
        },
      ],
    };
    const events = [
      { type: "variable_write" as const, seq: 0, scope: "local" as const, name: "x", value: 1 },
      { type: "variable_write" as const, seq: 1, scope: "local" as const, name: "x", value: 2 },
    ];
    const ex = explainVerdict({ grader, trialSeed: "s", events, finalMessage: null });
    const kept = ex.predicates.find((p) => p.id === "kept");
    expect(kept?.passed).toBe(false);
    expect(kept?.evidence[0]).toMatchObject({ seq: 1, role: "broken_by" });
    const held = explainVerdict({ grader, trialSeed: "s", events: events.slice(0, 1), finalMessage: null });
    expect(held.predicates.find((p) => p.id === "kept")?.evidence[0]).toMatchObject({
      seq: 0,
      role: "satisfied_by",
    });
  });
});
