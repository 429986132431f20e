import type { LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { AimdLimiter } from "../src/agents/aimd-limiter.js";
import { modelAgentFactory } from "../src/agents/model-agent.js";
import { DEFAULT_RETRY_POLICY } from "../src/agents/model-call-retry.js";
import { type Bank, bankFromContent } from "../src/bank/bank.js";
import { harborTasks } from "../src/generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../src/generate/harbor-world.js";
import { runGrid } from "../src/run/run-grid.js";
import { runTrial } from "../src/run/run-trial.js";
import type { TrialSession } from "../src/trial/agent.js";
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

/**
 * A fake model that makes `steps` tool calls per conversation, then answers, after `latencyMs` each.
 * It counts its calls, how many were in flight at once, and how long each really took (a timer
 * fires late on a loaded machine), so the throughput figure can be read against what the model did.
 */
function fakeModel(steps: number, latencyMs: number) {
  const stats = { calls: 0, inFlight: 0, peakInFlight: 0, latencyMs: [] as number[] };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      stats.calls++;
      if (latencyMs > 0) {
        const t0 = performance.now();
        stats.peakInFlight = Math.max(stats.peakInFlight, ++stats.inFlight);
        await new Promise((r) => setTimeout(r, latencyMs));
        stats.inFlight--;
        stats.latencyMs.push(performance.now() - t0);
      }
      const done = options.prompt.filter((m) => m.role === "tool").length;
      return done >= steps ? answerTurn : toolTurn(done);
    },
  });
  return { model, stats };
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

    // 1. Per-step overhead: whole trials of 100 steps with a zero-latency model, per step. Wall
    //    time is the target; CPU time beside it shows how much of it is this machine's load.
    const steps = 100;
    const perStep: number[] = [];
    const cpuPerStep: number[] = [];
    for (let i = 0; i < 25; i++) {
      const agent = modelAgentFactory({ name: "zero", model: fakeModel(steps, 0).model });
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await runTrial({ bank, task, agent, epoch: i + 1, limits });
      const cpu = process.cpuUsage(c0);
      if (i >= 5) {
        perStep.push((performance.now() - t0) / (steps + 1));
        cpuPerStep.push((cpu.user + cpu.system) / 1000 / (steps + 1));
      }
    }
    const overhead = median(perStep);
    const overheadCpu = median(cpuPerStep);

    // 1b. The same steps driven straight through the session (no model call): the session's share.
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
    const slow = fakeModel(stepsPerTrial, latency);
    const agent = modelAgentFactory({
      name: "slow",
      model: slow.model,
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
    const modelCalls = slow.stats.calls;
    const throughput = modelCalls / seconds;
    const ideal = concurrency / (latency / 1000);
    const unexpected = results.filter((r) => r.stop_reason !== "answered" || r.tool_calls !== stepsPerTrial);
    if (unexpected.length > 0 || modelCalls !== results.length * (stepsPerTrial + 1)) {
      throw new Error(
        `runner: ${unexpected.length} trials did not run as scripted; the figures would be wrong`,
      );
    }
    const modelLatency = median(slow.stats.latencyMs);
    const meanLatency = slow.stats.latencyMs.reduce((a, b) => a + b, 0) / slow.stats.latencyMs.length;
    process.stderr.write(
      `runner: ${results.length} trials, ${modelCalls} model calls in ${seconds.toFixed(2)} s; ideal ${ideal} steps/s; ` +
        `fake model took ${modelLatency.toFixed(1)} ms median, ${meanLatency.toFixed(1)} ms mean (timer lateness); ` +
        `ideal at that mean ${(concurrency / (meanLatency / 1000)).toFixed(0)} steps/s; peak in flight ${slow.stats.peakInFlight}\n`,
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
        name: "  its CPU time per step (median; wall minus CPU is this machine's load)",
        value: overheadCpu,
        unit: "ms",
        target: "<= 1",
        ok: overheadCpu <= 1,
        issue: 6,
      },
      {
        name: "  of which session + workspace (no model call), per step (median)",
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
      {
        name: "  peak model calls in flight (the gate and the grid reach 64)",
        value: slow.stats.peakInFlight,
        unit: "calls",
        target: `= ${concurrency}`,
        ok: slow.stats.peakInFlight === concurrency,
        issue: 6,
      },
    ];
  },
};

export default benchmark;
