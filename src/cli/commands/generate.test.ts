import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBank } from "../../bank/load-bank.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const dir = mkdtempSync(join(tmpdir(), "apiflow-generate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("apiflow generate", () => {
  it("writes a bank that loadBank verifies, with its datasheet, and the same seed reproduces the hash", {
    timeout: 120_000,
  }, async () => {
    const io = bufferIo({}, dir);
    expect(
      await runCli(
        ["generate", "--seed", "cli-test", "--worlds", "3", "--positions", "6", "--out", "b1"],
        io,
      ),
    ).toBe(0);
    const loaded = loadBank(join(dir, "b1"));
    if (!loaded.success) throw new Error(loaded.error.message);
    const { counts } = loaded.data.manifest;
    expect(loaded.data.manifest.seed).toBe("cli-test");
    expect(io.out()).toContain(
      `${counts.worlds} worlds, ${counts.solo} solo + ${counts.chain} chains = ${counts.tasks} tasks`,
    );
    // 3 worlds × 6 positions: 18 solo tasks and chains 1to2..1to6 per world, all certified.
    expect(counts).toEqual({ worlds: 3, solo: 18, chain: 15, tasks: 33 });
    expect(loaded.data.tasks).toHaveLength(33);
    const readme = readFileSync(join(dir, "b1", "README.md"), "utf8");
    expect(readme).toContain(loaded.data.manifest.content_hash);
    expect(readme).toContain("### Solo tasks by axis");
    expect(readme).toContain("### Solo tasks by axis and difficulty");
    expect(readme).toContain("- Nothing was re-drawn, dropped or truncated.");
    expect(readme).toMatch(
      /Mutation score \(requirement mutants killed \/ generated\): \d+\/\d+ \(\d+\.\d%\)\./,
    );

    await runCli(
      ["generate", "--seed", "cli-test", "--worlds", "3", "--positions", "6", "--out", "b2"],
      bufferIo({}, dir),
    );
    const again = loadBank(join(dir, "b2"));
    if (!again.success) throw new Error(again.error.message);
    expect(again.data.manifest.content_hash).toBe(loaded.data.manifest.content_hash);
  });

  it("answers a bad flag with one line and exit code 2", async () => {
    const io = bufferIo({}, dir);
    expect(await runCli(["generate", "--worlds", "99", "--out", "b3"], io)).toBe(2);
    expect(io.err().trim().split("\n")).toHaveLength(1);
    expect(io.err()).toContain("--worlds must be an integer from 1 to 13");
    const io2 = bufferIo({}, dir);
    expect(await runCli(["generate", "--positions", "ten"], io2)).toBe(2);
    expect(io2.err()).toContain("--positions must be a positive integer");
  });
});
