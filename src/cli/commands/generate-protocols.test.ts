import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Bank, canonicalJson } from "../../bank/index.js";
import { loadBank } from "../../bank/load-bank.js";
import { PROTOCOL_VARIANT_GATE } from "../../pipeline/protocol-variant-replay.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const dir = mkdtempSync(join(tmpdir(), "apiflow-generate-protocols-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SHAPE = ["--seed", "proto-test", "--worlds", "2", "--positions", "4"];

async function generate(...extra: string[]) {
  const io = bufferIo({}, dir);
  const code = await runCli(["generate", ...SHAPE, ...extra], io);
  return { code, io };
}

function load(name: string): Bank {
  const loaded = loadBank(join(dir, name));
  if (!loaded.success) throw new Error(loaded.error.message);
  return loaded.data;
}

describe("apiflow generate --protocols", () => {
  it("adds GraphQL and MCP variant worlds to the bank, or writes them as a bank of their own; the REST bank is unchanged", {
    timeout: 300_000,
  }, async () => {
    expect((await generate("--out", "rest")).code).toBe(0);
    const rest = load("rest");
    expect(rest.tasks.length, "the generator certified no task of this shape").toBeGreaterThan(0);

    const added = await generate("--out", "added", "--protocols", "graphql,mcp");
    expect(added.code, added.io.err()).toBe(0);
    const bank = load("added");
    const ids = rest.worlds.map((w) => w.id);
    expect(bank.worlds.map((w) => w.id).sort()).toEqual(
      [...ids, ...ids.map((id) => `${id}-graphql`), ...ids.map((id) => `${id}-mcp`)].sort(),
    );
    expect(bank.tasks).toHaveLength(rest.tasks.length * 3);
    // The REST part is the bank without the flag, task for task.
    expect(canonicalJson(bank.tasks.filter((t) => ids.includes(t.world)))).toBe(canonicalJson(rest.tasks));
    expect(bank.manifest.gates.at(-1)).toEqual({
      ...PROTOCOL_VARIANT_GATE,
      checked: rest.tasks.length * 2,
      passed: rest.tasks.length * 2,
    });
    const native = bank.tasks
      .filter((t) => !ids.includes(t.world))
      .flatMap((t) => t.golden)
      .filter((s) => s.op === "execute" || s.op === "execute_native");
    expect(native.every((s) => s.op === "execute_native")).toBe(true);

    const separate = await generate("--out", "rest2", "--protocols", "mcp", "--protocols-out", "mcp-bank");
    expect(separate.code, separate.io.err()).toBe(0);
    // Without added worlds the REST bank is byte for byte the one written without the flag.
    expect(load("rest2").manifest.content_hash).toBe(rest.manifest.content_hash);
    const mcp = load("mcp-bank");
    expect(mcp.manifest.name).toBe(`${rest.manifest.name}-protocols`);
    expect(mcp.worlds.every((w) => w.protocol === "mcp")).toBe(true);
    expect(mcp.tasks).toHaveLength(rest.tasks.length);
    expect(separate.io.out()).toContain(`wrote mcp-bank: ${ids.length} worlds, ${rest.tasks.length} tasks`);

    // The separate bank runs like any bank: the golden passes every task.
    const run = bufferIo({}, dir);
    const args = [
      "run",
      "--bank",
      "mcp-bank",
      "--agent",
      "golden",
      "--epochs",
      "1",
      "--out",
      "runs",
      "--json",
    ];
    expect(await runCli(args, run)).toBe(0);
    const { summary } = JSON.parse(run.out()) as { summary: { total: number; passed: number } };
    expect(summary).toMatchObject({ total: rest.tasks.length, passed: rest.tasks.length });
  });

  it("refuses a protocol it does not know, and --protocols-out alone, in one line", async () => {
    const bad = await generate("--out", "x", "--protocols", "soap");
    expect(bad.code).toBe(2);
    expect(bad.io.err()).toBe(
      'apiflow: generate: --protocols takes graphql, mcp or graphql,mcp, got "soap"\n',
    );
    const alone = await generate("--out", "x", "--protocols-out", "y");
    expect(alone.code).toBe(2);
    expect(alone.io.err()).toBe("apiflow: generate: --protocols-out needs --protocols\n");
  });
});
