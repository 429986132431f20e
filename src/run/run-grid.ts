import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { AgentFactory } from "../trial/agent.js";
import type { TrialLimits } from "../trial/stop-conditions.js";
import { trialSeed } from "../world/canary.js";
import { harnessErrorResult, runTrial, type TrialResult } from "./run-trial.js";

export interface GridOptions {
  bank: Bank;
  agents: readonly AgentFactory[];
  tasks?: readonly Task[];
  epochs: number;
  /** The run's salt, passed to every trial. */
  salt?: string;
  concurrency?: number;
  limits?: TrialLimits;
  /** Called as each trial finishes (in completion order). */
  onTrial?: (result: TrialResult) => void | Promise<void>;
  /** Skip a cell that is already done (resume). */
  skip?: (cell: GridCell) => boolean;
  /**
   * Checked before each trial starts: true leaves the cell unrun (a cost limit, a model whose key
   * is refused); trials in flight finish.
   */
  shouldStop?: (cell: GridCell) => boolean;
}

export interface GridCell {
  agent: AgentFactory;
  task: Task;
  epoch: number;
}

/** The cells of a grid, agents × tasks × epochs, in a stable order. */
export function gridCells(
  agents: readonly AgentFactory[],
  tasks: readonly Task[],
  epochs: number,
): GridCell[] {
  const cells: GridCell[] = [];
  for (const agent of agents)
    for (const task of tasks)
      for (let epoch = 1; epoch <= epochs; epoch++) cells.push({ agent, task, epoch });
  return cells;
}

/**
 * Run a grid of agents × tasks × epochs with up to `concurrency` trials in flight. Results are
 * returned in grid order whatever order they finished in (only the trials that ran).
 *
 * @example const results = await runGrid({ bank, agents: [goldenAgentFactory], epochs: 1 });
 */
export async function runGrid(options: GridOptions): Promise<TrialResult[]> {
  const tasks = options.tasks ?? options.bank.tasks;
  const cells = gridCells(options.agents, tasks, options.epochs).filter((c) => !options.skip?.(c));
  const results: TrialResult[] = new Array(cells.length);
  let next = 0;
  const worker = async () => {
    while (next < cells.length) {
      const index = next++;
      const cell = cells[index] as GridCell;
      if (options.shouldStop?.(cell)) continue;
      const result = await runTrial({
        bank: options.bank,
        task: cell.task,
        agent: cell.agent,
        epoch: cell.epoch,
        ...(options.salt ? { salt: options.salt } : {}),
        ...(options.limits ? { limits: options.limits } : {}),
      }).catch((e: unknown) =>
        harnessErrorResult(
          cell.task,
          cell.epoch,
          cell.agent.name,
          trialSeed(options.bank.manifest.seed, cell.task.id, cell.epoch, options.salt),
          e,
        ),
      );
      results[index] = result;
      await options.onTrial?.(result);
    }
  };
  const n = Math.max(1, Math.min(options.concurrency ?? 8, cells.length));
  await Promise.all(Array.from({ length: n }, worker));
  // Cells never started (stopped early) leave holes; return what ran, in grid order.
  return results.filter((r): r is TrialResult => r !== undefined);
}

/** `*` and `?` glob over task ids (`harbor-*-sub0?`); a plain id matches itself. */
export function taskGlob(pattern: string): (id: string) => boolean {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
  );
  return (id) => re.test(id);
}
