import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { z } from "zod";
import { AimdLimiter } from "../agents/aimd-limiter.js";
import { abortableSleep } from "../agents/model-call-retry.js";
import type { QueueConnection } from "./queue-url.js";

/**
 * A retry one worker made, broadcast on the queue: a 429 (`rate_limited`, which every other worker
 * obeys) or any other retried failure (`retry`: only counted by the coordinator's progress display).
 */
export const RateLimitNoticeSchema = z.strictObject({
  /** `rate_limited` (the default, as older workers send it) or `retry`. */
  kind: z.enum(["rate_limited", "retry"]).default("rate_limited"),
  /** `provider/model` as in the job's agent settings. */
  model: z.string(),
  /** The worker that saw it (it has already slowed itself down). */
  from: z.string(),
  /** How long every worker should hold back calls to this model. */
  pause_ms: z.number().nonnegative(),
});
export type RateLimitNotice = z.infer<typeof RateLimitNoticeSchema>;

/**
 * The per-model AIMD gate of one worker, tied to the others: it also waits out a pause any worker
 * announced, and halves its window when another worker reports a 429 (its own 429s halve it as in
 * the local runner).
 *
 * @example const gate = shared.limiter("openai/gpt-5-mini", 8); modelAgentFactory({ …, calls: { retry, limiter: gate } });
 */
export class SharedAimdLimiter extends AimdLimiter {
  /** Epoch ms before which no call to this model starts, on any worker. */
  pausedUntil = 0;
  private pendingTighten = false;

  constructor(
    max: number,
    private readonly now: () => number = Date.now,
  ) {
    super({ max });
  }

  override async acquire(signal?: AbortSignal): Promise<boolean> {
    for (let wait = this.pausedUntil - this.now(); wait > 0; wait = this.pausedUntil - this.now()) {
      try {
        await abortableSleep(wait, signal ?? new AbortController().signal);
      } catch {
        return false;
      }
    }
    return super.acquire(signal);
  }

  override release(result: "ok" | "rate_limited" | "error"): void {
    // A remote 429 that found the window full is applied at the next release.
    if (this.pendingTighten && result !== "rate_limited") {
      this.pendingTighten = false;
      super.release("rate_limited");
      return;
    }
    super.release(result);
  }

  /** Another worker hit a rate limit on this model: pause, and shrink the window as for our own 429. */
  tighten(pauseMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + pauseMs);
    if (this.inFlight < this.limit) {
      // Take a free slot and hand it back as rate-limited: the base class's one decrease per window.
      void super.acquire();
      super.release("rate_limited");
    } else {
      this.pendingTighten = true;
    }
  }
}

/** What a shared rate limit needs of the queue: BullMQ's global rate limit on starting jobs. */
export interface GlobalJobRateLimit {
  rateLimit(expireTimeMs: number): Promise<void>;
}

/**
 * Rate limits shared by every worker on a queue. A 429 seen by one worker is published on a Redis
 * channel: every worker's gate for that model pauses for the retry delay and halves its window, and
 * the queue's global BullMQ rate limit stops all workers from starting new trials meanwhile.
 *
 * @example
 * const shared = await SharedRateLimit.open({ connection, channel: "apiflow:apiflow-trials:rate-limits", queue });
 * calls.onEvent = (e) => { if (e.type === "retry" && e.failure.kind === "rate_limited") void shared.report(model, e.delayMs); };
 */
export class SharedRateLimit {
  readonly workerId = randomUUID();
  private readonly limiters = new Map<string, SharedAimdLimiter[]>();

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly queue: GlobalJobRateLimit,
  ) {
    subscriber.on("message", (ch: string, text: string) => {
      if (ch !== channel) return;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        return;
      }
      const notice = RateLimitNoticeSchema.safeParse(raw);
      if (!notice.success || notice.data.from === this.workerId || notice.data.kind !== "rate_limited")
        return;
      for (const gate of this.limiters.get(notice.data.model) ?? []) gate.tighten(notice.data.pause_ms);
    });
  }

  static async open(options: {
    connection: QueueConnection;
    channel: string;
    queue: GlobalJobRateLimit;
  }): Promise<SharedRateLimit> {
    const publisher = new Redis({ ...options.connection, maxRetriesPerRequest: null });
    const subscriber = new Redis({ ...options.connection, maxRetriesPerRequest: null });
    publisher.on("error", () => {});
    subscriber.on("error", () => {});
    await subscriber.subscribe(options.channel);
    return new SharedRateLimit(publisher, subscriber, options.channel, options.queue);
  }

  /** The gate of one model in this worker (made once per model; `max` is the worker's concurrency). */
  limiter(model: string, max: number): SharedAimdLimiter {
    const gate = new SharedAimdLimiter(max);
    this.limiters.set(model, [...(this.limiters.get(model) ?? []), gate]);
    return gate;
  }

  /** This worker retried a call to `model` for another reason than a 429: told to the coordinator's progress only. */
  async reportRetry(model: string): Promise<void> {
    const notice: RateLimitNotice = { kind: "retry", model, from: this.workerId, pause_ms: 0 };
    await this.publisher.publish(this.channel, JSON.stringify(notice));
  }

  /** This worker saw a 429 on `model`: hold back its other calls and tell every other worker. */
  async report(model: string, pauseMs: number): Promise<void> {
    const until = Date.now() + pauseMs;
    for (const gate of this.limiters.get(model) ?? []) gate.pausedUntil = Math.max(gate.pausedUntil, until);
    const notice: RateLimitNotice = { kind: "rate_limited", model, from: this.workerId, pause_ms: pauseMs };
    await Promise.all([
      this.publisher.publish(this.channel, JSON.stringify(notice)),
      pauseMs > 0 ? this.queue.rateLimit(Math.ceil(pauseMs)) : Promise.resolve(),
    ]);
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
    this.publisher.disconnect();
  }
}
