import { afterEach, describe, expect, it, vi } from "vitest";
import { AimdLimiter } from "../agents/aimd-limiter.js";
import { type AgentProgress, formatProgressLine, RunProgress } from "./run-progress.js";

const agent = (over: Partial<AgentProgress> = {}): AgentProgress => ({
  name: "gpt",
  total: 10,
  done: 0,
  passed: 0,
  doneHere: 0,
  retries: 0,
  costUsd: 0,
  costUnknown: false,
  ...over,
});

afterEach(() => {
  vi.useRealTimers();
});

describe("run progress", () => {
  it("a line holds done/total, passes, retries, the 429 window, cost and an ETA", () => {
    const limiter = new AimdLimiter({ max: 8 });
    limiter.rateLimited = 2;
    const line = formatProgressLine(
      agent({ done: 4, passed: 3, doneHere: 2, retries: 5, costUsd: 0.5, limiter }),
      60_000,
    );
    expect(line).toBe("gpt  4/10  3 pass  5 retries  429 ×2  $0.50  ETA 3m00s");
  });

  it("an agent with no price says unpriced, not $0.00", () => {
    expect(formatProgressLine(agent({ done: 1, doneHere: 1, costUnknown: true }), 1000)).toContain(
      "unpriced",
    );
    expect(formatProgressLine(agent({ done: 1, doneHere: 1, costUnknown: true }), 1000)).not.toContain("$");
  });

  it("off a terminal, prints a line per agent every interval and a last one on stop", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const a = agent();
    const p = new RunProgress([a], { write: (t) => written.push(t), tty: false, intervalMs: 1000 });
    p.start();
    expect(written).toEqual([]);
    a.done = 3;
    vi.advanceTimersByTime(1000);
    expect(written).toEqual(["progress: gpt  3/10  0 pass  0 retries  $0.00\n"]);
    a.done = 10;
    p.stop();
    expect(written.at(-1)).toBe("progress: gpt  10/10  0 pass  0 retries  $0.00\n");
  });

  it("on a terminal, redraws in place at least once a second", () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const a = agent();
    const p = new RunProgress([a], { write: (t) => written.push(t), tty: true });
    p.start();
    a.done = 1;
    vi.advanceTimersByTime(1000);
    const redraws = written.filter((t) => t.startsWith("\x1b[1F"));
    expect(redraws.length).toBeGreaterThanOrEqual(1);
    expect(written.at(-1)).toContain("1/10");
    p.stop();
  });
});
