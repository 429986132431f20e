import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { testRedis } from "../../test/support/redis-server.js";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { slowGoldenAgentFactory } from "../../test/support/slow-golden-agent.js";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { writeBank } from "../bank/load-bank.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { DEFAULT_PRICE_TABLE } from "../run/price-table.js";
import { runIntoDir } from "../run/run-into-dir.js";
import { openStore } from "../run/store.js";
import type { TrialRecord } from "../run/trial-record.js";
import { runViaQueue } from "./queue-coordinator.js";
import { QUEUE_PREFIX } from "./queue-keys.js";
import { parseQueueUrl } from "./queue-url.js";
import { startQueueWorker } from "./queue-worker.js";

const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
const REDIS_URL = redis?.url ?? "redis://127.0.0.1:1";
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-queue-cli-"));
const SLOW_AGENT = "./test/support/slow-golden-agent.ts";
const bankContent = {
  name: "apiflow-skeleton",
  generator_version: "0.1.0",
  seed: "apiflow-1",
  worlds: [HARBOR_WORLD],
  tasks: harborTasks(),
};
const bankDir = tmp();
writeBank(bankDir, bankContent);
const otherBankDir = tmp();
writeBank(otherBankDir, { ...bankContent, seed: "apiflow-2" });

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await redis?.stop();
});

/** `node --import tsx src/cli/main.ts …` with its output kept. */
function cli(args: string[]) {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function worker(queueName: string, bank: string, concurrency = 4) {
  const w = cli([
    "worker",
    "--queue",
    REDIS_URL,
    "--queue-name",
    queueName,
    "--bank",
    bank,
    "--concurrency",
    String(concurrency),
    "--stall-timeout",
    "2",
  ]);
  return w;
}

function rowCount(dir: string): number {
  const path = join(dir, "results.sqlite");
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT count(*) FROM trials").pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

const comparable = (recs: Iterable<TrialRecord>) =>
  [...recs]
    .map(({ duration_s: _d, ...rest }) => rest)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function duplicatedEvents(client: Redis, queueName: string): Promise<number> {
  const events = (await client.xrange(`${QUEUE_PREFIX}:${queueName}:events`, "-", "+")) as Array<
    [string, string[]]
  >;
  return events.filter(([, fields]) => fields[1] === "duplicated").length;
}

describe.skipIf(!redis)("apiflow run --queue with apiflow worker processes", () => {
  it("coordinator killed and restarted, one of two workers SIGKILLed mid-trial: every trial recorded once, as the local runner records it", async () => {
    const queueName = `t${Date.now()}-main`;
    const out = tmp();
    const EPOCHS = 24; // 2 agents × 4 tasks × 24 epochs; the slow golden trials come first
    const TOTAL = 192;
    const runArgs = [
      "run",
      "--bank",
      bankDir,
      "--agent",
      SLOW_AGENT,
      "baseline",
      "--epochs",
      String(EPOCHS),
      "--out",
      out,
      "--queue",
      REDIS_URL,
      "--queue-name",
      queueName,
      "--json",
    ];
    const client = new Redis(REDIS_URL);
    const queue = new Queue(queueName, { connection: { url: REDIS_URL }, prefix: QUEUE_PREFIX });
    let maxJobs = 0;
    const jobCount = async () => {
      const counts = await queue.getJobCounts();
      const n = Object.values(counts).reduce((s, c) => s + c, 0);
      maxJobs = Math.max(maxJobs, n);
      return n;
    };
    try {
      // 1. A coordinator enqueues the grid with no worker about, and is killed.
      const first = cli(runArgs);
      await until("the grid enqueued", async () => (await jobCount()) === TOTAL);
      first.child.kill("SIGKILL");
      expect(await first.exited).toBeNull();

      // 2. Two workers run trials while no coordinator is there: results wait in Redis.
      const a = worker(queueName, bankDir);
      const b = worker(queueName, bankDir);
      await until("both workers ready", () => /ready/.test(a.err()) && /ready/.test(b.err()));
      await until("results waiting in Redis", async () => (await queue.getCompletedCount()) >= 10);

      // 3. A second coordinator enqueues the same grid again (nothing is added) and collects.
      const second = cli(runArgs);
      await until("the second enqueue", async () => (await duplicatedEvents(client, queueName)) >= TOTAL);
      expect(await jobCount()).toBeLessThanOrEqual(TOTAL);

      // 4. One worker is SIGKILLed with slow trials in flight; the other gets them once stalled.
      await until("trials recorded", () => rowCount(out) >= 10);
      await until("worker a busy", async () => (await queue.getActiveCount()) >= 5);
      a.child.kill("SIGKILL");
      expect(await a.exited).toBeNull();

      // 5. The coordinator is killed once more mid-collection and restarted; it finishes.
      await until("more trials recorded", () => rowCount(out) >= 60);
      second.child.kill("SIGKILL");
      await second.exited;
      const third = cli(runArgs);
      expect(await third.exited, third.err()).toBe(0);
      const summary = (JSON.parse(third.out()) as { summary: { total: number; resumed: number } }).summary;
      expect(summary.total).toBe(TOTAL);
      expect(summary.resumed).toBeGreaterThanOrEqual(60);
      expect(b.err()).toMatch(/stalled \(its worker went silent\); it runs again/);
      expect(maxJobs).toBeLessThanOrEqual(TOTAL);
      // Everything collected was removed from Redis.
      expect(await jobCount()).toBe(0);

      b.child.kill("SIGTERM");
      expect(await b.exited).toBe(0);
    } finally {
      client.disconnect();
      await queue.close();
    }

    // Exactly once, and the same rows and transcripts as the local runner's.
    const store = openStore(out, { readonly: true });
    const queued = [...store.all()];
    store.close();
    expect(queued).toHaveLength(TOTAL);
    const keys = new Set(queued.map((r) => `${r.agent}/${r.task_id}/${r.epoch}`));
    expect(keys.size).toBe(TOTAL);
    for (const agent of ["slow-golden", "baseline"]) {
      expect(readdirSync(join(out, "transcripts", agent)).filter((f) => f.endsWith(".json"))).toHaveLength(
        96,
      );
    }
    const local = tmp();
    const res = await runIntoDir({
      runDir: local,
      bank: skeletonBank(),
      agents: [
        { factory: slowGoldenAgentFactory, settings: { kind: "module", module: SLOW_AGENT } },
        { factory: baselineAgentFactory, settings: { kind: "scripted" } },
      ],
      epochs: EPOCHS,
      concurrency: 16,
      priceTable: DEFAULT_PRICE_TABLE,
    });
    if (!res.success) throw new Error(res.error.message);
    expect(comparable(queued)).toEqual(comparable(res.data.records));
  }, 180_000);

  it("a worker with another bank refuses the trials with a clear error; the coordinator says so", async () => {
    const parsed = parseQueueUrl(REDIS_URL);
    if (!parsed.success) throw new Error(parsed.error.message);
    const queueName = `t${Date.now()}-bank`;
    const notices: string[] = [];
    const bank = skeletonBank();
    const coordinator = runViaQueue({
      address: parsed.data,
      queueName,
      runDir: tmp(),
      bank,
      agents: [{ factory: baselineAgentFactory, settings: { kind: "scripted" } }],
      epochs: 2,
      concurrency: 4,
      priceTable: DEFAULT_PRICE_TABLE,
      pollMs: 20,
      onNotice: (line) => notices.push(line),
    });
    const wrong = worker(queueName, otherBankDir);
    await until("the refusal", () => /bank hash mismatch/.test(wrong.err()) && notices.length > 0);
    expect(wrong.err()).toMatch(
      new RegExp(
        `refusing trial trial-[0-9a-f]+: bank hash mismatch: the job is for bank apiflow-skeleton ${bank.manifest.content_hash.slice(0, 12)}, this worker has apiflow-skeleton [0-9a-f]{12} \\(start it with --bank pointing at that bank\\)`,
      ),
    );
    expect(notices[0]).toMatch(/refuses trials: bank hash mismatch/);
    const queue = new Queue(queueName, { connection: { url: REDIS_URL }, prefix: QUEUE_PREFIX });
    expect(await queue.getCompletedCount()).toBe(0);
    await queue.close();
    wrong.child.kill("SIGTERM");
    await wrong.exited;

    const right = await startQueueWorker({
      address: parsed.data,
      queueName,
      bank,
      concurrency: 4,
      env: {},
      cwd: process.cwd(),
      refuseDelayMs: 50,
      log: () => {},
    });
    if (!right.success) throw new Error(right.error.message);
    const res = await coordinator;
    await right.data.close();
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.records).toHaveLength(8);
  }, 60_000);

  it("a bad --queue URL and an unreachable Redis are one-line errors", async () => {
    const bad = bufferIo();
    expect(await runCli(["run", "--bank", bankDir, "--agent", "golden", "--queue", "http://x:1"], bad)).toBe(
      2,
    );
    expect(bad.err()).toBe(
      'apiflow: --queue "http://x:1" has scheme http:; expected redis://HOST:PORT[/DB]\n',
    );
    const down = bufferIo();
    expect(
      await runCli(
        ["run", "--bank", bankDir, "--agent", "golden", "--queue", "redis://127.0.0.1:1", "--out", tmp()],
        down,
      ),
    ).toBe(2);
    expect(down.err()).toMatch(
      /^apiflow: cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED.*\n$/,
    );
    const worker = bufferIo();
    expect(
      await runCli(["worker", "--queue", "redis://:hunter2@127.0.0.1:1", "--bank", bankDir], worker),
    ).toBe(2);
    expect(worker.err()).toMatch(
      /^apiflow: cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1: [^\n]*\n$/,
    );
    expect(worker.err()).not.toContain("hunter2");
  });
});
