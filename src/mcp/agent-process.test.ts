import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { skeletonBankContent } from "../generate/skeleton-bank.js";
import { runTrial } from "../run/run-trial.js";
import { mcpAgentFactory } from "./mcp-external-agent.js";

const FIXTURE = join(import.meta.dirname, "stubborn-mcp-agent.test-fixture.mjs");
const bank = bankFromContent(skeletonBankContent());

/** A process is there unless kill(pid, 0) fails or it is a zombie waiting to be reaped. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !(existsSync(stat) && / Z /.test(readFileSync(stat, "utf8")));
}

describe("an external agent process that ignores SIGTERM", () => {
  it("is killed with its children when its trial ends", async () => {
    const task = bank.tasks[0];
    if (!task) throw new Error("no task");
    const pidFile = join(mkdtempSync(join(tmpdir(), "apiflow-stubborn-")), "pids.json");
    const agent = mcpAgentFactory(`node ${FIXTURE} {url} ${pidFile}`, { name: "stubborn", killGraceMs: 300 });
    const r = await runTrial({ bank, task, epoch: 1, agent });
    expect(r.stop_reason).toBe("answered");
    const pids = JSON.parse(readFileSync(pidFile, "utf8")) as number[];
    expect(pids).toHaveLength(2);
    // The trial has returned: the agent and its child are gone (poll: the kernel may lag a little).
    for (let i = 0; i < 100 && pids.some(running); i++) await new Promise((r) => setTimeout(r, 20));
    expect(pids.filter(running)).toEqual([]);
  }, 60_000);
});
