import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { trial } from "../../../test/support/test-records.js";
import { openStore } from "../../run/store.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

function makeRun(dir: string, bank: string, passEvery: number): void {
  const store = openStore(dir);
  const recs = [];
  for (const w of ["w01", "w02", "w03"]) {
    for (let s = 1; s <= 4; s++) {
      for (let e = 1; e <= 3; e++) {
        recs.push(
          trial("m", `v56-${w}-sub0${s}`, e, (s + e) % passEvery === 0 ? "pass" : "fail", {
            bank_hash: bank,
          }),
        );
      }
    }
  }
  store.recordMany(recs);
  store.close();
}

describe("apiflow compare", () => {
  it("compares two runs of one bank task by task", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-compare-"));
    makeRun(join(dir, "a"), "bank", 3);
    makeRun(join(dir, "b"), "bank", 2);
    const io = bufferIo({}, dir);
    expect(await runCli(["compare", "a", "b", "--json", "c.json"], io)).toBe(0);
    expect(io.out()).toContain("flip rate");
    const c = JSON.parse(readFileSync(join(dir, "c.json"), "utf8"));
    expect(c.overall.tasks).toBe(12);
    expect(c.overall.diff).toBeCloseTo(c.overall.pass_rate_b - c.overall.pass_rate_a);
    expect(c.overall.ci90[0]).toBeLessThanOrEqual(c.overall.diff);
    expect(c.overall.mdd).toBeGreaterThanOrEqual(0);
  });

  it("refuses runs of different banks in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-compare-"));
    makeRun(join(dir, "a"), "bank-1", 3);
    makeRun(join(dir, "b"), "bank-2", 3);
    const io = bufferIo({}, dir);
    expect(await runCli(["compare", "a", "b"], io)).toBe(2);
    expect(io.err()).toMatch(/^apiflow: compare: the runs are of different banks/);
    expect(io.err().trim().split("\n")).toHaveLength(1);
  });
});
