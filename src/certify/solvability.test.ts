import { describe, expect, it } from "vitest";
import { bankWith, SUB02, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { blankAgent } from "../agents/blank-agent.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { AgentFactory } from "../trial/agent.js";
import { solvabilityGate } from "./solvability.js";

/** An oracle that solves its first `n` attempts and then gives up. */
function flakyOracle(n: number): AgentFactory {
  let attempts = 0;
  return {
    name: `flaky-${n}`,
    forTask(task, ctx) {
      attempts += 1;
      return attempts <= n ? goldenAgentFactory.forTask(task, ctx) : blankAgent;
    },
  };
}

describe("solvability", () => {
  const bank = bankFromContent(skeletonContent());

  it("admits every skeleton task with the golden oracle, 10 attempts", async () => {
    const report = await solvabilityGate(bank, bank.tasks, { attempts: 10, minPasses: 3 });
    expect(report).toMatchObject({ checked: 4, passed: 4, failed: 0, first_failure: null });
  });

  it("admits at exactly k passes of N and rejects at k-1", async () => {
    const task = [taskOf(bank, SUB02)];
    expect(
      (await solvabilityGate(bank, task, { oracle: flakyOracle(3), attempts: 10, minPasses: 3 })).failed,
    ).toBe(0);
    const rejected = await solvabilityGate(bank, task, {
      oracle: flakyOracle(2),
      attempts: 10,
      minPasses: 3,
    });
    expect(rejected.failed).toBe(1);
    expect(rejected.first_failure).toMatch(/passed 2 of 10 attempts \(needs 3\)/);
  });

  it("stops at the k-th pass, and runs all N attempts of a task it rejects", async () => {
    const task = [taskOf(bank, SUB02)];
    let tried = 0;
    const counting = (inner: AgentFactory): AgentFactory => ({
      name: inner.name,
      forTask(t, ctx) {
        tried += 1;
        return inner.forTask(t, ctx);
      },
    });
    const admitted = await solvabilityGate(bank, task, {
      oracle: counting(goldenAgentFactory),
      attempts: 10,
      minPasses: 3,
    });
    expect(admitted.failed).toBe(0);
    expect(tried).toBe(3);
    tried = 0;
    const rejected = await solvabilityGate(bank, task, {
      oracle: counting(flakyOracle(2)),
      attempts: 10,
      minPasses: 3,
    });
    expect(rejected.failed).toBe(1);
    expect(tried).toBe(10);
  });

  it("rejects a task only a wrong route solves (the grader wants the decoy's value)", async () => {
    const broken = bankWith(SUB02, (t) => ({
      ...t,
      grader: {
        ...t.grader,
        answer: t.grader.answer.map((f) =>
          f.field === "berth" ? { ...f, expected: { $canary: "v2_stale_berth", format: "BX-{code}" } } : f,
        ),
        g1: t.grader.g1.map((p) =>
          p.kind === "data_flow" ? { ...p, from_response_url_pattern: "^/v2/vessels/V-311$" } : p,
        ),
        constraints: [],
      },
    }));
    const report = await solvabilityGate(broken, [taskOf(broken, SUB02)]);
    expect(report.failed).toBe(1);
    expect(report.first_failure).toMatch(/passed 0 of 10/);
  });
});
