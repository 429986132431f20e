/**
 * What a task id says about its task. Bank and published 1.0 ids share one grammar:
 * `<bank>-<world>-sub<NN>` for a solo subtask and `<bank>-<world>-chain-1to<LL>` for the chain of
 * subtasks 1..L of that world.
 */
export interface TaskIdParts {
  /** Bank prefix, e.g. `v56`. */
  bank: string;
  world: string;
  kind: "solo" | "chain";
  position: number | null;
  length: number | null;
}

const TASK_ID = /^([a-z0-9]+)-(w\d+)-(?:sub(\d+)|chain-1to(\d+))$/;

/**
 * Parse a task id; null when it does not follow the grammar.
 *
 * @example parseTaskId("v56-w03-chain-1to12") // { bank: "v56", world: "w03", kind: "chain", position: null, length: 12 }
 */
export function parseTaskId(taskId: string): TaskIdParts | null {
  const m = TASK_ID.exec(taskId);
  if (!m) return null;
  const [, bank, world, sub, chain] = m;
  if (sub !== undefined) {
    const position = Number(sub);
    return position > 0 ? { bank: bank!, world: world!, kind: "solo", position, length: null } : null;
  }
  const length = Number(chain);
  return length > 0 ? { bank: bank!, world: world!, kind: "chain", position: null, length } : null;
}

/**
 * The solo task id of subtask `position` of a world, in the same bank as `like`.
 *
 * @example soloTaskId("v56", "w03", 7) // "v56-w03-sub07"
 */
export function soloTaskId(bank: string, world: string, position: number): string {
  return `${bank}-${world}-sub${String(position).padStart(2, "0")}`;
}
