import type { AimdLimiter } from "../agents/aimd-limiter.js";

/** Live counters of one agent in a run. */
export interface AgentProgress {
  name: string;
  total: number;
  /** Trials finished (including those resumed from the store). */
  done: number;
  passed: number;
  /** Finished by this process (the ETA's rate). */
  doneHere: number;
  retries: number;
  costUsd: number;
  /** Some trial had no known price. */
  costUnknown: boolean;
  limiter?: AimdLimiter;
}

/**
 * One line per agent: `gpt-5-mini  37/120  21 pass  3 retries  429 ×2 (window 8)  $0.42  ETA 4m12s`.
 * Pure: the display is a function of the counters and the elapsed time.
 */
export function formatProgressLine(a: AgentProgress, elapsedMs: number, width = 0): string {
  const parts = [a.name.padEnd(width), `${a.done}/${a.total}`, `${a.passed} pass`, `${a.retries} retries`];
  if (a.limiter && a.limiter.rateLimited > 0) {
    parts.push(`429 ×${a.limiter.rateLimited}${a.limiter.throttled ? ` (window ${a.limiter.limit})` : ""}`);
  }
  // No known price for any trial: "unpriced", never a $0.00 that reads as free.
  if (a.costUnknown && a.costUsd === 0) parts.push("unpriced");
  else parts.push(`$${a.costUsd.toFixed(2)}${a.costUnknown ? "+?" : ""}`);
  const left = a.total - a.done;
  if (left > 0 && a.doneHere > 0) parts.push(`ETA ${formatDuration((elapsedMs / a.doneHere) * left)}`);
  return parts.join("  ");
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * The progress display of a run: redrawn in place on a TTY, plain periodic lines otherwise (CI
 * logs). It writes to `write` (stderr), so `--json` on stdout stays clean.
 *
 * @example const p = new RunProgress(agents, { write: (t) => process.stderr.write(t), tty: true }); p.start(); … p.stop();
 */
export class RunProgress {
  private timer: NodeJS.Timeout | undefined;
  private drawn = 0;
  private readonly started: number;
  private readonly now: () => number;

  constructor(
    readonly agents: AgentProgress[],
    private readonly options: {
      write: (text: string) => void;
      tty: boolean;
      intervalMs?: number;
      now?: () => number;
    },
  ) {
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
  }

  lines(): string[] {
    const width = Math.max(...this.agents.map((a) => a.name.length));
    const elapsed = this.now() - this.started;
    return this.agents.map((a) => formatProgressLine(a, elapsed, width));
  }

  start(): void {
    const interval = this.options.intervalMs ?? (this.options.tty ? 250 : 10_000);
    this.timer = setInterval(() => this.tick(), interval);
    this.timer.unref();
    if (this.options.tty) this.draw();
  }

  /** Print a line above the live block (a trial result), keeping the block at the bottom. */
  log(line: string, out: (text: string) => void): void {
    if (!this.options.tty) {
      out(line);
      return;
    }
    this.erase();
    out(line);
    this.draw();
  }

  /** Stop updating; off a terminal, one last line per agent says where the run ended (`final`). */
  stop(final = true): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.options.tty) this.erase();
    else if (final) this.tick();
  }

  private tick(): void {
    if (this.options.tty) {
      this.erase();
      this.draw();
    } else {
      for (const line of this.lines()) this.options.write(`progress: ${line}\n`);
    }
  }

  private draw(): void {
    const lines = this.lines();
    this.options.write(`${lines.join("\n")}\n`);
    this.drawn = lines.length;
  }

  private erase(): void {
    if (this.drawn === 0) return;
    // Up `drawn` lines, then clear to the end of the screen.
    this.options.write(`\x1b[${this.drawn}F\x1b[0J`);
    this.drawn = 0;
  }
}
