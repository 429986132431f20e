import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { harborTasks } from "../../generate/harbor-tasks.js";
import { HARBOR_WORLD } from "../../generate/harbor-world.js";
import { openStore } from "../../run/store.js";
import type { TrialRecord } from "../../run/trial-record.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-resume-"));
const bankDir = tmp();
writeBank(bankDir, {
  name: "apiflow-skeleton",
  generator_version: "0.1.0",
  seed: "apiflow-1",
  worlds: [HARBOR_WORLD],
  tasks: harborTasks(),
});
const EPOCHS = 63; // 2 agents × 4 tasks × 63 epochs = 504 trials
const ARGS = [
  "run",
  "--bank",
  bankDir,
  "--agent",
  "golden",
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

    // Rerun the same command in-process: it resumes.
    const io = bufferIo();
    expect(await runCli([...ARGS, "--out", killed], io), io.err()).toBe(0);
    const resumed = JSON.parse(io.out()) as { summary: { total: number; resumed: number } };
    expect(resumed.summary.total).toBe(504);
    expect(resumed.summary.resumed).toBe(afterKill);

    const whole = tmp();
    const io2 = bufferIo();
    expect(await runCli([...ARGS, "--out", whole], io2)).toBe(0);

    const a = openStore(killed, { readonly: true });
    const b = openStore(whole, { readonly: true });
    expect(a.count()).toBe(504);
    expect(comparable(a.all())).toEqual(comparable(b.all()));
    a.close();
    b.close();
    for (const agent of ["golden", "baseline"]) {
      expect(readdirSync(join(killed, "transcripts", agent)).filter((f) => f.endsWith(".json"))).toHaveLength(
        252,
      );
    }
  }, 120_000);

  it("a rerun redoes nothing, and a run with other pinned settings is refused unless forced", async () => {
    const out = tmp();
    const args = ["run", "--bank", bankDir, "--agent", "baseline", "--epochs", "2", "--out", out, "--json"];
    const first = bufferIo();
    expect(await runCli(args, first)).toBe(0);
    const again = bufferIo();
    expect(await runCli(args, again)).toBe(0);
    expect(JSON.parse(again.out()).summary).toMatchObject({ total: 8, resumed: 8 });
    expect(JSON.parse(again.out()).trials).toEqual(JSON.parse(first.out()).trials);

    const other = bufferIo();
    expect(await runCli([...args, "--max-tool-calls", "5"], other)).toBe(2);
    expect(other.err()).toMatch(
      /^apiflow: .* was run with other settings \(limits: .*use another --out or --force\n$/,
    );
    const forced = bufferIo();
    expect(await runCli([...args, "--max-tool-calls", "5", "--force"], forced)).toBe(0);
  });
});
