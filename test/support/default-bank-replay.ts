import { bankFromContent } from "../../src/bank/bank.js";
import type { GoldenStep, Task } from "../../src/bank/task-schema.js";
import { playAndAnswer, scripted, trial } from "../../src/certify/certify-kit.js";
import { defaultBankContent } from "../../src/generate/default-bank.js";

/**
 * What the agent-audit tests share: the default bank, its solo tasks, and a replay of an edited
 * golden through the real harness (a scripted agent plays the steps and answers with the golden's
 * card from what was bound).
 *
 * @example const r = await replayOnDefaultBank(task, task.golden, "golden"); r.grade.passed
 */
export const defaultBank = bankFromContent(defaultBankContent());

/** The default bank's solo tasks, in bank order. */
export const soloTasks = defaultBank.tasks.filter((t) => t.kind === "solo");

/** A golden step that calls the API. */
export type Execute = Extract<GoldenStep, { op: "execute" }>;

/** Whether a golden step calls the API. */
export const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";

/** A replay's result: the trial's events and grade. */
export type Replay = Awaited<ReturnType<typeof trial>>;

/** Play `steps` on a fresh trial of `task` and finish with the golden's card from what was bound. */
export function replayOnDefaultBank(task: Task, steps: readonly GoldenStep[], name: string): Promise<Replay> {
  return trial(
    defaultBank,
    task,
    scripted(defaultBank, name, async (session) => {
      await playAndAnswer(session, task, steps);
    }),
  );
}

/** The exchanges the world served matching `method` and `url`, in order. */
export function served(r: Replay, method: string, url: RegExp) {
  return r.events.flatMap((e) =>
    e.type === "exchange" && e.method === method && url.test(e.url) ? [e] : [],
  );
}
