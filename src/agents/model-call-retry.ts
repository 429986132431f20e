import {
  APICallError,
  EmptyResponseBodyError,
  InvalidResponseDataError,
  JSONParseError,
  NoContentGeneratedError,
  TypeValidationError,
} from "@ai-sdk/provider";
import { z } from "zod";
import type { AimdLimiter } from "./aimd-limiter.js";

/** How model calls are retried. Delays double from `baseDelayMs` up to `maxDelayMs`, jittered. */
export const RetryPolicySchema = z.object({
  maxRetries: z.number().int().nonnegative().default(6),
  baseDelayMs: z.number().nonnegative().default(1000),
  maxDelayMs: z.number().nonnegative().default(60_000),
  /** One model call longer than this is abandoned and retried as a time-out. */
  callTimeoutMs: z.number().positive().default(300_000),
});
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;
export const DEFAULT_RETRY_POLICY: RetryPolicy = RetryPolicySchema.parse({});

/**
 * What went wrong with one model call, as data. `retryable` follows the AI SDK's `isRetryable`,
 * except that a malformed reply (a 200 whose body is not JSON, has no choices, or was cut off) is
 * retried like a 5xx: the provider broke, not the model. `auth` is a 401/403: a wrong or missing
 * key, never retried (a run whose first calls all get it stops early).
 */
export interface ModelFailure {
  kind:
    | "rate_limited"
    | "server"
    | "malformed"
    | "timeout"
    | "network"
    | "context_overflow"
    | "auth"
    | "client"
    | "aborted";
  retryable: boolean;
  status: number | null;
  /** From `Retry-After` / `retry-after-ms`, when the provider sent one. */
  retryAfterMs: number | null;
  /** One line, for the stop detail; never holds request headers. */
  message: string;
}

const CONTEXT_OVERFLOW =
  /context[_ ]length|maximum context|context window|prompt is too long|too many tokens|exceeds the (model's )?(maximum|context)|input is too long/i;

/**
 * Classify an error thrown by a model call. Pure.
 *
 * @example classifyModelError(new APICallError({ statusCode: 429, … })).kind // "rate_limited"
 */
export function classifyModelError(e: unknown, now: () => number = Date.now): ModelFailure {
  if (APICallError.isInstance(e)) {
    const status = e.statusCode ?? null;
    const body = typeof e.responseBody === "string" ? e.responseBody : "";
    const message = oneLine(`${status ?? "no status"}: ${e.message}`);
    if (
      (status === 400 || status === 413 || status === 422) &&
      CONTEXT_OVERFLOW.test(`${e.message} ${body}`)
    ) {
      return { kind: "context_overflow", retryable: false, status, retryAfterMs: null, message };
    }
    const retryAfterMs = parseRetryAfter(e.responseHeaders ?? {}, now);
    // A success status whose body the provider could not read: not JSON, or cut off mid-body.
    if (status !== null && status >= 200 && status < 300)
      return { kind: "malformed", retryable: true, status, retryAfterMs, message };
    if (status === 401 || status === 403)
      return { kind: "auth", retryable: false, status, retryAfterMs, message };
    if (status === 429) return { kind: "rate_limited", retryable: true, status, retryAfterMs, message };
    if (status !== null && status >= 500)
      return { kind: "server", retryable: true, status, retryAfterMs, message };
    if (status === null) return { kind: "network", retryable: e.isRetryable, status, retryAfterMs, message };
    return { kind: "client", retryable: e.isRetryable, status, retryAfterMs, message };
  }
  const err = e instanceof Error ? e : new Error(String(e));
  if (err.name === "TimeoutError") {
    return {
      kind: "timeout",
      retryable: true,
      status: null,
      retryAfterMs: null,
      message: "model call timed out",
    };
  }
  if (err.name === "AbortError") {
    return { kind: "aborted", retryable: false, status: null, retryAfterMs: null, message: "aborted" };
  }
  // Malformed responses (a reply with no choices, a body that fails the provider's schema, JSON
  // that does not parse) are worth another try, under the same policy as a 5xx.
  const malformed =
    InvalidResponseDataError.isInstance(e) ||
    EmptyResponseBodyError.isInstance(e) ||
    NoContentGeneratedError.isInstance(e) ||
    JSONParseError.isInstance(e) ||
    TypeValidationError.isInstance(e) ||
    /JSON|parse|invalid ?response|type validation/i.test(`${err.name} ${err.message}`);
  return {
    kind: malformed ? "malformed" : "client",
    retryable: malformed,
    status: null,
    retryAfterMs: null,
    message: oneLine(`${err.name}: ${err.message}`),
  };
}

/** `Retry-After` in seconds or as an HTTP date, or `retry-after-ms`; null when absent or unreadable. */
export function parseRetryAfter(
  headers: Record<string, string>,
  now: () => number = Date.now,
): number | null {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower["retry-after-ms"]);
  if (lower["retry-after-ms"] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower["retry-after"];
  if (raw === undefined) return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now());
}

/**
 * The delay before retry number `attempt` (0-based): exponential with full jitter, never shorter
 * than the provider's `Retry-After`, never longer than `maxDelayMs` unless the provider asked.
 *
 * @example retryDelayMs(2, DEFAULT_RETRY_POLICY, null, () => 1) // 4000
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = ceiling / 2 + (ceiling / 2) * random();
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Events of the retry loop, for the progress display. */
export type ModelCallEvent =
  | { type: "retry"; failure: ModelFailure; attempt: number; delayMs: number }
  | { type: "gave_up"; failure: ModelFailure; attempts: number };

/** What a model agent needs to call its model politely: retries, a shared AIMD gate, events. */
export interface ModelCallControl {
  retry: RetryPolicy;
  limiter?: AimdLimiter;
  onEvent?: (event: ModelCallEvent) => void;
  /** For tests: how to wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export type CallOutcome<T> =
  | { success: true; data: T; retries: number }
  | { success: false; failure: ModelFailure; retries: number };

/**
 * Run one model call with retries: rate limits and server errors back off (honouring Retry-After),
 * the AIMD gate shrinks on 429 and grows on success, a context overflow or a client error fails at
 * once. Never throws for a provider's error.
 *
 * @example const out = await callWithRetries((signal) => generateText({ …, abortSignal: signal }), control, session.signal);
 */
export async function callWithRetries<T>(
  call: (signal: AbortSignal) => Promise<T>,
  control: ModelCallControl,
  signal: AbortSignal,
): Promise<CallOutcome<T>> {
  const sleep = control.sleep ?? abortableSleep;
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) return { success: false, failure: abortedFailure(), retries: attempt };
    if (control.limiter) {
      const acquired = await control.limiter.acquire(signal);
      if (!acquired) return { success: false, failure: abortedFailure(), retries: attempt };
    }
    let failure: ModelFailure;
    // Our own timer rather than AbortSignal.timeout: combined through AbortSignal.any, Node 20 may
    // collect the timeout signal before it fires, and the call then hangs forever.
    const perCall = new AbortController();
    const onAbort = () => perCall.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(() => {
      const e = new Error(`model call exceeded ${control.retry.callTimeoutMs} ms`);
      e.name = "TimeoutError";
      perCall.abort(e);
    }, control.retry.callTimeoutMs);
    try {
      const data = await call(perCall.signal);
      control.limiter?.release("ok");
      return { success: true, data, retries: attempt };
    } catch (e) {
      const timedOut = perCall.signal.aborted && !signal.aborted;
      failure = signal.aborted
        ? abortedFailure()
        : timedOut
          ? classifyModelError(perCall.signal.reason)
          : classifyModelError(e);
      control.limiter?.release(failure.kind === "rate_limited" ? "rate_limited" : "error");
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    }
    if (!failure.retryable || attempt >= control.retry.maxRetries) {
      if (failure.retryable) control.onEvent?.({ type: "gave_up", failure, attempts: attempt + 1 });
      return { success: false, failure, retries: attempt };
    }
    const delayMs = retryDelayMs(attempt, control.retry, failure.retryAfterMs);
    control.onEvent?.({ type: "retry", failure, attempt, delayMs });
    try {
      await sleep(delayMs, signal);
    } catch {
      return { success: false, failure: abortedFailure(), retries: attempt + 1 };
    }
  }
}

function abortedFailure(): ModelFailure {
  return { kind: "aborted", retryable: false, status: null, retryAfterMs: null, message: "trial aborted" };
}

/** setTimeout as a promise that rejects when the signal aborts. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
