import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { blankAgentFactory, goldenAgentFactory } from "../agents/scripted-agents.js";
import { loadRuns } from "../analyze/load-runs.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import { writeBank } from "../bank/load-bank.js";
import type { Task } from "../bank/task-schema.js";
import { bufferIo } from "../cli/io.js";
import { runCli } from "../cli/program.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { GRADER_VERSION, gradeTrial } from "../grade/grade-trial.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { RegradeSummarySchema, regradeRun } from "./regrade-run.js";
import { runIntoDir } from "./run-into-dir.js";
import { openStore, readRunManifest } from "./store.js";
import { trialKeyString } from "./trial-record.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-regrade-"));
const content = defaultBankContent();
const fullBank = bankFromContent(content);
// Every 12th task of the default bank: solos and chains of several worlds and axes.
const TASKS = fullBank.tasks.filter((_, i) => i % 12 === 0);
const AGENTS = [goldenAgentFactory, blankAgentFactory, baselineAgentFactory].map((factory) => ({
  factory,
  settings: { kind: "scripted" as const },
}));

async function runInto(bank: Bank, tasks: readonly Task[] = TASKS): Promise<string> {
  const runDir = tmp();
  const res = await runIntoDir({
    runDir,
    bank,
    agents: AGENTS,
    tasks: tasks.map((t) => bank.tasks.find((b) => b.id === t.id) as Task),
    epochs: 1,
    concurrency: 4,
    priceTable: DEFAULT_PRICE_TABLE,
  });
  if (!res.success) throw new Error(res.error.message);
  return runDir;
}

/** The bank with the first answer field of each named task expecting a value no agent gives. */
function withWrongAnswerKey(taskIds: readonly string[]) {
  return {
    ...content,
    tasks: content.tasks.map((t) => {
      if (!taskIds.includes(t.id)) return t;
      const [first, ...rest] = t.grader.answer;
      if (!first) throw new Error("a task without answer fields");
      const wrong: JsonValue =
        first.comparator === "numeric"
          ? 987_654.321
          : first.comparator === "boolean"
            ? first.expected !== true
            : first.comparator === "set"
              ? ["not-the-answer"]
              : "not-the-answer";
      return { ...t, grader: { ...t.grader, answer: [{ ...first, expected: wrong }, ...rest] } };
    }),
  };
}

const passedKeys = (runDir: string, taskId: string) => {
  const store = openStore(runDir, { readonly: true });
  try {
    return store
      .query({ task_id: taskId })
      .filter((r) => r.passed === true)
      .map((r) => `${r.agent}/${r.task_id}/t${r.epoch}`)
      .sort();
  } finally {
    store.close();
  }
};

describe("apiflow regrade", () => {
  it("re-grades a golden, blank and baseline run with 0 changes, and the new grading equals the run's byte for byte", async () => {
    const runDir = await runInto(fullBank);
    const before = openStore(runDir, { readonly: true });
    const records = [...before.all()];
    before.close();
    expect(records.length).toBe(TASKS.length * 3);
    expect(records.filter((r) => r.passed).length).toBeGreaterThanOrEqual(TASKS.length);

    const res = regradeRun({ runDir, created: "2026-12-01T00:00:00.000Z" });
    if (!res.success) throw new Error(res.error.message);
    expect(res.data).toMatchObject({ trials: records.length, regraded: records.length, changed: 0 });
    expect(res.data.not_regradable).toEqual([]);
    expect(res.data.changes).toEqual([]);
    expect(res.data.grading?.id).toBe(2);

    const store = openStore(runDir, { readonly: true });
    try {
      const [ran, regraded] = [store.gradings.verdicts(1), store.gradings.verdicts(2)];
      expect(ran).toHaveLength(records.length);
      expect(JSON.stringify(regraded)).toBe(JSON.stringify(ran));
      expect(store.gradings.list().map((g) => [g.id, g.source])).toEqual([
        [1, "run"],
        [2, "regrade"],
      ]);
    } finally {
      store.close();
    }
    const manifest = readRunManifest(runDir) as Record<string, unknown>;
    expect(manifest.gradings).toMatchObject([
      { id: 1, source: "run", grader_version: GRADER_VERSION },
      { id: 2, source: "regrade", grader_version: GRADER_VERSION, grader_bank_hash: null },
    ]);
  }, 120_000);

  it("after a deliberate grader change lists exactly the trials it affects, both ways, by reason; report reads the new grading", async () => {
    // Run with a bank whose key for task A is wrong: every trial of A fails as it runs.
    const [a, b] = [TASKS[0] as Task, TASKS[1] as Task];
    const brokenAtRun = bankFromContent(withWrongAnswerKey([a.id]));
    const runDir = await runInto(brokenAtRun);
    expect(passedKeys(runDir, a.id)).toEqual([]);
    const passingB = passedKeys(runDir, b.id);
    expect(passingB).toContain(`golden/${b.id}/t1`);

    // The fixed bank keys A right and B wrong: A's golden goes failed→passed, B's passers fail.
    const fixedDir = tmp();
    writeBank(fixedDir, withWrongAnswerKey([b.id]));
    const io = bufferIo({}, fixedDir);
    const jsonPath = join(fixedDir, "regrade.json");
    const code = await runCli(["regrade", runDir, "--bank", fixedDir, "--json", jsonPath], io);
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    const summary = RegradeSummarySchema.parse(JSON.parse(readFileSync(jsonPath, "utf8")));
    const fresh = runInto(fullBank, [a]);
    const expectedUp = passedKeys(await fresh, a.id);
    expect(expectedUp).toContain(`golden/${a.id}/t1`);
    const key = (c: { agent: string; task_id: string; epoch: number }) =>
      `${c.agent}/${c.task_id}/t${c.epoch}`;
    const down = summary.changes
      .filter((c) => c.direction === "passed_to_failed")
      .map(key)
      .sort();
    const up = summary.changes
      .filter((c) => c.direction === "failed_to_passed")
      .map(key)
      .sort();
    expect(down).toEqual(passingB);
    expect(up).toEqual(expectedUp);
    expect(summary).toMatchObject({
      trials: TASKS.length * 3,
      changed: down.length + up.length,
      passed_to_failed: down.length,
      failed_to_passed: up.length,
    });
    for (const c of summary.changes.filter((c) => c.direction === "passed_to_failed"))
      expect(c.reason).toContain("answer field");
    expect(io.out()).toContain("passed→failed");
    expect(io.out()).toContain("failed→passed");

    // `report` (through the store's trial rows) now reads grading 2.
    const store = openStore(runDir, { readonly: true });
    try {
      expect(
        store.get({ bank_hash: brokenAtRun.manifest.content_hash, agent: "golden", task_id: a.id, epoch: 1 })
          ?.outcome,
      ).toBe("pass");
      const old = store.gradings.verdicts(1).find((v) => v.agent === "golden" && v.task_id === a.id);
      expect(old?.outcome).toBe("fail");
    } finally {
      store.close();
    }
    const loaded = loadRuns([runDir]);
    if (!loaded.success) throw new Error(loaded.error.message);
    const golden = loaded.data.records.filter((r) => r.agent === "golden");
    expect(golden.filter((r) => r.task_id === a.id).map((r) => r.outcome)).toEqual(["pass"]);
    expect(golden.filter((r) => r.task_id === b.id).map((r) => r.outcome)).toEqual(["fail"]);
    const reportIo = bufferIo();
    expect(await runCli(["report", runDir, "--json", join(fixedDir, "report.json")], reportIo)).toBe(0);
  }, 180_000);

  it("a grader variant injected as an option changes exactly the trials it disagrees on", async () => {
    const runDir = await runInto(fullBank, TASKS.slice(0, 6));
    const target = TASKS[2] as Task;
    // The variant fails every trial of one task; nothing else changes.
    const res = regradeRun({
      runDir,
      dryRun: true,
      grade: (input) => {
        const g = gradeTrial(input);
        return JSON.stringify(input.grader) === JSON.stringify(target.grader)
          ? { ...g, passed: false, g2_passed: false, failure_reason: "first failure: variant" }
          : g;
      },
    });
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.changes.map((c) => trialKeyString({ ...c, bank_hash: "" }))).toEqual(
      passedKeys(runDir, target.id).map((k) => {
        const [agent, task_id, t] = k.split("/");
        return trialKeyString({
          agent: agent!,
          task_id: task_id!,
          epoch: Number(t!.slice(1)),
          bank_hash: "",
        });
      }),
    );
    expect(res.data.grading).toBeNull();
  }, 120_000);

  it("lists trials without a stored log as not re-gradable, and reads and migrates a version 1 store", async () => {
    const runDir = await runInto(fullBank, TASKS.slice(0, 2));
    // Make it look like a run stored before this change: no logs, store version 1, no gradings tables.
    for (const agent of ["golden", "blank", "baseline"])
      for (const t of TASKS.slice(0, 2))
        rmSync(join(runDir, "transcripts", agent, `${t.id}-t1.json.events.json.gz`));
    const db = new Database(join(runDir, "results.sqlite"));
    db.exec(
      "DROP TABLE graded_trials; DROP TABLE gradings; UPDATE meta SET value = '1' WHERE key = 'store_version'",
    );
    db.close();

    const readonly = openStore(runDir, { readonly: true });
    expect(readonly.count()).toBe(6);
    expect(readonly.gradings.list()).toEqual([]);
    readonly.close();

    const res = regradeRun({ runDir });
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.regraded).toBe(0);
    expect(res.data.changed).toBe(0);
    expect(res.data.not_regradable).toHaveLength(6);
    expect(new Set(res.data.not_regradable.map((n) => n.code))).toEqual(new Set(["missing"]));
    expect(res.data.grading).toBeNull();
    const migrated = new Database(join(runDir, "results.sqlite"), { readonly: true });
    expect(migrated.prepare("SELECT value FROM meta WHERE key = 'store_version'").pluck().get()).toBe("2");
    migrated.close();
  }, 120_000);

  it("refuses a directory that is not a run with a clear error", async () => {
    const io = bufferIo();
    const code = await runCli(["regrade", tmp()], io);
    expect(code).toBe(2);
    expect(io.err()).toMatch(/^apiflow: regrade: no results.sqlite in /);
  });
});
