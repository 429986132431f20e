import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { skeletonContent } from "../../../test/support/test-banks.js";
import { writeBank } from "../../bank/load-bank.js";
import { harborTasks } from "../../generate/harbor-tasks.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const root = mkdtempSync(join(tmpdir(), "apiflow-verify-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("apiflow verify", () => {
  it("prints a table per gate, writes the JSON of issue 8 and exits 0 on a sound bank", async () => {
    const dir = join(root, "sound");
    writeBank(dir, skeletonContent());
    const io = bufferIo({}, root);
    expect(await runCli(["verify", dir, "--json", "report.json", "--attempts", "4"], io)).toBe(0);
    expect(io.out()).toMatch(/triad\s+4\s+4\s+0\s+-/);
    expect(io.out()).toMatch(/OK: every gate passed/);
    const json = JSON.parse(readFileSync(join(root, "report.json"), "utf8"));
    expect(json.ok).toBe(true);
    expect(Object.keys(json.gates)).toEqual([
      "triad",
      "solvability",
      "discoverability",
      "leak",
      "requirement_mutants",
      "legitimate_variants",
      "chain_replay",
      "exploit_audit",
      "premises",
      "axis_necessity",
      "hint_grading",
    ]);
    // Axis necessity is hard: every skeleton task's axis-blind golden fails.
    expect(json.gates.axis_necessity).toMatchObject({ checked: 4, passed: 4, failed: 0, hard: true });
    expect(io.out()).toMatch(/axis_necessity\s+4\s+4\s+0\s+-/);
    expect(json.gates.chain_replay).toMatchObject({ checked: 1, passed: 1, failed: 0, first_failure: null });
    // Requirement mutants are hard and the skeleton's graders hold every golden broken alone.
    expect(json.gates.requirement_mutants).toMatchObject({
      checked: 4,
      passed: 4,
      failed: 0,
      hard: true,
      first_failure: null,
    });
    expect(json.gates.requirement_mutants.mutants.generated).toBeGreaterThan(0);
    expect(json.gates.legitimate_variants).toMatchObject({ checked: 4, failed: 0, hard: true });
    expect(io.out()).toMatch(/requirement_mutants\s+4\s+4\s+0\s+-/);
    expect(io.out()).toMatch(/mutation score: \d+\/\d+ \(\d+\.\d%\)/);
    expect(Object.values(json.gates.exploit_audit.exploits).every((n) => n === 0)).toBe(true);
  });

  it("exits 1 and names the first failure when a gate fails", async () => {
    const dir = join(root, "leaky");
    const tasks = harborTasks().map((t) =>
      t.id.endsWith("sub02") ? { ...t, ticket: `${t.ticket} It came from Gdansk.` } : t,
    );
    writeBank(dir, skeletonContent(tasks));
    const io = bufferIo({}, root);
    expect(await runCli(["verify", dir, "--attempts", "3"], io)).toBe(1);
    expect(io.out()).toMatch(
      /leak\s+4\s+3\s+1\s+harbor-telemetry-sub02: the expected value of answer field last_port_call/,
    );
    expect(io.out()).toMatch(/FAILED/);
  });

  it("refuses a bad oracle model and a missing bank in one line", async () => {
    const dir = join(root, "sound2");
    writeBank(dir, skeletonContent());
    const io = bufferIo({}, root);
    expect(await runCli(["verify", dir, "--oracle-model", "nonsense"], io)).toBe(2);
    expect(io.err().trim().split("\n")).toHaveLength(1);
    const missing = bufferIo({}, root);
    expect(await runCli(["verify", join(root, "nowhere")], missing)).toBe(2);
    expect(missing.err()).toMatch(/no bank at/);
  });
});
