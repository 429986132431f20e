import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { buildReport } from "../analyze/build-report.js";
import type { AgentFactory } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { runIntoDir } from "./run-into-dir.js";
import { runTrial } from "./run-trial.js";

const bank = skeletonBank();
const chain = bank.tasks.find((t) => t.kind === "chain")!;

/** Plays the golden, so its card would pass, then throws on chains: the agent's own crash. */
const crashOnChains: AgentFactory = {
  name: "crashy",
  forTask(task) {
    return {
      name: "crashy",
      async attempt(session) {
        await playGolden(task.golden, session, {
          finish: task.kind !== "chain",
          versioning: task.versioning,
        });
        if (task.kind !== "chain") return;
        throw new Error("my agent broke");
      },
    };
  },
};

describe("an agent's own exception is its failure", () => {
  it("a crashing agent scores 0 with outcome agent_error, and stays in the denominator", async () => {
    const r = await runTrial({ bank, task: chain, agent: crashOnChains, epoch: 1 });
    expect(r.outcome).toBe("agent_error");
    expect(r.grade.passed).toBe(false);
    expect(r.stop_detail).toContain("my agent broke");

    const out = await runIntoDir({
      runDir: mkdtempSync(join(tmpdir(), "apiflow-agent-error-")),
      bank,
      agents: [
        { factory: crashOnChains, settings: { kind: "module", module: "./crashy.js" } },
        { factory: goldenAgentFactory, settings: { kind: "scripted" } },
      ],
      epochs: 2,
      concurrency: 4,
      priceTable: DEFAULT_PRICE_TABLE,
    });
    if (!out.success) throw new Error(out.error.message);
    const report = buildReport(out.data.records, { resamples: 0 });
    const crashy = report.models.crashy!;
    const chains = bank.tasks.filter((t) => t.kind === "chain").length * 2;
    // Scored, not tied with the golden: the crashed chains count as failures.
    expect(crashy.trials.unscored).toBe(0);
    expect(crashy.trials.by_outcome.agent_error).toBe(chains);
    expect(crashy.n).toBe(bank.tasks.length * 2);
    expect(crashy.pass_rate).toBeCloseTo((bank.tasks.length * 2 - chains) / (bank.tasks.length * 2));
    expect(crashy.slices.chain.pass_rate).toBe(0);
    expect(report.models.golden!.pass_rate).toBe(1);
  });

  it("an exception raised by our own code inside a tool call stays a harness_error, not scored", async () => {
    const r = await runTrial({
      bank,
      task: chain,
      agent: goldenAgentFactory,
      epoch: 1,
      backend: async () => ({
        call: async () => {
          throw new Error("workspace bug");
        },
        events: () => [],
      }),
    });
    expect(r.outcome).toBe("harness_error");
    expect(r.stop_detail).toContain("workspace bug");
  });
});
