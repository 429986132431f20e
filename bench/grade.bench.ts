import { blankAgentFactory, goldenAgentFactory } from "../src/agents/scripted-agents.js";
import { bankFromContent } from "../src/bank/bank.js";
import type { GraderSpec } from "../src/bank/task-schema.js";
import { defaultBankContent } from "../src/generate/default-bank.js";
import { gradeTrial } from "../src/grade/grade-trial.js";
import { runTrial } from "../src/run/run-trial.js";
import type { TrialEvent } from "../src/world/event-log.js";
import type { Benchmark } from "./figure.js";

interface StoredTrial {
  grader: GraderSpec;
  graded_segments?: number[];
  trial_seed: string;
  events: TrialEvent[];
  final_message: string | null;
}

/** Issue 5: grading speed from stored event logs, ≥ 5,000 trials per second. */
const bench: Benchmark = {
  name: "grade",
  async run() {
    const bank = bankFromContent(defaultBankContent());
    const stored: string[] = [];
    for (const agent of [goldenAgentFactory, blankAgentFactory]) {
      for (const task of bank.tasks) {
        for (let epoch = 1; epoch <= 2; epoch++) {
          const r = await runTrial({ bank, task, agent, epoch });
          const last = r.messages.at(-1);
          const finalText =
            last?.role === "assistant" && Array.isArray(last.content)
              ? (last.content.find((p) => p.type === "text")?.text ?? null)
              : null;
          const record: StoredTrial = {
            grader: task.grader,
            ...(task.graded_segments ? { graded_segments: task.graded_segments } : {}),
            trial_seed: r.trial_seed,
            events: [...r.events],
            final_message: finalText,
          };
          stored.push(JSON.stringify(record));
        }
      }
    }
    const target = 20_000;
    let graded = 0;
    const started = performance.now();
    while (graded < target) {
      for (const text of stored) {
        const t = JSON.parse(text) as StoredTrial;
        gradeTrial({
          grader: t.grader,
          ...(t.graded_segments ? { gradedSegments: t.graded_segments } : {}),
          trialSeed: t.trial_seed,
          events: t.events,
          finalMessage: t.final_message,
        });
        graded++;
      }
    }
    const perSecond = graded / ((performance.now() - started) / 1000);
    return [
      {
        name: "grading stored trials (parse + grade)",
        value: perSecond,
        unit: "trials/s",
        target: ">= 5000",
        ok: perSecond >= 5000,
        issue: 5,
      },
    ];
  },
};
export default bench;
