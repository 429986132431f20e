import { parentPort } from "node:worker_threads";
import type { Bank } from "../bank/bank.js";
import { type CertifyOptions, certifyTask } from "./certify-bank.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * A certification worker thread: it is handed the bank and options first (it loads its modules
 * while the parent builds the bank), then asks for a task index, certifies that task with the
 * default oracle and exploit suite and sends the findings back, until told to stop. Findings are
 * assembled in task order by the parent, so they do not depend on which worker ran what.
 */
type Setup = { bank: Bank; options: Pick<CertifyOptions, "gates" | "attempts" | "minPasses"> };
const port = parentPort;
if (!port) throw new Error("certify-worker runs as a worker thread");
let setup: (Setup & { runner: TrialRunner }) | null = null;
port.on("message", async (message: { setup: Setup } | { index: number } | { stop: true }) => {
  if ("stop" in message) {
    port.close();
    return;
  }
  if ("setup" in message) {
    setup = { ...message.setup, runner: sharedTrials(message.setup.bank) };
    port.postMessage({ ready: true });
    return;
  }
  if (!setup) throw new Error("certify-worker: a task before the bank");
  const { bank, options, runner } = setup;
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
