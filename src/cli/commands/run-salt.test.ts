import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-salt-"));
const bankDir = tmp();
writeBank(bankDir, skeletonBankContent());

/** An agent module that replays run `dir`'s golden transcript of the same task, epoch 1. */
function replayAgent(dir: string): string {
  const path = join(tmp(), "replay-agent.mjs");
  writeFileSync(
    path,
    `import { readFileSync } from "node:fs";
export default {
  name: "replayer",
  forTask(task) {
    return {
      name: "replayer",
      async attempt(session) {
        const t = JSON.parse(readFileSync(${JSON.stringify(dir)} + "/transcripts/golden/" + task.id + "-t1.json", "utf8"));
        let last = "";
        for (const m of t.messages) {
          if (m.role !== "assistant") continue;
          if (m.tool_calls?.length) await session.step({ toolCalls: m.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments })) });
          else last = m.content.map((p) => p.text ?? "").join("");
          if (session.ended) return;
        }
        session.finish(last);
      },
    };
  },
};
`,
  );
  return path;
}

async function run(args: string[]) {
  const io = bufferIo();
  const code = await runCli(["run", "--bank", bankDir, "--epochs", "1", "--json", ...args], io);
  return {
    code,
    io,
    json:
      code === 2
        ? null
        : (JSON.parse(io.out()) as { trials: Array<{ outcome: string }>; summary: { salt: string } }),
  };
}

describe("a run salt", () => {
  it("a transcript from run A replayed in run B fails; --salt reproduces run A, where it passes", async () => {
    const dirA = tmp();
    const a = await run(["--agent", "golden", "--out", dirA]);
    expect(a.code).toBe(0);
    const saltA = a.json?.summary.salt ?? "";
    expect(saltA).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.parse(readFileSync(join(dirA, "run-manifest.json"), "utf8")).salt).toBe(saltA);
    const agent = replayAgent(dirA);

    const b = await run(["--agent", agent, "--out", tmp()]);
    expect(b.json?.summary.salt).not.toBe(saltA);
    expect(b.json?.trials.length).toBeGreaterThan(0);
    expect(b.json?.trials.every((t) => t.outcome === "fail")).toBe(true);

    const c = await run(["--agent", agent, "--out", tmp(), "--salt", saltA]);
    expect(c.json?.summary.salt).toBe(saltA);
    expect(c.json?.trials.every((t) => t.outcome === "pass")).toBe(true);
  });

  it("a resumed run keeps its salt; another --salt for the same directory is refused", async () => {
    const dir = tmp();
    const first = await run(["--agent", "golden", "--out", dir, "--tasks", "*-sub01"]);
    const again = await run(["--agent", "golden", "--out", dir]);
    expect(again.json?.summary.salt).toBe(first.json?.summary.salt);
    const other = await run(["--agent", "golden", "--out", dir, "--salt", "something-else"]);
    expect(other.code).toBe(2);
    expect(other.io.err()).toMatch(/salt: [0-9a-f]{16} ≠ something-else/);
  });
});
