import type { Command } from "commander";
import { DEFAULT_QUEUE_NAME } from "../../queue/trial-job.js";
import { bankOption, baseUrlOption, concurrencyOption, parsedOption, positiveNumber } from "../flags.js";
import { type CliIo, UsageError } from "../io.js";
import { bankFromOption } from "../load-bank-option.js";
import { queueFromOption } from "../queue-option.js";
import type { SetExit } from "./index.js";

interface WorkerFlags {
  queue: string;
  queueName: string;
  bank?: string;
  concurrency: number;
  baseUrl?: string;
  stallTimeout: number;
}

/**
 * `apiflow worker --queue redis://HOST:PORT [--bank DIR] [--concurrency N]`: run trials that an
 * `apiflow run --queue …` enqueued, on any machine holding the same bank (checked by content hash).
 * Model keys come from this machine's environment. Runs until SIGINT or SIGTERM, then lets the
 * trials in flight finish.
 */
export function registerWorker(program: Command, io: CliIo, setExit: SetExit): void {
  program
    .command("worker")
    .description("run trials from a Redis queue filled by `apiflow run --queue` (until Ctrl-C)")
    .requiredOption("--queue <url>", "Redis of the queue: redis://HOST:PORT[/DB]")
    .option("--queue-name <name>", "BullMQ queue name (the same as the coordinator's)", DEFAULT_QUEUE_NAME)
    .addOption(bankOption("bank folder (default: the built-in bank); it must be the coordinator's bank"))
    .addOption(concurrencyOption("trials in flight in this worker"))
    .addOption(baseUrlOption("API base URL for model jobs (default: the one the coordinator was given)"))
    .addOption(
      parsedOption(
        "--stall-timeout <s>",
        "seconds of silence before a worker's trials go to another worker",
        positiveNumber,
        30,
      ),
    )
    .action(async (opts: WorkerFlags) => {
      const address = queueFromOption(opts.queue);
      const bank = bankFromOption(opts.bank, io.cwd);
      const { concurrency, stallTimeout: stall } = opts;
      const log = (line: string) => io.stderr(`${line}\n`);
      // Loaded only here, so other commands never load BullMQ.
      const { startQueueWorker } = await import("../../queue/queue-worker.js");
      const started = await startQueueWorker({
        address,
        queueName: opts.queueName,
        bank,
        concurrency,
        env: io.env,
        cwd: io.cwd,
        ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
        lockDurationMs: stall * 1000,
        log,
        onTrial: (r) =>
          io.stdout(
            `${r.outcome.padEnd(8)} ${r.agent} ${r.task_id} t${r.epoch} (${r.duration_s.toFixed(2)} s)\n`,
          ),
      });
      if (!started.success) throw new UsageError(started.error.message);
      const worker = started.data;
      log(
        `apiflow worker ${worker.id}: ready on ${address.display} queue ${opts.queueName}, bank ${bank.manifest.name} ${bank.manifest.content_hash.slice(0, 12)}, concurrency ${concurrency}`,
      );
      // The one place a command listens to the process: a worker runs until it is told to stop.
      await new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      });
      log(`apiflow worker ${worker.id}: stopping after the trials in flight`);
      await worker.close();
      setExit(0);
    });
}
