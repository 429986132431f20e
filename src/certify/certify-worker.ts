import { parentPort, workerData } from "node:worker_threads";
import type { Bank } from "../bank/bank.js";
import { type CertifyOptions, certifyTask } from "./certify-bank.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * A certification worker thread: it holds the bank, asks for a task index, certifies that task
 * with the default oracle and exploit suite and sends the findings back, until told to stop.
 * Findings are assembled in task order by the parent, so they do not depend on which worker ran
 * what.
 */
const { bank, options } = workerData as {
  bank: Bank;
  options: Pick<CertifyOptions, "gates" | "attempts" | "minPasses">;
};
const port = parentPort;
if (!port) throw new Error("certify-worker runs as a worker thread");
const runner = sharedTrials(bank);
port.on("message", async (message: { index: number } | { stop: true }) => {
  if ("stop" in message) {
    port.close();
    return;
  }
  const task = bank.tasks[message.index];
  if (!task) throw new Error(`certify-worker: no task at index ${message.index}`);
  try {
    const findings = await certifyTask(bank, task, options, runner);
    port.postMessage({ index: message.index, findings });
  } catch (e) {
    port.postMessage({
      index: message.index,
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
    });
  }
});
port.postMessage({ ready: true });
