import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { type FakeServer, startFakeOpenAiServer } from "../../test/support/fake-openai-server.js";
import { testRedis } from "../../test/support/redis-server.js";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { DEFAULT_PRICE_TABLE } from "../run/price-table.js";
import { runViaQueue } from "./queue-coordinator.js";
import { queueSideKeys } from "./queue-keys.js";
import { parseQueueUrl } from "./queue-url.js";
import { startQueueWorker } from "./queue-worker.js";

const SECRET = "sk-test-QUEUE-SECRET-41d9";
const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
const servers: FakeServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  await redis?.stop();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe.skipIf(!redis)("queue with a model agent", () => {
  it("workers use their own key (never sent through Redis), 429s are shared between them, every trial passes", async () => {
    const parsed = parseQueueUrl(redis?.url ?? "");
    if (!parsed.success) throw new Error(parsed.error.message);
    const bank = skeletonBank();
    const server = await startFakeOpenAiServer({
      tasks: bank.tasks,
      faults: { rate_limit: 0.2 },
      apiKey: SECRET,
      seed: 7,
    });
    servers.push(server);
    const queueName = `t${Date.now()}-model`;
    // Every command any client sends to Redis during the run.
    const monitorClient = new Redis(parsed.data.connection);
    const monitor = await monitorClient.monitor();
    let traffic = "";
    monitor.on("monitor", (_time: string, args: string[]) => {
      traffic += `${args.join(" ")}\n`;
    });
    const listener = new Redis(parsed.data.connection);
    let notices = 0;
    await listener.subscribe(queueSideKeys(queueName).rateLimits);
    listener.on("message", () => {
      notices++;
    });
    const workers = [];
    for (let i = 0; i < 2; i++) {
      const w = await startQueueWorker({
        address: parsed.data,
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
    const out = mkdtempSync(join(tmpdir(), "apiflow-queue-model-"));
    const res = await runViaQueue({
      address: parsed.data,
      queueName,
      runDir: out,
      bank,
      agents: [
        {
          // The coordinator only needs the agent's name and settings; the workers build the model.
          factory: {
            name: "golden-player",
            forTask: () => {
              throw new Error("the coordinator never runs a trial");
            },
          },
          settings: {
            kind: "model",
            model_api: "openai-compatible/golden-player",
            base_url: server.baseUrl,
            temperature: 1,
          },
          modelApi: "openai-compatible/golden-player",
        },
      ],
      epochs: 3,
      concurrency: 4,
      priceTable: DEFAULT_PRICE_TABLE,
      retry: { maxRetries: 10, baseDelayMs: 5, maxDelayMs: 50, callTimeoutMs: 10_000 },
      pollMs: 20,
    });
    for (const w of workers) await w.close();
    monitorClient.disconnect();
    listener.disconnect();
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.records).toHaveLength(12);
    expect(res.data.records.every((r) => r.outcome === "pass")).toBe(true);
    expect(server.injected.rate_limit).toBeGreaterThan(0);
    expect(notices).toBeGreaterThan(0);
    // The key never reached Redis, nor the run directory (the coordinator was given no secret).
    expect(traffic).toContain("openai-compatible/golden-player");
    expect(traffic).not.toContain(SECRET);
    for (const f of filesUnder(out)) expect(readFileSync(f).includes(SECRET), f).toBe(false);
  }, 60_000);
});
