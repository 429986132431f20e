import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type OfficialFileOutcome, type OfficialFileRef, readOfficialFile } from "./official-file.js";
import type { OfficialFileBatch } from "./official-file-worker.js";

/** Reads and parses batches of published files, in worker threads or on the calling thread. */
export interface OfficialFilePool {
  /** The outcomes of `files`, in their order. */
  read(files: OfficialFileRef[]): Promise<OfficialFileOutcome[]>;
  /** Workers the pool runs (0: it parses on the calling thread). */
  readonly workers: number;
  close(): Promise<void>;
}

/**
 * Parse threads for an import: one per core but one, at most 4, and at least 1. The calling
 * thread keeps a core for the store and the links; on 2 cores a second parse thread bought nothing
 * and cost 70 MB (measured under load, bench/analyze.bench.ts).
 */
export function defaultImportWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * The worker entry. From the sources (under tsx or vitest) it is a `.ts` file, which a worker
 * thread of Node 20 cannot load by itself (`--import tsx` in `execArgv` does not reach a worker's
 * entry), so a small ESM bootstrap registers tsx's loader first; the built `.js` loads directly.
 */
function startWorker(): Worker {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = new URL(`./official-file-worker.${fromSources ? "ts" : "js"}`, import.meta.url);
  if (!fromSources) return new Worker(entry);
  const bootstrap = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/**
 * A pool of `workers` threads that read and parse published transcript files: JSON.parse of the
 * messages is most of an import's work, and it is CPU-bound, so it runs on every core while the
 * calling thread writes the store. Batches go round-robin and each worker answers in order, so
 * answers are matched first-in, first-out. A worker that dies fails its pending batches (a bug or a
 * broken installation, not a malformed file: those are outcomes). `workers: 0` parses on the
 * calling thread.
 *
 * @example
 * const pool = openOfficialFilePool("/data/1.0", false, 2);
 * const outcomes = await pool.read([{ agent: "gpt-5-mini", name: "v56-w03-sub07-t2.json" }]);
 * await pool.close();
 */
export function openOfficialFilePool(source: string, reference: boolean, workers: number): OfficialFilePool {
  if (workers <= 0) {
    return {
      workers: 0,
      read: async (files) => files.map((f) => readOfficialFile(source, f, reference)),
      close: async () => {},
    };
  }
  type Pending = { seq: number; resolve: (o: OfficialFileOutcome[]) => void; reject: (e: Error) => void };
  const threads = Array.from({ length: workers }, () => {
    const worker = startWorker();
    const pending: Pending[] = [];
    let failure: Error | null = null;
    const fail = (e: Error) => {
      failure ??= e;
      for (const p of pending.splice(0)) p.reject(e);
    };
    worker.on("message", (answer: { seq: number; outcomes: OfficialFileOutcome[] }) => {
      const next = pending.shift();
      if (next?.seq !== answer.seq)
        fail(new Error(`import worker answered batch ${answer.seq} out of order`));
      else next.resolve(answer.outcomes);
    });
    worker.on("error", (e) => fail(new Error(`import worker failed: ${e.message}`)));
    worker.on("exit", (code) => fail(new Error(`import worker exited (code ${code})`)));
    return { worker, pending, failure: () => failure, fail };
  });
  let seq = 0;
  let closed = false;
  return {
    workers,
    read(files) {
      const t = threads[seq % threads.length]!;
      const batch: OfficialFileBatch = { seq: seq++, source, reference, files };
      return new Promise((resolve, reject) => {
        const failed = t.failure();
        if (failed || closed) return reject(failed ?? new Error("import worker pool is closed"));
        t.pending.push({ seq: batch.seq, resolve, reject });
        t.worker.postMessage(batch);
      });
    },
    async close() {
      closed = true;
      await Promise.all(threads.map((t) => t.worker.terminate()));
    },
  };
}
