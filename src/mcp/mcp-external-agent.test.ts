import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outcomeOfTranscript } from "../analyze/transcript-to-record.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { DEFAULT_PRICE_TABLE } from "../run/price-table.js";
import { trialRecordOf } from "../run/run-into-dir.js";
import { runTrial } from "../run/run-trial.js";
import { trialFailureReason } from "../run/transcript-writer.js";
import { mcpAgentFactory } from "./mcp-external-agent.js";

const FIXTURE = join(import.meta.dirname, "../../test/support/golden-mcp-client.ts");
const bank = bankFromContent(defaultBankContent());
const dir = mkdtempSync(join(tmpdir(), "apiflow-mcp-test-"));

function taskFile(task: Task): string {
  const file = join(dir, `${task.id}.json`);
  writeFileSync(file, JSON.stringify(task));
  return file;
}

function pick(kind: "solo" | "chain"): Task {
  const task = bank.tasks.find(
    (t) => t.kind === kind && t.world === "fleet-telemetry" && t.golden.length > 4,
  );
  if (!task) throw new Error(`no ${kind} task`);
  return task;
}

describe("an external agent over MCP (SDK client in a child process)", () => {
  for (const kind of ["solo", "chain"] as const) {
    it(`plays the golden solution of a ${kind} task through the trial's MCP server and passes`, async () => {
      const task = pick(kind);
      const agent = mcpAgentFactory(`node --import tsx ${FIXTURE} {url} ${taskFile(task)}`);
      const r = await runTrial({ bank, task, agent, epoch: 1 });
      expect(r.grade.failure_reason).toBe("");
      expect(r.outcome).toBe("pass");
      expect(r.stop_reason).toBe("answered");
      // The transcript is the harness's own: every tool call the client made is in it.
      expect(r.tool_calls).toBeGreaterThan(task.golden.length - 1);
      expect(r.messages.at(-1)?.content).toEqual([
        { type: "text", text: expect.stringContaining("```json") },
      ]);
    }, 60_000);
  }

  it("fails a client that disconnects before delivering, saying so", async () => {
    const task = pick("solo");
    const agent = mcpAgentFactory(`node --import tsx ${FIXTURE} {url} ${taskFile(task)} --stop-after 2`);
    const r = await runTrial({ bank, task, agent, epoch: 1 });
    expect(r.outcome).toBe("fail");
    expect(r.stop_reason).toBe("disconnected");
    expect(r.tool_calls).toBe(2);
    expect(r.stop_detail).toBe(
      "the MCP client disconnected before delivering an answer card (the agent exited with status 0)",
    );
    expect(r.grade.card_found).toBe(false);
    // The transcript and the store row say so too (a scored failure, not an abstention or a limit).
    expect(trialFailureReason(r)).toMatch(
      /^agent disconnected: the MCP client disconnected before delivering an answer card \(the agent exited with status 0\); /,
    );
    const record = trialRecordOf(r, task, bank.manifest.content_hash, DEFAULT_PRICE_TABLE, null, null);
    expect(record).toMatchObject({ outcome: "fail", passed: false, stop_reason: "disconnected" });
    expect(outcomeOfTranscript({ verdict: "I", failure_reason: record.failure_reason })).toBe("fail");
  }, 60_000);

  it("fails a command that does not start, with the shell's status as the reason", async () => {
    const task = pick("solo");
    const r = await runTrial({ bank, task, agent: mcpAgentFactory("exit 7"), epoch: 1 });
    expect(r.outcome).toBe("fail");
    expect(r.stop_detail).toContain("the agent exited with status 7");
  }, 60_000);
});
