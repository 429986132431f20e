import { placeholderNames } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { DEFAULT_LIMITS } from "../trial/stop-conditions.js";

/**
 * Share of the default tool-call limit a golden solution may use. The golden is the shortest careful
 * solution; an agent that reads the spec once more, retries a 429 or re-reads a page needs room (the
 * published 1.0 trials reached 251 calls), so a task whose golden needs more than half the default
 * limit is not fair under it.
 */
export const GOLDEN_BUDGET_SHARE = 0.5;

/** The most tool calls a golden may make: half the default limit (150 of 300). */
export const GOLDEN_TOOL_CALL_BUDGET = Math.floor(DEFAULT_LIMITS.maxToolCalls * GOLDEN_BUDGET_SHARE);

/**
 * Tool calls the golden interpreter (`playGolden`) makes for these steps: one `read` of the spec per
 * `read_spec`; per `execute` one call, one `read` of its response when it captures anything, and one
 * `read` per workspace value (vault or variable) it names for the first time; one `write` per
 * `store`. The answer is the final message, not a tool call.
 *
 * @example goldenToolCalls([{ op: "read_spec" }, { op: "execute", request: { method: "GET", url: "/v3/x" }, capture: { id: "id" } }]) // 3
 */
export function goldenToolCalls(steps: readonly GoldenStep[]): number {
  const bound = new Set<string>();
  let calls = 0;
  const resolve = (text: string) => {
    for (const name of placeholderNames(text)) {
      if (bound.has(name)) continue;
      bound.add(name);
      calls += 1;
    }
  };
  for (const step of steps) {
    switch (step.op) {
      case "read_spec":
        calls += 1;
        break;
      case "execute":
        resolve(step.request.url);
        for (const v of Object.values(step.request.headers ?? {})) resolve(v);
        if (step.request.body !== undefined) resolve(JSON.stringify(step.request.body));
        calls += 1;
        if (Object.keys(step.capture).length > 0) {
          calls += 1;
          for (const name of Object.keys(step.capture)) bound.add(name);
        }
        break;
      case "store":
        calls += 1;
        break;
      case "answer":
        break;
    }
  }
  return calls;
}

/** Tasks whose golden needs more tool calls than the budget, with what each needs. */
export function overBudget(
  tasks: readonly Task[],
  budget = GOLDEN_TOOL_CALL_BUDGET,
): Array<{ id: string; calls: number }> {
  return tasks.flatMap((t) => {
    const calls = goldenToolCalls(t.golden);
    return calls > budget ? [{ id: t.id, calls }] : [];
  });
}
