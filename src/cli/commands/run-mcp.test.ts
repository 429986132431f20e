import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { mcpAgentName } from "../../mcp/mcp-external-agent.js";
import { mcpInstructions } from "../../mcp/trial-mcp-server.js";
import { openStore, readRunManifest } from "../../run/store.js";
import { SYSTEM_PROMPT } from "../../trial/system-prompt.js";
import { toolJsonSchemas } from "../../workspace/tool-definitions.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURE = join(ROOT, "test/support/golden-mcp-client.ts");
const dir = mkdtempSync(join(tmpdir(), "apiflow-run-mcp-"));
const bankDir = join(dir, "bank");
const content = skeletonBankContent();
writeBank(bankDir, content);
const tasksFile = join(dir, "tasks.json");
writeFileSync(tasksFile, JSON.stringify(content.tasks));
// One template for every trial: the client finds its task by the ticket it is given. Each launch
// first logs a line, so a test sees how many trials ran.
const launchLog = join(dir, "launches.log");
const launches = () => (existsSync(launchLog) ? readFileSync(launchLog, "utf8").split("\n").length - 1 : 0);
const COMMAND = `echo launched >> ${launchLog} && node --import tsx ${FIXTURE} {url} ${tasksFile}`;

/** Each stored trial's row and its transcript file's inode and mtime (a rerun rewrites both). */
function storedTrials(out: string) {
  const store = openStore(out, { readonly: true });
  const rows = [...store.all()].map((row) => {
    const { ino, mtimeMs } = statSync(join(out, row.transcript!));
    return { row, ino, mtimeMs };
  });
  store.close();
  return rows;
}

describe('apiflow run --agent mcp:"<command>"', () => {
  it("runs the external agent per trial over a grid, passes the golden-playing client's trials and stores them", async () => {
    const out = join(dir, "run");
    const io = bufferIo({}, ROOT);
    const args = ["run", "--bank", bankDir, "--agent", `mcp:${COMMAND}`, "--epochs", "2"];
    const code = await runCli([...args, "--concurrency", "4", "--out", out, "--json"], io);
    expect(code, io.err()).toBe(0);
    const name = mcpAgentName(COMMAND);
    const { trials, summary } = JSON.parse(io.out()) as {
      trials: Array<{ agent: string; passed: boolean; failure_reason: string }>;
      summary: { total: number; passed: number };
    };
    expect(trials.filter((t) => !t.passed)).toEqual([]);
    expect(summary).toMatchObject({ total: content.tasks.length * 2, passed: content.tasks.length * 2 });
    const store = openStore(out, { readonly: true });
    const rows = [...store.all()];
    store.close();
    expect(rows).toHaveLength(content.tasks.length * 2);
    for (const row of rows)
      expect(row).toMatchObject({ agent: name, outcome: "pass", stop_reason: "answered" });
    const manifest = readRunManifest(out) as unknown as { agent_settings: Record<string, unknown> };
    expect(manifest.agent_settings).toEqual({ [name]: { kind: "mcp", command: COMMAND } });

    expect(launches()).toBe(content.tasks.length * 2);

    // Rerunning resumes: nothing is launched again, every stored row and transcript stays as it was.
    const before = storedTrials(out);
    const again = bufferIo({}, ROOT);
    expect(await runCli([...args, "--out", out], again)).toBe(0);
    expect(again.out()).toContain(`(${content.tasks.length * 2} trials resumed from ${out}, not redone)`);
    expect(launches()).toBe(content.tasks.length * 2);
    expect(storedTrials(out)).toEqual(before);
  }, 180_000);

  it("names the agent --agent-name says, in the store and the transcripts", async () => {
    const out = join(dir, "named");
    const io = bufferIo({}, ROOT);
    const only = content.tasks[0]?.id ?? "";
    const args = ["run", "--bank", bankDir, "--agent", "mcp:exit 0", "--agent-name", "quitter"];
    // (Its exit status is issue 17's run-exit-code item, not asserted here.)
    await runCli([...args, "--tasks", only, "--epochs", "1", "--out", out], io);
    const store = openStore(out, { readonly: true });
    const rows = [...store.all()];
    store.close();
    expect(rows, io.err()).toEqual([
      expect.objectContaining({ agent: "quitter", task_id: only, stop_reason: "disconnected" }),
    ]);
    expect(rows[0]?.transcript).toBe(`transcripts/quitter/${only}-t1.json`);
    // The transcript opens with what an MCP client is shown (the server's instructions with the
    // ticket), not the system prompt of our model loop, which the external agent never saw.
    const transcript = JSON.parse(readFileSync(join(out, rows[0]?.transcript ?? ""), "utf8")) as {
      messages: Array<{ role: string; content: unknown }>;
    };
    const task = content.tasks.find((t) => t.id === only);
    expect(transcript.messages[0]).toEqual({
      role: "system",
      content: mcpInstructions({ ticket: task?.ticket ?? "", tools: toolJsonSchemas() }),
    });
    expect(transcript.messages[0]?.content).not.toBe(SYSTEM_PROMPT);
    const two = bufferIo({}, ROOT);
    const both = ["--agent", "mcp:exit 0", "mcp:exit 1", "--agent-name", "x", "--out", join(dir, "y")];
    expect(await runCli(["run", "--bank", bankDir, ...both], two)).toBe(2);
    expect(two.err()).toBe(
      'apiflow: --agent-name names the one mcp:"<command>" agent of a run; this run has 2\n',
    );
  }, 60_000);

  it("refuses an empty command and the queue, each in one line", async () => {
    const empty = bufferIo({}, ROOT);
    expect(await runCli(["run", "--bank", bankDir, "--agent", "mcp:", "--out", join(dir, "x")], empty)).toBe(
      2,
    );
    expect(empty.err()).toMatch(/^apiflow: --agent mcp: needs a command, e\.g\. .*\n$/);
    const queued = bufferIo({}, ROOT);
    const code = await runCli(
      [
        "run",
        "--bank",
        bankDir,
        "--agent",
        "mcp:true",
        "--queue",
        "redis://127.0.0.1:1",
        "--out",
        join(dir, "q"),
      ],
      queued,
    );
    expect(code).toBe(2);
    expect(queued.err()).toBe(
      `apiflow: --queue cannot run ${mcpAgentName("true")} (an external MCP agent): workers do not launch commands from the queue; run it without --queue\n`,
    );
  });
});
