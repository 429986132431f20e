import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadBank, writeBank } from "../src/bank/load-bank.js";
import { harborTasks } from "../src/generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../src/generate/harbor-world.js";
import { runViaQueue } from "../src/queue/queue-coordinator.js";
import { parseQueueUrl } from "../src/queue/queue-url.js";
import { DEFAULT_PRICE_TABLE } from "../src/run/price-table.js";
import { testRedis } from "../test/support/redis-server.js";
import type { BenchFigure, Benchmark } from "./figure.js";
import fixedLatencyAgent, { STEP_MS, STEPS } from "./fixed-latency-agent.js";

const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const AGENT_MODULE = join(ROOT, "bench", "fixed-latency-agent.ts");
const CONCURRENCY = 16;
const TRIALS = 320; // 4 tasks × 80 epochs

/** Start `apiflow worker` processes and resolve once each says it is ready. */
async function startWorkers(
  n: number,
  url: string,
  queueName: string,
  bankDir: string,
): Promise<ChildProcess[]> {
  const workers = Array.from({ length: n }, () =>
    spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/main.ts",
        "worker",
        "--queue",
        url,
        "--queue-name",
        queueName,
        "--bank",
        bankDir,
        "--concurrency",
        String(CONCURRENCY),
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    ),
  );
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((ready, fail) => {
          let err = "";
          w.stderr?.on("data", (d: Buffer) => {
            err += d.toString();
            if (/ready on/.test(err)) ready();
          });
          w.once("exit", (code) => fail(new Error(`worker exited ${code}: ${err}`)));
        }),
    ),
  );
  return workers;
}

async function stop(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((done) => {
          if (w.exitCode !== null) return done();
          w.once("exit", () => done());
          w.kill("SIGTERM");
        }),
    ),
  );
}

/**
 * Issue 10: with a fake model of fixed latency, trials per second through the queue with one worker
 * and with two (same per-worker concurrency), side by side; two should give ≥ 1.8 × one.
 */
const benchmark: Benchmark = {
  name: "queue",
  async run() {
    const redis = await testRedis();
    if (!redis) throw new Error("the queue bench needs redis-server on PATH or APIFLOW_TEST_REDIS");
    const address = parseQueueUrl(redis.url);
    if (!address.success) throw new Error(address.error.message);
    const dir = mkdtempSync(join(tmpdir(), "apiflow-queue-bench-"));
    const bankDir = join(dir, "bank");
    writeBank(bankDir, {
      name: "apiflow-skeleton",
      generator_version: "0.1.0",
      seed: "apiflow-1",
      worlds: [HARBOR_WORLD],
      tasks: harborTasks(),
    });
    const loaded = loadBank(bankDir);
    if (!loaded.success) throw new Error("bench bank did not load");
    const bank = loaded.data;
    const perSecond: Record<1 | 2, number> = { 1: 0, 2: 0 };
    try {
      for (const n of [1, 2] as const) {
        const queueName = `bench-${Date.now()}-${n}`;
        const workers = await startWorkers(n, redis.url, queueName, bankDir);
        try {
          const t0 = performance.now();
          const res = await runViaQueue({
            address: address.data,
            queueName,
            runDir: join(dir, `run-${n}`),
            bank,
            agents: [{ factory: fixedLatencyAgent, settings: { kind: "module", module: AGENT_MODULE } }],
            epochs: TRIALS / bank.tasks.length,
            concurrency: CONCURRENCY,
            priceTable: DEFAULT_PRICE_TABLE,
            pollMs: 20,
          });
          const seconds = (performance.now() - t0) / 1000;
          if (!res.success) throw new Error(res.error.message);
          if (res.data.ran !== TRIALS) throw new Error(`ran ${res.data.ran} of ${TRIALS} trials`);
          perSecond[n] = TRIALS / seconds;
          process.stderr.write(
            `queue: ${n} worker(s) × concurrency ${CONCURRENCY}: ${TRIALS} trials in ${seconds.toFixed(2)} s = ${perSecond[n].toFixed(1)} trials/s\n`,
          );
        } finally {
          await stop(workers);
        }
      }
    } finally {
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    const ideal = CONCURRENCY / ((STEPS * STEP_MS) / 1000);
    const ratio = perSecond[2] / perSecond[1];
    const figures: BenchFigure[] = [
      {
        name: `queue, 1 worker × ${CONCURRENCY}, ${STEP_MS} ms × ${STEPS} steps (ideal ${ideal} trials/s)`,
        value: perSecond[1],
        unit: "trials/s",
        target: "(reference)",
        ok: true,
        issue: 10,
      },
      {
        name: `queue, 2 workers × ${CONCURRENCY} (ideal ${2 * ideal} trials/s)`,
        value: perSecond[2],
        unit: "trials/s",
        target: `>= ${(1.8 * perSecond[1]).toFixed(1)}`,
        ok: ratio >= 1.8,
        issue: 10,
      },
      {
        name: "queue, 2 workers / 1 worker",
        value: ratio,
        unit: "×",
        target: ">= 1.8",
        ok: ratio >= 1.8,
        issue: 10,
      },
    ];
    return figures;
  },
};

export default benchmark;
