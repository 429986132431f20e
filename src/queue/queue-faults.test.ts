import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import {
  FAULT_KINDS,
  type FakeServer,
  ONE_IN_FIVE_FAULTS,
  startFakeOpenAiServer,
} from "../../test/support/fake-openai-server.js";
import { testRedis } from "../../test/support/redis-server.js";
import { writtenSkeletonBank } from "../../test/support/skeleton-bank.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { TRIAL_LOG_SUFFIX } from "../run/stored-trial-log.js";
import { parseQueueUrl } from "./queue-url.js";
import { type QueueWorkerHandle, startQueueWorker } from "./queue-worker.js";

const SECRET = "sk-test-QUEUE-FAULTS-5b8e";
const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-queue-faults-"));
const tasks = harborTasks();
const { dir: bankDir, bank } = writtenSkeletonBank("apiflow-queue-faults-");

const servers: FakeServer[] = [];
const workers: QueueWorkerHandle[] = [];
afterAll(async () => {
  for (const w of workers) await w.close();
  for (const s of servers) await s.close();
  await redis?.stop();
});

interface JsonTrial {
  task_id: string;
  epoch: number;
  passed: boolean;
  g1: boolean;
  g2: boolean;
  outcome: string;
  failure_reason: string;
}

/** `apiflow run` of the golden-playing model against `server`, locally or through the queue. */
async function run(
  server: FakeServer,
  out: string,
  epochs: number,
  queue?: string[],
  retries: string[] = ["--max-retries", "8"],
) {
  const io = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
  const code = await runCli(
    [
      "run",
      "--bank",
      bankDir,
      "--model",
      "openai-compatible/golden-player",
      "--base-url",
      server.baseUrl,
      "--epochs",
      String(epochs),
      "--concurrency",
      "8",
      "--out",
      out,
      ...retries,
      "--retry-delay-ms",
      "5",
      "--call-timeout",
      "0.4",
      "--json",
      ...(queue ?? []),
    ],
    io,
  );
  const json =
    code === 0 || code === 1
      ? (JSON.parse(io.out()) as { trials: JsonTrial[]; summary: Record<string, number> })
      : null;
  return { code, io, json };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** `n` in-process workers with the key on `queueName` (the coordinator is given none). */
async function startWorkers(queueName: string, n: number): Promise<void> {
  const address = parseQueueUrl(redis?.url ?? "");
  if (!address.success) throw new Error(address.error.message);
  for (let i = 0; i < n; i++) {
    const w = await startQueueWorker({
      address: address.data,
      queueName,
      bank,
      concurrency: 4,
      env: { OPENAI_COMPATIBLE_API_KEY: SECRET },
      cwd: process.cwd(),
      log: () => {},
    });
    if (!w.success) throw new Error(w.error.message);
    workers.push(w.data);
  }
}

describe.skipIf(!redis)("apiflow run --queue against a model server that injects faults", () => {
  it("20% faults of every kind, met by the workers: every trial scored or classified, none lost", async () => {
    const clean = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    // One call in five is a fault, of every kind (the mix of the direct run and the queue).
    const faulty = await startFakeOpenAiServer({
      tasks,
      apiKey: SECRET,
      seed: 11,
      faults: ONE_IN_FIVE_FAULTS,
    });
    servers.push(clean, faulty);
    const queueName = `faults-${Date.now()}`;
    await startWorkers(queueName, 2);
    const epochs = 8;
    const reference = await run(clean, tmp(), epochs);
    expect(reference.code, reference.io.err()).toBe(0);
    expect(reference.json?.trials.every((t) => t.outcome === "pass")).toBe(true);

    const out = tmp();
    const queued = await run(faulty, out, epochs, [
      "--queue",
      redis?.url ?? "",
      "--queue-name",
      queueName,
      "--progress-every",
      "0.01",
    ]);
    expect(queued.code, queued.io.err()).toBe(0);
    // The coordinator's progress counts every retry a worker made, not only its 429s: the 5xx and
    // timeouts the workers retried show up too.
    const lastRetries = [...queued.io.err().matchAll(/^progress: \S+\s+.*?(\d+) retries/gm)].at(-1)?.[1];
    expect(Number(lastRetries)).toBeGreaterThan(faulty.injected.rate_limit);
    const trials = queued.json?.trials ?? [];
    // None lost: the whole grid is in the store, each trial once.
    expect(trials).toHaveLength(tasks.length * epochs);
    expect(new Set(trials.map((t) => `${t.task_id}/${t.epoch}`)).size).toBe(tasks.length * epochs);
    for (const kind of FAULT_KINDS) expect(faulty.injected[kind], kind).toBeGreaterThan(0);
    // The workers retried what the direct run retries: no trial ended as a provider error, and a
    // context error is the only fault that changes a trial, as context_overflow, once per context
    // error the client received (under heavy load a worker may time a call out before its answer).
    const byKey = new Map(reference.json?.trials.map((t) => [`${t.task_id}/${t.epoch}`, t]));
    let overflow = 0;
    for (const t of trials) {
      expect(t.outcome, t.failure_reason).not.toBe("provider_error");
      expect(t.outcome, t.failure_reason).not.toBe("harness_error");
      if (t.outcome === "context_overflow") {
        overflow++;
        expect(t.failure_reason).toMatch(/context overflow: .*maximum context length/);
        continue;
      }
      expect(t).toEqual(byKey.get(`${t.task_id}/${t.epoch}`));
    }
    expect(faulty.delivered.context_length).toBeGreaterThan(0);
    expect(overflow).toBe(faulty.delivered.context_length);

    // A transcript and a stored event log per trial; the key nowhere in what the run wrote.
    const files = readdirSync(join(out, "transcripts", "golden-player"));
    const transcripts = files.filter((f) => f.endsWith(".json"));
    expect(transcripts).toHaveLength(tasks.length * epochs);
    expect(files.filter((f) => f.endsWith(TRIAL_LOG_SUFFIX))).toHaveLength(tasks.length * epochs);
    for (const f of filesUnder(out)) {
      const bytes = f.endsWith(".gz") ? gunzipSync(readFileSync(f)) : readFileSync(f);
      expect(bytes.includes(SECRET), f).toBe(false);
    }
  }, 180_000);

  it("faults past the retries are provider errors (the key redacted), and a rerun through the queue redoes them", async () => {
    // Every call a 500 that echoes the key back; one retry each.
    const broken = await startFakeOpenAiServer({ tasks, apiKey: SECRET, faults: { server_error: 1 } });
    const clean = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    servers.push(broken, clean);
    const queueName = `exhausted-${Date.now()}`;
    await startWorkers(queueName, 1);
    const queue = ["--queue", redis?.url ?? "", "--queue-name", queueName];
    const out = tmp();
    const first = await run(broken, out, 1, queue, ["--max-retries", "1"]);
    // Exit 1: trials ended unscored, so a rerun has work to redo.
    expect(first.code, first.io.err()).toBe(1);
    const trials = first.json?.trials ?? [];
    expect(trials).toHaveLength(tasks.length);
    for (const t of trials) {
      expect(t.outcome).toBe("provider_error");
      expect(t.failure_reason).toMatch(/provider error \(not scored\): server after 2 attempts/);
    }
    expect(first.json?.summary.unscored).toBe(tasks.length);
    for (const f of filesUnder(out)) {
      const bytes = f.endsWith(".gz") ? gunzipSync(readFileSync(f)) : readFileSync(f);
      expect(bytes.includes(SECRET), f).toBe(false);
    }
    expect(first.io.out() + first.io.err()).not.toContain(SECRET);

    // The server mended, the same run directory: every provider error is redone, and passes.
    const again = await run(clean, out, 1, queue);
    expect(again.code, again.io.err()).toBe(0);
    expect(again.json?.summary).toMatchObject({ redone: tasks.length, passed: tasks.length, unscored: 0 });
  }, 120_000);
});
