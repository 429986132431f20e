import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-comparable-"));
const bankDir = tmp();
writeBank(bankDir, skeletonBankContent());

async function runInto(out: string, ...extra: string[]) {
  const io = bufferIo();
  const code = await runCli(["run", "--bank", bankDir, "--epochs", "1", "--out", out, ...extra], io);
  expect(code, io.err()).toBe(0);
}

describe("report and compare read only runs produced alike", () => {
  it("refuse runs with other limits in one line naming the difference; --force shows it side by side", async () => {
    const [a, b, c] = [tmp(), tmp(), tmp()];
    await runInto(a, "--agent", "golden");
    await runInto(b, "--agent", "blank", "--max-tool-calls", "50");
    await runInto(c, "--agent", "blank");
    for (const cmd of [
      ["report", a, b],
      ["compare", a, b],
    ]) {
      const io = bufferIo();
      expect(await runCli(cmd, io)).toBe(2);
      expect(io.err().trim().split("\n")).toHaveLength(1);
      expect(io.err()).toMatch(/the runs differ in limits \(.*"maxToolCalls":300.*"maxToolCalls":50/);
      const forced = bufferIo();
      expect(await runCli([...cmd, "--force"], forced)).toBe(0);
      expect(forced.err()).toMatch(/--force: the runs differ/);
      expect(forced.err()).toMatch(/limits\s+\{"maxToolCalls":300.*\{"maxToolCalls":50/);
    }
    // Runs alike (only their salts differ) are read together without a word.
    const same = bufferIo();
    expect(await runCli(["report", a, c], same)).toBe(0);
    expect(same.err()).toBe("");
  });

  it("report refuses runs over other task subsets; compare pairs tasks and accepts them", async () => {
    const [a, b] = [tmp(), tmp()];
    await runInto(a, "--agent", "golden");
    await runInto(b, "--agent", "blank", "--tasks", "*-sub01");
    const io = bufferIo();
    expect(await runCli(["report", a, b], io)).toBe(2);
    expect(io.err()).toMatch(/task subset \(.*: 4 tasks; .*: 1 tasks\)/);
    const cmp = bufferIo();
    expect(await runCli(["compare", a, b], cmp), cmp.err()).toBe(0);
  });
});
