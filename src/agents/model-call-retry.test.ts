import { APICallError, InvalidResponseDataError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { AimdLimiter } from "./aimd-limiter.js";
import {
  classifyModelError,
  DEFAULT_RETRY_POLICY,
  parseRetryAfter,
  retryDelayMs,
} from "./model-call-retry.js";

const apiError = (statusCode: number, message = "x", headers: Record<string, string> = {}) =>
  new APICallError({ message, url: "http://x", requestBodyValues: {}, statusCode, responseHeaders: headers });

describe("model-call retries", () => {
  it("classifies provider errors and marks which are retryable", () => {
    expect(classifyModelError(apiError(429, "slow down", { "retry-after": "3" }))).toMatchObject({
      kind: "rate_limited",
      retryable: true,
      retryAfterMs: 3000,
    });
    expect(classifyModelError(apiError(503))).toMatchObject({ kind: "server", retryable: true });
    expect(
      classifyModelError(apiError(400, "prompt is too long: 210000 tokens > 200000 maximum")),
    ).toMatchObject({
      kind: "context_overflow",
      retryable: false,
    });
    expect(classifyModelError(apiError(401, "bad key"))).toMatchObject({ kind: "auth", retryable: false });
    expect(classifyModelError(apiError(403, "forbidden"))).toMatchObject({ kind: "auth", retryable: false });
    expect(classifyModelError(apiError(404, "no such model"))).toMatchObject({
      kind: "client",
      retryable: false,
    });
    const timeout = new Error("late");
    timeout.name = "TimeoutError";
    expect(classifyModelError(timeout)).toMatchObject({ kind: "timeout", retryable: true });
  });

  it("retries malformed replies like a 5xx: a body that is not JSON, no choices, a cut body", () => {
    // What @ai-sdk/openai-compatible throws for each (probed against a 127.0.0.1 server).
    const notJson = new APICallError({
      message: "Invalid JSON response",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 200,
      isRetryable: false,
    });
    const cut = new APICallError({
      message: "Failed to process successful response",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 200,
      isRetryable: true,
    });
    const noChoices = new InvalidResponseDataError({
      data: {},
      message: "Response did not contain any choices.",
    });
    for (const e of [notJson, cut, noChoices])
      expect(classifyModelError(e)).toMatchObject({ kind: "malformed", retryable: true });
    // An agent-side error that only looks alike is not retried.
    expect(classifyModelError(new Error("tool not found"))).toMatchObject({
      kind: "client",
      retryable: false,
    });
  });

  it("reads Retry-After in seconds, as a date, and retry-after-ms", () => {
    expect(parseRetryAfter({ "Retry-After": "2" })).toBe(2000);
    expect(parseRetryAfter({ "retry-after-ms": "150", "retry-after": "9" })).toBe(150);
    expect(
      parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:10 GMT" }, () => Date.UTC(2026, 0, 1)),
    ).toBe(10_000);
    expect(parseRetryAfter({})).toBeNull();
  });

  it("backs off exponentially, capped, never sooner than Retry-After", () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((a) => retryDelayMs(a, p, null, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect(retryDelayMs(0, p, null, () => 0)).toBe(50);
    expect(retryDelayMs(0, p, 5000, () => 1)).toBe(5000);
  });
});

describe("AIMD limiter", () => {
  it("halves on a 429 (once per window), grows back by about one per window of successes", async () => {
    const gate = new AimdLimiter({ max: 8 });
    for (let i = 0; i < 8; i++) expect(await gate.acquire()).toBe(true);
    gate.release("rate_limited");
    expect(gate.limit).toBe(4);
    // The rest of the burst that was already in flight does not shrink it again.
    gate.release("rate_limited");
    expect(gate.limit).toBe(4);
    expect(gate.throttled).toBe(true);
    for (let i = 0; i < 6; i++) gate.release("ok");
    let calls = 0;
    while (gate.throttled && calls < 100) {
      await gate.acquire();
      gate.release("ok");
      calls++;
    }
    expect(gate.limit).toBe(8);
    expect(calls).toBeGreaterThan(4);
    expect(calls).toBeLessThan(40);
  });

  it("makes callers wait beyond the window and wakes them in order", async () => {
    const gate = new AimdLimiter({ max: 1 });
    await gate.acquire();
    const order: number[] = [];
    const a = gate.acquire().then(() => order.push(1));
    const b = gate.acquire().then(() => order.push(2));
    expect(gate.inFlight).toBe(1);
    gate.release("ok");
    await a;
    gate.release("ok");
    await b;
    expect(order).toEqual([1, 2]);
    const ctl = new AbortController();
    const c = gate.acquire(ctl.signal);
    ctl.abort();
    expect(await c).toBe(false);
  });
});
