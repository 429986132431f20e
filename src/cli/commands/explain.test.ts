import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../../test/support/skeleton-bank.js";
import { blankAgentFactory, goldenAgentFactory } from "../../agents/scripted-agents.js";
import { ExplanationSchema } from "../../grade/explain-verdict.js";
import { DEFAULT_PRICE_TABLE } from "../../run/price-table.js";
import { runIntoDir } from "../../run/run-into-dir.js";
import { transcriptRelPath } from "../../run/store.js";
import { trialLogPath } from "../../run/stored-trial-log.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const bank = skeletonBank();
const task = bank.tasks[0]!;
const runDir = mkdtempSync(join(tmpdir(), "apiflow-explain-"));
const ran = await runIntoDir({
  runDir,
  bank,
  agents: [goldenAgentFactory, blankAgentFactory].map((factory) => ({
    factory,
    settings: { kind: "scripted" as const },
  })),
  tasks: [task],
  epochs: 1,
  concurrency: 2,
  priceTable: DEFAULT_PRICE_TABLE,
});
if (!ran.success) throw new Error(ran.error.message);

describe("apiflow explain", () => {
  it("explains a pass from a run directory and a trial name", async () => {
    const io = bufferIo();
    const json = join(runDir, "golden.json");
    expect(await runCli(["explain", runDir, `golden/${task.id}/t1`, "--json", json], io)).toBe(0);
    expect(io.out()).toMatch(new RegExp(`^golden/${task.id}/t1: PASS`));
    expect(io.out()).toContain("satisfied by: #");
    const ex = ExplanationSchema.parse(JSON.parse(readFileSync(json, "utf8")));
    expect(ex.passed).toBe(true);
  });

  it("explains a fail from its transcript file: every gating predicate fails with a reason", async () => {
    const io = bufferIo();
    const transcript = join(runDir, transcriptRelPath("blank", task.id, 1));
    expect(await runCli(["explain", transcript], io)).toBe(0);
    expect(io.out()).toMatch(new RegExp(`^blank/${task.id}/t1: FAIL`));
    expect(io.out()).toContain("no answer card");
    const failed = io
      .out()
      .split("\n")
      .filter((l) => l.startsWith("✗ "));
    expect(failed.length).toBe(task.grader.answer.length + task.grader.g1.length);
  });

  it("refuses a trial without a stored log, and a bad trial name, with one clear line", async () => {
    const transcript = join(runDir, transcriptRelPath("blank", task.id, 1));
    rmSync(trialLogPath(transcript));
    const io = bufferIo();
    expect(await runCli(["explain", transcript], io)).toBe(2);
    expect(io.err()).toMatch(/^apiflow: explain: no stored event log at .* cannot be explained\)\n$/);
    const bad = bufferIo();
    expect(await runCli(["explain", runDir, "golden"], bad)).toBe(2);
    expect(bad.err()).toContain("agent/task_id/tN");
  });
});
