import { Queue } from "bullmq";
import { afterAll, describe, expect, it } from "vitest";
import { testRedis } from "../../test/support/redis-server.js";
import { QUEUE_PREFIX, queueSideKeys } from "./queue-keys.js";
import { parseQueueUrl } from "./queue-url.js";
import { SharedAimdLimiter, SharedRateLimit } from "./shared-rate-limit.js";

const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
afterAll(async () => {
  await redis?.stop();
});

describe("SharedAimdLimiter", () => {
  it("a remote 429 halves the window and pauses new calls; a full window shrinks at the next release", async () => {
    const now = 1000;
    const gate = new SharedAimdLimiter(8, () => now);
    gate.tighten(500);
    expect(gate.limit).toBe(4);
    expect(gate.inFlight).toBe(0);
    expect(gate.pausedUntil).toBe(1500);

    const full = new SharedAimdLimiter(2, () => now);
    expect(await full.acquire()).toBe(true);
    expect(await full.acquire()).toBe(true);
    full.tighten(0);
    expect(full.limit).toBe(2);
    full.release("ok");
    expect(full.limit).toBe(1);
  });

  it("acquire waits out the pause, and gives up when aborted", async () => {
    const gate = new SharedAimdLimiter(4);
    gate.pausedUntil = Date.now() + 60_000;
    const aborted = new AbortController();
    const pending = gate.acquire(aborted.signal);
    aborted.abort();
    expect(await pending).toBe(false);
    expect(gate.inFlight).toBe(0);
  });
});

describe.skipIf(!redis)("SharedRateLimit across workers", () => {
  it("a 429 reported by one worker tightens every other worker's gate and the queue's global rate limit", async () => {
    const parsed = parseQueueUrl(redis?.url ?? "");
    if (!parsed.success) throw new Error(parsed.error.message);
    const name = `t${Date.now()}-rate`;
    const connection = { ...parsed.data.connection, maxRetriesPerRequest: null };
    const queue = new Queue(name, { connection, prefix: QUEUE_PREFIX });
    const channel = queueSideKeys(name).rateLimits;
    const a = await SharedRateLimit.open({ connection, channel, queue });
    const b = await SharedRateLimit.open({ connection, channel, queue });
    const c = await SharedRateLimit.open({ connection, channel, queue });
    try {
      const gateA = a.limiter("openai/gpt-5-mini", 8);
      const gateB = b.limiter("openai/gpt-5-mini", 8);
      const otherModel = c.limiter("anthropic/claude-haiku-4-5", 8);
      await a.report("openai/gpt-5-mini", 5_000);
      const deadline = Date.now() + 10_000;
      while (gateB.limit === 8 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(gateB.limit).toBe(4);
      expect(gateB.pausedUntil).toBeGreaterThan(Date.now());
      // The reporter paused its own other calls; its window was already halved by its own release.
      expect(gateA.pausedUntil).toBeGreaterThan(Date.now());
      expect(gateA.limit).toBe(8);
      expect(otherModel.limit).toBe(8);
      expect(otherModel.pausedUntil).toBe(0);
      // BullMQ's global rate limit: no worker on the queue starts a new trial meanwhile.
      expect(await queue.getRateLimitTtl(1)).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
      await queue.close();
    }
  });
});
