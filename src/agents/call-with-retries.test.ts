import { getEventListeners } from "node:events";
import {
  APICallError,
  EmptyResponseBodyError,
  JSONParseError,
  NoContentGeneratedError,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { AimdLimiter } from "./aimd-limiter.js";
import {
  abortableSleep,
  callWithRetries,
  classifyModelError,
  DEFAULT_RETRY_POLICY,
  type ModelCallControl,
  type ModelCallEvent,
  parseRetryAfter,
  retryDelayMs,
} from "./model-call-retry.js";

/**
 * The retry loop of model calls on its own (issue 21: mutation testing): how many calls are made,
 * what each attempt waits, when it gives up, and how an abort or a time-out ends it.
 */
const apiError = (statusCode: number | undefined, message = "x", headers: Record<string, string> = {}) =>
  new APICallError({ message, url: "http://x", requestBodyValues: {}, statusCode, responseHeaders: headers });

function harness(overrides: Partial<ModelCallControl["retry"]> = {}) {
  const events: ModelCallEvent[] = [];
  const slept: number[] = [];
  const released: string[] = [];
  const control: ModelCallControl = {
    retry: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000, maxRetries: 3, ...overrides },
    onEvent: (e) => events.push(e),
    sleep: async (ms) => {
      slept.push(ms);
    },
  };
  const limiter = {
    acquire: async () => true,
    release: (how: string) => released.push(how),
  } as unknown as AimdLimiter;
  return { control, events, slept, released, limiter };
}

/** A model call that fails with each error in turn, then answers "done". */
function scripted(errors: unknown[]) {
  let calls = 0;
  const call = async () => {
    const e = errors[calls++];
    if (e !== undefined) throw e;
    return "done";
  };
  return { call, calls: () => calls };
}

describe("callWithRetries", () => {
  it("a call that succeeds is made once, with no retries and no events", async () => {
    const h = harness();
    const m = scripted([]);
    expect(
      await callWithRetries(m.call, { ...h.control, limiter: h.limiter }, new AbortController().signal),
    ).toEqual({ success: true, data: "done", retries: 0 });
    expect(m.calls()).toBe(1);
    expect(h.events).toEqual([]);
    expect(h.released).toEqual(["ok"]);
  });

  it("server errors are retried with growing, jittered delays until the call succeeds", async () => {
    const h = harness();
    const m = scripted([apiError(503), apiError(500)]);
    const out = await callWithRetries(
      m.call,
      { ...h.control, limiter: h.limiter },
      new AbortController().signal,
    );
    expect(out).toEqual({ success: true, data: "done", retries: 2 });
    expect(m.calls()).toBe(3);
    expect(h.events.map((e) => [e.type, e.type === "retry" ? e.attempt : -1])).toEqual([
      ["retry", 0],
      ["retry", 1],
    ]);
    expect(h.slept).toHaveLength(2);
    expect(h.slept[0]).toBeGreaterThanOrEqual(50);
    expect(h.slept[0]).toBeLessThanOrEqual(100);
    expect(h.slept[1]).toBeGreaterThanOrEqual(100);
    expect(h.slept[1]).toBeLessThanOrEqual(200);
    expect(h.events.map((e) => (e.type === "retry" ? e.delayMs : 0))).toEqual(h.slept);
    expect(h.released).toEqual(["error", "error", "ok"]);
  });

  it("a 429 waits at least its Retry-After and tells the limiter it was rate limited", async () => {
    const h = harness();
    const m = scripted([apiError(429, "slow", { "retry-after": "7" })]);
    const out = await callWithRetries(
      m.call,
      { ...h.control, limiter: h.limiter },
      new AbortController().signal,
    );
    expect(out.success).toBe(true);
    expect(h.slept).toEqual([7000]);
    expect(h.released).toEqual(["rate_limited", "ok"]);
    expect(h.events[0]).toMatchObject({ type: "retry", failure: { kind: "rate_limited" }, attempt: 0 });
  });

  it("gives up after maxRetries retries (maxRetries + 1 calls) and says so once", async () => {
    const h = harness({ maxRetries: 2 });
    const m = scripted([apiError(503), apiError(503), apiError(503), apiError(503)]);
    const out = await callWithRetries(m.call, h.control, new AbortController().signal);
    expect(out).toMatchObject({ success: false, failure: { kind: "server", status: 503 }, retries: 2 });
    expect(m.calls()).toBe(3);
    expect(h.events.map((e) => e.type)).toEqual(["retry", "retry", "gave_up"]);
    expect(h.events[2]).toMatchObject({ type: "gave_up", attempts: 3 });
  });

  it("maxRetries 0 makes one call", async () => {
    const h = harness({ maxRetries: 0 });
    const m = scripted([apiError(503)]);
    expect(await callWithRetries(m.call, h.control, new AbortController().signal)).toMatchObject({
      success: false,
      retries: 0,
    });
    expect(m.calls()).toBe(1);
    expect(h.events).toEqual([expect.objectContaining({ type: "gave_up", attempts: 1 })]);
  });

  it("an error that is not retryable fails at once, without a gave_up event", async () => {
    const h = harness();
    for (const e of [apiError(401), apiError(404), apiError(400, "maximum context length exceeded")]) {
      const m = scripted([e]);
      const out = await callWithRetries(m.call, h.control, new AbortController().signal);
      expect(out).toMatchObject({ success: false, retries: 0 });
      expect(m.calls()).toBe(1);
    }
    expect(h.events).toEqual([]);
    expect(h.slept).toEqual([]);
  });

  it("an aborted trial makes no call; a limiter that refuses counts as aborted", async () => {
    const h = harness();
    const ac = new AbortController();
    ac.abort();
    const m = scripted([]);
    expect(await callWithRetries(m.call, h.control, ac.signal)).toEqual({
      success: false,
      failure: {
        kind: "aborted",
        retryable: false,
        status: null,
        retryAfterMs: null,
        message: "trial aborted",
      },
      retries: 0,
    });
    const refusing = { acquire: async () => false, release: () => {} } as unknown as AimdLimiter;
    expect(
      await callWithRetries(m.call, { ...h.control, limiter: refusing }, new AbortController().signal),
    ).toMatchObject({ success: false, failure: { kind: "aborted" }, retries: 0 });
    expect(m.calls()).toBe(0);
  });

  it("an abort during the call or during the wait ends the loop as aborted", async () => {
    const h = harness();
    const during = new AbortController();
    // Read inside the call, asserted outside: an expect that threw in the call would be caught
    // as the call's own failure.
    let seen: { aborted: boolean; reason: unknown } | undefined;
    const out = await callWithRetries(
      async (signal) => {
        during.abort(new Error("stop"));
        seen = { aborted: signal.aborted, reason: signal.reason };
        throw apiError(503);
      },
      h.control,
      during.signal,
    );
    // The call's own signal is aborted with the trial's reason.
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toEqual(new Error("stop"));
    expect(out).toMatchObject({
      success: false,
      failure: { kind: "aborted", message: "trial aborted" },
      retries: 0,
    });
    const sleeping = harness();
    sleeping.control.sleep = async () => {
      throw new Error("aborted");
    };
    const m = scripted([apiError(503)]);
    expect(await callWithRetries(m.call, sleeping.control, new AbortController().signal)).toMatchObject({
      success: false,
      failure: { kind: "aborted" },
      retries: 1,
    });
    expect(m.calls()).toBe(1);
  });

  it("a call longer than callTimeoutMs is abandoned and retried as a time-out", async () => {
    const h = harness({ callTimeoutMs: 20, maxRetries: 1 });
    let calls = 0;
    let reason: unknown;
    const out = await callWithRetries(
      (signal) =>
        new Promise<string>((resolve, reject) => {
          calls++;
          if (calls === 2) return resolve("second");
          signal.addEventListener("abort", () => {
            reason = signal.reason;
            reject(new Error("the SDK's own abort error"));
          });
        }),
      h.control,
      new AbortController().signal,
    );
    expect(out).toEqual({ success: true, data: "second", retries: 1 });
    // What the SDK sees as the abort reason: a TimeoutError naming the limit.
    expect(reason).toBeInstanceOf(Error);
    expect(reason).toMatchObject({ name: "TimeoutError", message: "model call exceeded 20 ms" });
    expect(h.events[0]).toMatchObject({
      type: "retry",
      failure: { kind: "timeout", retryable: true, message: "model call timed out" },
    });
  });
});

describe("callWithRetries: what it leaves behind", () => {
  it("no abort listener stays on the trial's signal, whether the call succeeds, fails or is retried", async () => {
    const h = harness();
    const signal = new AbortController().signal;
    await callWithRetries(scripted([]).call, h.control, signal);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    await callWithRetries(scripted([apiError(503), apiError(404)]).call, h.control, signal);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("the per-call timer is cleared after each call: a slow-but-answered call is not aborted later", async () => {
    const h = harness({ callTimeoutMs: 30 });
    let late: AbortSignal | undefined;
    const out = await callWithRetries(
      async (signal) => {
        late = signal;
        return "quick";
      },
      h.control,
      new AbortController().signal,
    );
    expect(out).toEqual({ success: true, data: "quick", retries: 0 });
    await new Promise((r) => setTimeout(r, 80));
    expect(late?.aborted).toBe(false);
  });

  it("works without an onEvent listener, through retries and giving up", async () => {
    const control: ModelCallControl = {
      retry: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxDelayMs: 1, maxRetries: 1 },
      sleep: async () => {},
    };
    const m = scripted([apiError(503), apiError(503)]);
    expect(await callWithRetries(m.call, control, new AbortController().signal)).toMatchObject({
      success: false,
      failure: { kind: "server" },
      retries: 1,
    });
    expect(m.calls()).toBe(2);
  });
});

describe("abortableSleep", () => {
  it("leaves no abort listener behind, whether it resolves or is aborted", async () => {
    const ok = new AbortController();
    await abortableSleep(1, ok.signal);
    expect(getEventListeners(ok.signal, "abort")).toHaveLength(0);
    const during = new AbortController();
    const p = abortableSleep(10_000, during.signal);
    expect(getEventListeners(during.signal, "abort")).toHaveLength(1);
    during.abort(new Error("during"));
    await expect(p).rejects.toThrow("during");
    expect(getEventListeners(during.signal, "abort")).toHaveLength(0);
  });

  it("resolves after the delay; rejects with the reason when aborted before or during", async () => {
    await expect(abortableSleep(1, new AbortController().signal)).resolves.toBeUndefined();
    const before = new AbortController();
    before.abort(new Error("before"));
    await expect(abortableSleep(10_000, before.signal)).rejects.toThrow("before");
    const during = new AbortController();
    const p = abortableSleep(10_000, during.signal);
    during.abort(new Error("during"));
    await expect(p).rejects.toThrow("during");
  });
});

describe("classifyModelError: the rest of the table", () => {
  it("context overflow is read on 413 and 422 too, and from the response body", () => {
    expect(classifyModelError(apiError(413, "input is too long"))).toMatchObject({
      kind: "context_overflow",
    });
    expect(classifyModelError(apiError(422, "exceeds the model's maximum context"))).toMatchObject({
      kind: "context_overflow",
      retryable: false,
      retryAfterMs: null,
    });
    const inBody = new APICallError({
      message: "bad request",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 400,
      responseBody: '{"error":"context_length_exceeded"}',
    });
    expect(classifyModelError(inBody)).toMatchObject({ kind: "context_overflow" });
    expect(classifyModelError(apiError(400, "bad field"))).toMatchObject({ kind: "client", status: 400 });
    expect(classifyModelError(apiError(500, "too many tokens"))).toMatchObject({ kind: "server" });
  });

  it("status edges: 2xx is malformed, 499 a client error, 500 a server error, none a network error", () => {
    expect(classifyModelError(apiError(299))).toMatchObject({ kind: "malformed", retryable: true });
    expect(classifyModelError(apiError(300))).toMatchObject({ kind: "client" });
    expect(classifyModelError(apiError(199))).toMatchObject({ kind: "client" });
    expect(classifyModelError(apiError(499))).toMatchObject({ kind: "client", status: 499 });
    expect(classifyModelError(apiError(undefined))).toMatchObject({ kind: "network", retryable: false });
    expect(classifyModelError(apiError(500))).toMatchObject({ kind: "server", retryable: true, status: 500 });
    const network = classifyModelError(
      new APICallError({
        message: "socket hang up",
        url: "http://x",
        requestBodyValues: {},
        isRetryable: true,
      }),
    );
    expect(network).toEqual({
      kind: "network",
      retryable: true,
      status: null,
      retryAfterMs: null,
      message: "no status: socket hang up",
    });
  });

  it("the message is one line of at most 300 characters, led by the status", () => {
    expect(classifyModelError(apiError(503, "down\n  for\tmaintenance")).message).toBe(
      "503: down for maintenance",
    );
    const long = classifyModelError(apiError(503, "y".repeat(400))).message;
    expect(long).toBe(`${`503: ${"y".repeat(400)}`.slice(0, 300)}…`);
    expect(classifyModelError(new Error(" a \n b ")).message).toBe("Error: a b");
  });

  it("a message of exactly 300 characters is kept whole", () => {
    const msg = "y".repeat(295);
    expect(classifyModelError(apiError(503, msg)).message).toBe(`503: ${msg}`);
  });

  it("a response body that is not a string is not searched for a context overflow", () => {
    const e = new APICallError({
      message: "bad request",
      url: "http://x",
      requestBodyValues: {},
      statusCode: 400,
      responseBody: ["prompt is too long"] as unknown as string,
    });
    expect(classifyModelError(e)).toMatchObject({ kind: "client", status: 400 });
  });

  it("each malformed-reply error class of the AI SDK is retried, whatever its message", () => {
    for (const e of [
      new EmptyResponseBodyError({ message: "nothing came" }),
      new NoContentGeneratedError({ message: "nothing came" }),
    ])
      expect(classifyModelError(e)).toMatchObject({ kind: "malformed", retryable: true });
    // A plain error is read by its name and message: "invalid response" with or without the space.
    const named = new Error("upstream");
    named.name = "InvalidResponseError";
    expect(classifyModelError(named)).toMatchObject({ kind: "malformed", retryable: true });
    expect(classifyModelError(new Error("upstream"))).toMatchObject({ kind: "client", retryable: false });
  });

  it("aborts, parse failures and non-errors", () => {
    const abort = new Error("x");
    abort.name = "AbortError";
    expect(classifyModelError(abort)).toEqual({
      kind: "aborted",
      retryable: false,
      status: null,
      retryAfterMs: null,
      message: "aborted",
    });
    expect(classifyModelError(new JSONParseError({ text: "{", cause: new Error("eof") }))).toMatchObject({
      kind: "malformed",
      retryable: true,
    });
    expect(classifyModelError(new Error("invalid response from upstream"))).toMatchObject({
      kind: "malformed",
    });
    expect(classifyModelError("plain text")).toEqual({
      kind: "client",
      retryable: false,
      status: null,
      retryAfterMs: null,
      message: "Error: plain text",
    });
  });
});

describe("parseRetryAfter and retryDelayMs: edges", () => {
  it("a bad retry-after-ms falls back to retry-after; a past date is 0; garbage is null", () => {
    expect(parseRetryAfter({ "retry-after-ms": "-5", "retry-after": "1" })).toBe(1000);
    expect(parseRetryAfter({ "retry-after-ms": "soon", "retry-after": "1" })).toBe(1000);
    expect(parseRetryAfter({ "Retry-After-Ms": "0" })).toBe(0);
    expect(parseRetryAfter({ "retry-after": "0" })).toBe(0);
    expect(
      parseRetryAfter({ "retry-after": "Thu, 01 Jan 2026 00:00:00 GMT" }, () => Date.UTC(2026, 0, 2)),
    ).toBe(0);
    expect(parseRetryAfter({ "retry-after": "whenever" })).toBeNull();
    // Infinity is a number but no delay: the seconds header is read instead.
    expect(parseRetryAfter({ "retry-after-ms": "Infinity", "retry-after": "1" })).toBe(1000);
    // "0" seconds is 0, not read as a date (Date.parse("0") is the year 2000).
    expect(parseRetryAfter({ "retry-after": "0" }, () => 0)).toBe(0);
    // A negative number of seconds is never a negative delay.
    const after = parseRetryAfter({ "retry-after": "-5" }, () => Date.UTC(2030, 0, 1));
    expect(after).toBe(0);
  });

  it("the ceiling doubles per attempt from baseDelayMs; jitter spans its upper half", () => {
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 10_000 };
    expect(retryDelayMs(3, p, null, () => 0)).toBe(400);
    expect(retryDelayMs(3, p, null, () => 0.5)).toBe(600);
    expect(retryDelayMs(3, p, 100, () => 0.5)).toBe(600);
  });

  it("the default policy: 6 retries from 1 s to 60 s, calls abandoned after 5 minutes", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxRetries: 6,
      baseDelayMs: 1000,
      maxDelayMs: 60_000,
      callTimeoutMs: 300_000,
    });
  });
});
