import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { writtenSkeletonBank } from "../../../test/support/skeleton-bank.js";
import { openStore } from "../../run/store.js";
import type { TrialRecord } from "../../run/trial-record.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-resume-"));
const { dir: bankDir } = writtenSkeletonBank("apiflow-resume-");
const EPOCHS = 63; // 2 agents × 4 tasks × 63 epochs = 504 trials
/** The golden agent, logging each attempt to APIFLOW_TEST_ATTEMPT_LOG (children inherit it). */
const COUNTING = "./test/support/counting-agent.ts";
const attemptLog = join(tmp(), "attempts.log");
process.env.APIFLOW_TEST_ATTEMPT_LOG = attemptLog;
const attempts = () => (existsSync(attemptLog) ? readFileSync(attemptLog, "utf8").split("\n").length - 1 : 0);
const ARGS = [
  "run",
  "--bank",
  bankDir,
  "--agent",
  COUNTING,
  "baseline",
  "--epochs",
  String(EPOCHS),
  "--json",
];

function rowCount(dir: string): number {
  const path = join(dir, "results.sqlite");
  if (!existsSync(path)) return 0;
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      return db.prepare("SELECT count(*) FROM trials").pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

/**
 * What a stored trial is on disk: its row (with its measured duration, which a rerun of the trial
 * would change) and its transcript file's inode and mtime (rewritten by rename on every run).
 */
function stored(dir: string): Map<string, { row: TrialRecord; ino: number; mtimeMs: number }> {
  const store = openStore(dir, { readonly: true });
  const out = new Map<string, { row: TrialRecord; ino: number; mtimeMs: number }>();
  for (const row of store.all()) {
    const { ino, mtimeMs } = statSync(join(dir, row.transcript!));
    out.set(`${row.agent}/${row.task_id}/${row.epoch}`, { row, ino, mtimeMs });
  }
  store.close();
  return out;
}

/** Every trial stored before a rerun is still there, untouched: same row, same transcript file. */
function expectUntouched(
  before: Map<string, { row: TrialRecord; ino: number; mtimeMs: number }>,
  after: Map<string, { row: TrialRecord; ino: number; mtimeMs: number }>,
) {
  expect(before.size).toBeGreaterThan(0);
  for (const [key, was] of before) expect(after.get(key), key).toEqual(was);
}

const comparable = (recs: Iterable<TrialRecord>) =>
  [...recs]
    .map(({ duration_s: _d, ...rest }) => rest)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("apiflow run: kill -9 and resume", () => {
  it("a run of 504 trials killed midway and rerun loses nothing and duplicates nothing", async () => {
    const killed = tmp();
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...ARGS, "--out", killed], {
      cwd: process.cwd(),
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    let atKill = 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 10));
      atKill = rowCount(killed);
      if (atKill >= 60) break;
    }
    child.kill("SIGKILL");
    expect(await exited).toBeNull();
    const afterKill = rowCount(killed);
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(504);
    const before = stored(killed);
    const countedBefore = [...before.values()].filter((s) => s.row.agent === "counting-golden").length;
    const attemptsBefore = attempts();

    // Rerun the same command in-process: it resumes.
    const io = bufferIo();
    expect(await runCli([...ARGS, "--out", killed], io), io.err()).toBe(0);
    const resumed = JSON.parse(io.out()) as { summary: { total: number; resumed: number } };
    expect(resumed.summary.total).toBe(504);
    expect(resumed.summary.resumed).toBe(afterKill);
    // The rerun attempted exactly the counting agent's trials that were not stored, and left every
    // stored trial as it was.
    expect(attempts() - attemptsBefore).toBe(252 - countedBefore);
    expectUntouched(before, stored(killed));

    const whole = tmp();
    const io2 = bufferIo();
    expect(await runCli([...ARGS, "--out", whole], io2)).toBe(0);

    const a = openStore(killed, { readonly: true });
    const b = openStore(whole, { readonly: true });
    expect(a.count()).toBe(504);
    expect(comparable(a.all())).toEqual(comparable(b.all()));
    a.close();
    b.close();
    for (const agent of ["counting-golden", "baseline"]) {
      expect(readdirSync(join(killed, "transcripts", agent)).filter((f) => f.endsWith(".json"))).toHaveLength(
        252,
      );
    }
  }, 120_000);

  it("a rerun redoes nothing, and a run with other pinned settings is refused unless forced", async () => {
    const out = tmp();
    const args = [
      "run",
      "--bank",
      bankDir,
      "--agent",
      "baseline",
      COUNTING,
      "--epochs",
      "2",
      "--out",
      out,
      "--json",
    ];
    const first = bufferIo();
    const attemptsBefore = attempts();
    expect(await runCli(args, first)).toBe(0);
    expect(attempts() - attemptsBefore).toBe(8);
    const before = stored(out);
    expect(before.size).toBe(16);
    const again = bufferIo();
    expect(await runCli(args, again)).toBe(0);
    expect(JSON.parse(again.out()).summary).toMatchObject({ total: 16, resumed: 16 });
    expect(JSON.parse(again.out()).trials).toEqual(JSON.parse(first.out()).trials);
    // Nothing ran again: no attempt, and every row and transcript is the one the first run wrote.
    expect(attempts() - attemptsBefore).toBe(8);
    expectUntouched(before, stored(out));

    const other = bufferIo();
    expect(await runCli([...args, "--max-tool-calls", "5"], other)).toBe(2);
    expect(other.err()).toMatch(
      /^apiflow: .* was run with other settings \(limits: .*use another --out or --force\n$/,
    );
    const forced = bufferIo();
    expect(await runCli([...args, "--max-tool-calls", "5", "--force"], forced)).toBe(0);
  });
});
