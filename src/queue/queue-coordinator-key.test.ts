import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeResponsesServer } from "../../test/support/fake-openai-responses-server.js";
import { startFakeOpenAiServer } from "../../test/support/fake-openai-server.js";
import { testRedis } from "../../test/support/redis-server.js";
import { writtenSkeletonBank } from "../../test/support/skeleton-bank.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { QUEUE_PREFIX } from "./queue-keys.js";
import { parseQueueUrl } from "./queue-url.js";
import { type QueueWorkerHandle, startQueueWorker } from "./queue-worker.js";

const SECRET = "sk-test-WORKER-ONLY-7c2e";
const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-queue-key-"));
const tasks = harborTasks();
const { dir: bankDir, bank } = writtenSkeletonBank("apiflow-queue-key-");

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await redis?.stop();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

async function worker(queueName: string, env: Record<string, string>): Promise<QueueWorkerHandle> {
  const address = parseQueueUrl(redis?.url ?? "");
  if (!address.success) throw new Error(address.error.message);
  const w = await startQueueWorker({
    address: address.data,
    queueName,
    bank,
    concurrency: 1,
    env,
    cwd: process.cwd(),
    log: () => {},
  });
  if (!w.success) throw new Error(w.error.message);
  cleanups.push(() => w.data.close());
  return w.data;
}

describe.skipIf(!redis)("apiflow run --queue with a model whose key is required", () => {
  it("the coordinator needs no key: it enqueues, a worker with the key runs every trial", async () => {
    const server = await startFakeResponsesServer({ tasks, apiKey: SECRET });
    cleanups.push(() => server.close());
    const queueName = `key-${Date.now()}`;
    await worker(queueName, { OPENAI_API_KEY: SECRET });
    const out = tmp();
    const model = ["--model", "openai/golden-player", "--base-url", server.baseUrl];
    const grid = ["--bank", bankDir, ...model, "--epochs", "1", "--out", out, "--json"];

    // Without --queue the missing key is still the one-line error it was.
    const local = bufferIo({});
    expect(await runCli(["run", ...grid], local)).toBe(2);
    expect(local.err()).toMatch(/set OPENAI_API_KEY/);

    const io = bufferIo({});
    expect(await runCli(["run", ...grid, "--queue", redis?.url ?? "", "--queue-name", queueName], io)).toBe(
      0,
    );
    const { summary, trials } = JSON.parse(io.out()) as {
      summary: { total: number; passed: number };
      trials: Array<{ agent: string }>;
    };
    expect(summary.total).toBe(tasks.length);
    expect(summary.passed).toBe(tasks.length);
    expect(new Set(trials.map((t) => t.agent))).toEqual(new Set(["golden-player"]));
    // Every model call came from the worker, with its key (the fake answers 401 to anything else).
    expect(server.answered).toBeGreaterThan(tasks.length);
    const manifest = JSON.parse(readFileSync(join(out, "run-manifest.json"), "utf8")) as {
      agent_settings: Record<string, { model_api: string }>;
    };
    expect(manifest.agent_settings["golden-player"]?.model_api).toBe("openai/golden-player");
    for (const f of filesUnder(out)) expect(readFileSync(f).includes(SECRET), f).toBe(false);
  }, 60_000);

  it("--cost-limit withdraws the waiting trials once the run has spent it", async () => {
    // Slow model calls: the one worker (concurrency 1) is still on its next trial when the
    // coordinator sees the first cost and takes back everything still waiting.
    const server = await startFakeOpenAiServer({ tasks, apiKey: SECRET, latencyMs: 60 });
    cleanups.push(() => server.close());
    const queueName = `cost-${Date.now()}`;
    await worker(queueName, { OPENAI_COMPATIBLE_API_KEY: SECRET });
    const out = tmp();
    const prices = join(out, "..", `prices-${Date.now()}.json`);
    writeFileSync(
      prices,
      JSON.stringify({
        version: "test-1",
        models: { "openai-compatible/pricey": { input: 10_000, output: 10_000 } },
      }),
    );
    const io = bufferIo({});
    const args = [
      "run",
      "--bank",
      bankDir,
      "--model",
      "openai-compatible/pricey",
      "--base-url",
      server.baseUrl,
      "--epochs",
      "3",
      "--out",
      out,
      "--price-table",
      prices,
      "--cost-limit",
      "1",
      "--queue",
      redis?.url ?? "",
      "--queue-name",
      queueName,
      "--json",
    ];
    // Exit code 3, as in a local run: stopped at the cost limit with trials not run.
    expect(await runCli(args, io)).toBe(3);
    const { summary } = JSON.parse(io.out()) as {
      summary: { total: number; not_run: number; cost_usd: number; cost_limit_reached: boolean };
    };
    expect(summary.cost_limit_reached).toBe(true);
    const cells = tasks.length * 3;
    // The trial that crossed the limit, plus at most the one the worker had already started.
    expect(summary.total).toBeGreaterThanOrEqual(1);
    expect(summary.total).toBeLessThanOrEqual(2);
    expect(summary.not_run).toBe(cells - summary.total);
    expect(summary.cost_usd).toBeGreaterThan(1);
    // Nothing is left in Redis for a worker to pick up: withdrawn jobs are gone, collected ones removed.
    const address = parseQueueUrl(redis?.url ?? "");
    if (!address.success) throw new Error(address.error.message);
    const queue = new Queue(queueName, { connection: address.data.connection, prefix: QUEUE_PREFIX });
    const counts = await queue.getJobCounts(
      "waiting",
      "delayed",
      "prioritized",
      "active",
      "completed",
      "failed",
    );
    await queue.close();
    expect(counts).toEqual({ waiting: 0, delayed: 0, prioritized: 0, active: 0, completed: 0, failed: 0 });
  }, 60_000);
});
