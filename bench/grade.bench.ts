import { blankAgentFactory, goldenAgentFactory } from "../src/agents/scripted-agents.js";
import { bankFromContent } from "../src/bank/bank.js";
import type { Task } from "../src/bank/task-schema.js";
import { defaultBankContent } from "../src/generate/default-bank.js";
import { gradeTrial } from "../src/grade/grade-trial.js";
import { runTrial } from "../src/run/run-trial.js";
import type { TrialEvent } from "../src/world/event-log.js";
import { type Benchmark, median } from "./figure.js";

/**
 * What a run stores of a trial for grading: the task id, the trial seed, the event log and the final
 * message. The grader itself is bank data, loaded once with the bank, not stored per trial.
 */
interface StoredTrial {
  task_id: string;
  trial_seed: string;
  events: TrialEvent[];
  final_message: string | null;
}

/**
 * Issue 5: grading speed from stored event logs, ≥ 5,000 trials per second. Records golden and
 * blank trials over the whole default bank as JSON (graders come from the loaded bank), then parses
 * and grades them, five timed passes
 * after a warm-up pass; wall time and process CPU time are both reported (the machine is shared).
 * The grader prepares each grader object once (compiled patterns, fixed reasons), which the warm-up
 * pays for; a third figure grades against a fresh copy of the bank's tasks each pass, so that cost
 * is shown too (every grader prepared on first use and used twice: a run's worst case).
 */
const bench: Benchmark = {
  name: "grade",
  async run() {
    const bank = bankFromContent(defaultBankContent());
    const stored: string[] = [];
    for (const agent of [goldenAgentFactory, blankAgentFactory]) {
      for (const task of bank.tasks) {
        const r = await runTrial({ bank, task, agent, epoch: 1 });
        const last = r.messages.at(-1);
        const finalText =
          last?.role === "assistant" && Array.isArray(last.content)
            ? (last.content.find((p) => p.type === "text")?.text ?? null)
            : null;
        const record: StoredTrial = {
          task_id: task.id,
          trial_seed: r.trial_seed,
          events: [...r.events],
          final_message: finalText,
        };
        stored.push(JSON.stringify(record));
      }
    }
    const byId = (list: readonly Task[]) => new Map(list.map((t) => [t.id, t]));
    let tasks = byId(bank.tasks);
    const pass = () => {
      for (const text of stored) {
        const t = JSON.parse(text) as StoredTrial;
        const task = tasks.get(t.task_id) as Task;
        gradeTrial({
          grader: task.grader,
          ...(task.graded_segments ? { gradedSegments: task.graded_segments } : {}),
          trialSeed: t.trial_seed,
          events: t.events,
          finalMessage: t.final_message,
        });
      }
    };
    pass();
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      pass();
      const c = process.cpuUsage(c0);
      wall.push(stored.length / ((performance.now() - t0) / 1000));
      cpu.push(stored.length / ((c.user + c.system) / 1e6));
    }
    const cold: number[] = [];
    for (let i = 0; i < 3; i++) {
      tasks = byId(structuredClone(bank.tasks));
      const c0 = process.cpuUsage();
      pass();
      const c = process.cpuUsage(c0);
      cold.push(stored.length / ((c.user + c.system) / 1e6));
    }
    const w = median(wall);
    const c = median(cpu);
    const k = median(cold);
    return [
      {
        name: `grading stored trials, parse + grade (${stored.length} trials)`,
        value: w,
        unit: "trials/s",
        target: ">= 5000",
        ok: w >= 5000,
        issue: 5,
      },
      {
        name: "grading stored trials, per CPU second",
        value: c,
        unit: "trials/s",
        target: ">= 5000",
        ok: c >= 5000,
        issue: 5,
      },
      {
        name: "grading stored trials, graders never seen before, per CPU second",
        value: k,
        unit: "trials/s",
        target: ">= 5000",
        ok: k >= 5000,
        issue: 5,
      },
    ];
  },
};
export default bench;
