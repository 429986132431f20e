import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { blankAgentFactory, goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { regradeRun } from "./regrade-run.js";
import { type BankGrader, type RegradeJob, regradeJob } from "./regrade-trial.js";
import { claimsOf } from "./regrade-worker.js";
import {
  closeRegradeWorkers,
  defaultRegradeWorkers,
  PARALLEL_MIN_JOBS,
  regradeInParallel,
} from "./regrade-workers.js";
import { runIntoDir } from "./run-into-dir.js";
import { openStore } from "./store.js";
import { gradedSegmentsOf, trialLogPath } from "./stored-trial-log.js";

const content = defaultBankContent();
const bank = bankFromContent(content);
// Every 20th task: solos and chains of several worlds.
const TASKS = bank.tasks.filter((_, i) => i % 20 === 0);

afterAll(() => closeRegradeWorkers());

describe("re-grading on worker threads", () => {
  it("gives the one-thread re-grade byte for byte: verdicts, order, refusals, changes, with stored and bank graders", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "apiflow-regrade-workers-"));
    try {
      const ran = await runIntoDir({
        runDir,
        bank,
        agents: [goldenAgentFactory, blankAgentFactory, baselineAgentFactory].map((factory) => ({
          factory,
          settings: { kind: "scripted" as const },
        })),
        tasks: TASKS,
        epochs: 1,
        concurrency: 4,
        priceTable: DEFAULT_PRICE_TABLE,
      });
      if (!ran.success) throw new Error(ran.error.message);
      const [first, second] = TASKS;
      // One log gone, one damaged: both must be refused the same way on either path.
      const log = (agent: string, id: string) =>
        join(runDir, "transcripts", agent, `${id}-t1.json.events.json.gz`);
      rmSync(log("blank", first!.id));
      writeFileSync(log("golden", second!.id), "not gzip");
      // A bank that keys the first task's answer wrong: its passing trials change.
      const [field, ...rest] = first!.grader.answer;
      const changed = bankFromContent({
        ...content,
        tasks: content.tasks.map((t) =>
          t.id === first!.id
            ? { ...t, grader: { ...t.grader, answer: [{ ...field!, expected: "not-the-answer" }, ...rest] } }
            : t,
        ),
      });
      // The workers alone (this thread only waits): each job's outcome is the one-thread one.
      const store = openStore(runDir, { readonly: true });
      const jobs: RegradeJob[] = [...store.all()].map((r) => ({
        bank_hash: r.bank_hash,
        agent: r.agent,
        task_id: r.task_id,
        epoch: r.epoch,
        path: trialLogPath(join(runDir, r.transcript as string)),
      }));
      store.close();
      const graders = new Map(
        changed.tasks.map((t): [string, BankGrader] => [
          t.id,
          { grader: t.grader, gradedSegments: gradedSegmentsOf(t) },
        ]),
      );
      // As `regradeRun` hands them over: a task's jobs together, each run one claim.
      const byTask = [...jobs].sort((a, b) => a.task_id.localeCompare(b.task_id));
      expect(claimsOf(byTask)).toEqual(TASKS.map((_, i) => i * 3).concat(jobs.length));
      for (const g of [null, graders]) {
        const here = jobs.map((job) => regradeJob(job, g));
        const there = regradeInParallel(jobs, g, 1, { callerTakesPart: false });
        expect(here.filter((o) => "refused" in o)).toHaveLength(2);
        expect(JSON.stringify(there)).toBe(JSON.stringify(here));
        const grouped = regradeInParallel(byTask, g, 1, { callerTakesPart: false });
        expect(JSON.stringify(grouped)).toBe(JSON.stringify(byTask.map((job) => regradeJob(job, g))));
      }
      for (const options of [{}, { bank: changed }]) {
        const one = regradeRun({ runDir, dryRun: true, workers: 0, ...options });
        const two = regradeRun({ runDir, dryRun: true, workers: 1, ...options });
        if (!one.success || !two.success) throw new Error("regrade failed");
        expect(one.data.not_regradable.map((n) => n.code).sort()).toEqual(["missing", "unreadable"]);
        expect(one.data.regraded).toBe(TASKS.length * 3 - 2);
        expect(JSON.stringify(two.data)).toBe(JSON.stringify(one.data));
      }
      // Stored: the gradings the two paths store are the same too.
      const stored = [0, 1].map((workers) => {
        const res = regradeRun({ runDir, workers, created: "2026-12-01T00:00:00.000Z" });
        if (!res.success) throw new Error(res.error.message);
        return res.data;
      });
      expect(stored[0]?.changed).toBe(0);
      expect(stored[1]?.changed).toBe(0);
      expect(JSON.stringify({ ...stored[1], grading: null })).toBe(
        JSON.stringify({ ...stored[0], grading: null }),
      );
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  }, 300_000);

  it("starts its workers in a host run with --input-type=module too (a worker that fails to start grades nothing)", () => {
    const mod = new URL("./regrade-workers.ts", import.meta.url).href;
    const job: RegradeJob = {
      bank_hash: "h",
      agent: "golden",
      task_id: "t",
      epoch: 1,
      path: join(tmpdir(), "apiflow-no-such-dir", "t-t1.json.events.json.gz"),
    };
    // Only the worker grades (this thread waits): its outcome shows it started and served the call.
    const script = `
      const { startRegradeWorkers, regradeInParallel } = await import(${JSON.stringify(mod)});
      await startRegradeWorkers(1);
      const outcomes = regradeInParallel([${JSON.stringify(job)}], null, 1, { callerTakesPart: false });
      process.stdout.write(JSON.stringify(outcomes));
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const outcomes = JSON.parse(child.stdout) as Array<{ refused?: { code: string } }>;
    expect(outcomes.map((o) => o.refused?.code)).toEqual(["missing"]);
  }, 90_000);

  it("claims each run of adjacent jobs of one task as one, and every job once", () => {
    const jobs = ["a", "a", "b", "a", "c", "c"].map((task_id) => ({ task_id }));
    expect(claimsOf(jobs)).toEqual([0, 2, 3, 4, 6]);
    expect(claimsOf([])).toEqual([0]);
    expect(claimsOf([{ task_id: "a" }])).toEqual([0, 1]);
  });

  it("stays on one thread for a small run, and uses the spare cores for a large one", () => {
    expect(defaultRegradeWorkers(PARALLEL_MIN_JOBS - 1)).toBe(0);
    expect(defaultRegradeWorkers(PARALLEL_MIN_JOBS)).toBeGreaterThanOrEqual(0);
  });
});
