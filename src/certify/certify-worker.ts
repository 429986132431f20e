import { parentPort } from "node:worker_threads";
import type { Bank } from "../bank/bank.js";
import { type CertifyOptions, certifyTask } from "./certify-bank.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * A certification worker thread: it is handed the bank and options first (it loads its modules
 * while the parent builds the bank), then task indices (a few ahead), certifies each task in turn
 * with the default oracle and exploit suite and sends the findings back, until told to stop. Findings are
 * assembled in task order by the parent, so they do not depend on which worker ran what.
 */
type Setup = { bank: Bank; options: Pick<CertifyOptions, "gates" | "attempts" | "minPasses"> };
const port = parentPort;
if (!port) throw new Error("certify-worker runs as a worker thread");
let setup: (Setup & { runner: TrialRunner }) | null = null;
// The parent hands out tasks a few ahead: they wait here and are certified one at a time.
const queue: number[] = [];
let busy = false;
let stopping = false;
port.on("message", (message: { setup: Setup } | { index: number } | { stop: true }) => {
  if ("stop" in message) {
    stopping = true;
    if (!busy) port.close();
    return;
  }
  if ("setup" in message) {
    setup = { ...message.setup, runner: sharedTrials(message.setup.bank) };
    port.postMessage({ ready: true });
    return;
  }
  queue.push(message.index);
  void drain();
});

async function drain(): Promise<void> {
  if (busy || !port) return;
  busy = true;
  for (let index = queue.shift(); index !== undefined; index = queue.shift()) {
    if (!setup) throw new Error("certify-worker: a task before the bank");
    const { bank, options, runner } = setup;
    const task = bank.tasks[index];
    if (!task) throw new Error(`certify-worker: no task at index ${index}`);
    try {
      const findings = await certifyTask(bank, task, options, runner);
      port.postMessage({ index, findings });
    } catch (e) {
      port.postMessage({ index, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  }
  busy = false;
  if (stopping) port.close();
}
