import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import type { TrialSession } from "../src/agents/agent.js";
import { modelAgentFactory } from "../src/agents/model-agent.js";
import { type Bank, bankFromContent } from "../src/bank/bank.js";
import { harborTasks } from "../src/generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../src/generate/harbor-world.js";
import { AimdLimiter } from "../src/run/aimd-limiter.js";
import { DEFAULT_RETRY_POLICY } from "../src/run/model-call-retry.js";
import { runGrid } from "../src/run/run-grid.js";
import { runTrial } from "../src/run/run-trial.js";
import { type Benchmark, median } from "./figure.js";

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
const toolTurn = (i: number): LanguageModelV3GenerateResult => ({
  content: [
    {
      type: "tool-call",
      toolCallId: `c${i}`,
      toolName: "read",
      input: JSON.stringify({ entity_ref: { kind: "variable", id: "client_id" } }),
    },
  ],
  finishReason: { unified: "tool-calls", raw: undefined },
  usage,
  warnings: [],
});
const answerTurn: LanguageModelV3GenerateResult = {
  content: [{ type: "text", text: '```json\n{"firmware_build": "x", "firmware_channel": "y"}\n```' }],
  finishReason: { unified: "stop", raw: undefined },
  usage,
  warnings: [],
};

/** A fake model that makes `steps` tool calls per conversation, then answers, after `latencyMs` each. */
function fakeModel(steps: number, latencyMs: number) {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
      const done = options.prompt.filter((m) => m.role === "tool").length;
      return done >= steps ? answerTurn : toolTurn(done);
    },
  });
}

function skeleton(): Bank {
  return bankFromContent({
    name: "apiflow-skeleton",
    generator_version: "0.1.0",
    seed: "apiflow-1",
    worlds: [HARBOR_WORLD],
    tasks: harborTasks(),
  });
}

/**
 * Issue 6's runner targets: the harness's own cost per agent step (model latency zero), and the
 * throughput of 64 concurrent trials against a model that takes 200 ms per step.
 */
const benchmark: Benchmark = {
  name: "runner",
  async run() {
    const bank = skeleton();
    const task = bank.tasks[0] as Bank["tasks"][0];
    const limits = { maxToolCalls: 10_000, maxTokens: 1e12, maxSeconds: 600 };

    // 1. Per-step overhead: whole trials of 100 steps with a zero-latency model, per step.
    const steps = 100;
    const perStep: number[] = [];
    for (let i = 0; i < 25; i++) {
      const agent = modelAgentFactory({ name: "zero", model: fakeModel(steps, 0) });
      const t0 = performance.now();
      await runTrial({ bank, task, agent, epoch: i + 1, limits });
      if (i >= 5) perStep.push((performance.now() - t0) / (steps + 1));
    }
    const overhead = median(perStep);

    // 1b. The same steps driven straight through the session (no AI SDK call): our own share.
    const direct: number[] = [];
    for (let i = 0; i < 25; i++) {
      const agent = {
        name: "direct",
        forTask: () => ({
          name: "direct",
          async attempt(session: TrialSession) {
            for (let s = 0; s < steps; s++) {
              await session.step({
                toolCalls: [
                  { name: "read", arguments: { entity_ref: { kind: "variable", id: "client_id" } } },
                ],
              });
            }
            session.finish("done");
          },
        }),
      };
      const t0 = performance.now();
      await runTrial({ bank, task, agent, epoch: i + 1, limits });
      if (i >= 5) direct.push((performance.now() - t0) / steps);
    }
    const ownShare = median(direct);

    // 2. Throughput at concurrency 64 with 200 ms per model call.
    const latency = 200;
    const concurrency = 64;
    const stepsPerTrial = 10;
    const agent = modelAgentFactory({
      name: "slow",
      model: fakeModel(stepsPerTrial, latency),
      calls: { retry: DEFAULT_RETRY_POLICY, limiter: new AimdLimiter({ max: concurrency }) },
    });
    const t0 = performance.now();
    const results = await runGrid({
      bank,
      agents: [agent],
      tasks: [task],
      epochs: concurrency * 2,
      concurrency,
      limits,
    });
    const seconds = (performance.now() - t0) / 1000;
    const modelCalls = results.length * (stepsPerTrial + 1);
    const throughput = modelCalls / seconds;
    const ideal = concurrency / (latency / 1000);
    process.stderr.write(
      `runner: ${results.length} trials, ${modelCalls} model calls in ${seconds.toFixed(2)} s; ideal ${ideal} steps/s\n`,
    );
    return [
      {
        name: "harness overhead per agent step, zero-latency model (median)",
        value: overhead,
        unit: "ms",
        target: "<= 1",
        ok: overhead <= 1,
        issue: 6,
      },
      {
        name: "  of which session + workspace (no AI SDK call), per step (median)",
        value: ownShare,
        unit: "ms",
        target: "<= 1",
        ok: ownShare <= 1,
        issue: 6,
      },
      {
        name: `throughput at concurrency 64, 200 ms model (ideal ${ideal} steps/s)`,
        value: throughput,
        unit: "steps/s",
        target: `>= ${0.9 * ideal}`,
        ok: throughput >= 0.9 * ideal,
        issue: 6,
      },
      {
        name: "throughput as a share of ideal",
        value: (100 * throughput) / ideal,
        unit: "%",
        target: ">= 90",
        ok: throughput >= 0.9 * ideal,
        issue: 6,
      },
    ];
  },
};

export default benchmark;
