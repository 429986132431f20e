/**
 * A concurrency gate for model calls whose limit moves like TCP's window (AIMD): it halves on a
 * rate limit and grows back by about one per window of successful calls, so a long run neither
 * hammers a provider that pushes back nor stays slow once it recovers.
 *
 * @example
 * const gate = new AimdLimiter({ max: 16 });
 * if (await gate.acquire(signal)) { try { await call(); gate.release("ok"); } catch { gate.release("rate_limited"); } }
 */
export class AimdLimiter {
  private current: number;
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  /** Calls to see released before another 429 may shrink the window again (one decrease per window). */
  private cooldown = 0;
  /** 429s seen, for the progress display. */
  rateLimited = 0;

  constructor(private readonly options: { max: number; min?: number; decrease?: number }) {
    this.current = options.max;
  }

  /** The current window (calls allowed in flight). */
  get limit(): number {
    return Math.max(this.min, Math.floor(this.current));
  }

  get inFlight(): number {
    return this.active;
  }

  /** True while the window is below its maximum (a provider pushed back recently). */
  get throttled(): boolean {
    return this.limit < this.options.max;
  }

  private get min(): number {
    return this.options.min ?? 1;
  }

  /** Wait for a slot; false if the signal aborted first (no slot is held then). */
  acquire(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        this.active++;
        resolve(true);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(wake);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(false);
      };
      this.waiters.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Give a slot back, saying how the call went. */
  release(result: "ok" | "rate_limited" | "error"): void {
    this.active = Math.max(0, this.active - 1);
    if (this.cooldown > 0) this.cooldown--;
    if (result === "rate_limited") {
      this.rateLimited++;
      if (this.cooldown === 0) {
        this.current = Math.max(this.min, this.current * (this.options.decrease ?? 0.5));
        this.cooldown = Math.max(1, this.active);
      }
    } else if (result === "ok") {
      this.current = Math.min(this.options.max, this.current + 1 / Math.max(1, this.current));
    }
    while (this.waiters.length > 0 && this.active < this.limit) (this.waiters.shift() as () => void)();
  }
}
