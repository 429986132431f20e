import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import type { Task } from "../../bank/task-schema.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { openStore } from "../../run/store.js";
import type { AgentToolCall, StepResult, TrialSession } from "../../trial/agent.js";
import { playGolden } from "../../trial/play-golden.js";
import { SYSTEM_PROMPT } from "../../trial/system-prompt.js";
import { type Transcript, TranscriptSchema } from "../../trial/transcript-schema.js";
import type { ToolResult } from "../../workspace/workspace.js";
import { bufferIo, type CliIo } from "../io.js";
import { runCli } from "../program.js";

const dir = mkdtempSync(join(tmpdir(), "apiflow-mcp-salt-"));
const bankDir = join(dir, "bank");
const content = skeletonBankContent();
writeBank(bankDir, content);
const task = content.tasks[0] as Task;

/**
 * One `apiflow mcp --http` trial, in-process, played by `play` through the MCP SDK's client; resolves
 * with the exit code, the client's view of the server (instructions, ticket prompt) and the stored trial.
 */
async function mcpTrial(args: string[], play: (client: Client) => Promise<void>) {
  let ready: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const io = bufferIo({}, dir);
  const watched: CliIo = {
    ...io,
    stdout: (text) => {
      io.stdout(text);
      if (text.startsWith("http://")) ready(text.trim());
    },
  };
  const out = join(dir, `run-${Math.random().toString(36).slice(2)}`);
  const outArgs = args.includes("--out") ? [] : ["--out", out];
  const code = runCli(["mcp", "--http", "--bank", bankDir, "--task", task.id, ...outArgs, ...args], watched);
  const client = new Client({ name: "salt-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(await url));
  await client.connect(transport);
  const instructions = client.getInstructions() ?? "";
  const prompt = await client.getPrompt({ name: "ticket" });
  await play(client);
  await transport.terminateSession().catch(() => {});
  await client.close();
  const exit = await code;
  const runDir = args.includes("--out") ? (args[args.indexOf("--out") + 1] as string) : out;
  const store = openStore(runDir, { readonly: true });
  const rows = [...store.all()];
  store.close();
  const row = rows.find((r) => r.task_id === task.id);
  if (!row?.transcript) throw new Error(`no stored trial: ${io.err()}`);
  const transcript = TranscriptSchema.parse(JSON.parse(readFileSync(join(runDir, row.transcript), "utf8")));
  const manifest = JSON.parse(readFileSync(join(runDir, "run-manifest.json"), "utf8")) as { salt?: string };
  return { exit, io, row, transcript, manifest, runDir, instructions, prompt };
}

/** Plays the task's golden solution through the client's tool calls, then delivers its card. */
async function playGoldenOver(client: Client): Promise<void> {
  let delivered: string | null = null;
  const session: TrialSession = {
    systemPrompt: "",
    ticket: task.ticket,
    tools: [],
    signal: new AbortController().signal,
    ended: false,
    async step(turn: { toolCalls: AgentToolCall[] }): Promise<StepResult> {
      const results: ToolResult[] = [];
      for (const call of turn.toolCalls) {
        const r = await client.callTool({
          name: call.name,
          arguments: call.arguments as Record<string, unknown>,
        });
        const text = (r.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("");
        results.push({ ok: r.isError !== true, content: text });
      }
      return { results, stopped: null };
    },
    finish(text: string) {
      delivered = text;
    },
    addUsage() {},
    abort() {},
  };
  await playGolden(task.golden, session, { versioning: task.versioning });
  if (delivered !== null) await client.callTool({ name: "deliver", arguments: { answer: delivered } });
}

/** Replays another trial's transcript: the same tool calls with the same arguments, the same card. */
function replay(transcript: Transcript) {
  return async (client: Client) => {
    let last = "";
    for (const m of transcript.messages) {
      if (m.role !== "assistant") continue;
      for (const c of m.tool_calls ?? [])
        await client.callTool({ name: c.name, arguments: c.arguments as Record<string, unknown> });
      if (!m.tool_calls?.length && Array.isArray(m.content))
        last = m.content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
    }
    await client.callTool({ name: "deliver", arguments: { answer: last } });
  };
}

describe("apiflow mcp: what the transcript records, and the run salt", () => {
  it("the transcript's system message is what the MCP client was shown, not our model system prompt", async () => {
    const a = await mcpTrial([], playGoldenOver);
    expect(a.exit, a.io.err()).toBe(0);
    const system = a.transcript.messages[0];
    expect(system?.role).toBe("system");
    expect(system?.content).not.toBe(SYSTEM_PROMPT);
    // Exactly the server's instructions the client got at initialize, which is also the ticket prompt.
    expect(system?.content).toBe(a.instructions);
    expect(a.prompt.messages[0]?.content).toEqual({ type: "text", text: a.instructions });
    expect(a.instructions).toContain(task.ticket);
    expect(a.transcript.messages[1]).toEqual({ role: "user", content: task.ticket });
  }, 60_000);

  it("each MCP run draws a salt, so run A's transcript replayed in run B fails; --salt reproduces A, where it passes", async () => {
    const a = await mcpTrial([], playGoldenOver);
    expect(a.exit, a.io.err()).toBe(0);
    expect(a.row.outcome).toBe("pass");
    const saltA = a.manifest.salt ?? "";
    expect(saltA).toMatch(/^[0-9a-f]{16}$/);
    expect(a.io.out()).toContain(`salt ${saltA})`);

    const b = await mcpTrial([], replay(a.transcript));
    expect(b.manifest.salt).toMatch(/^[0-9a-f]{16}$/);
    expect(b.manifest.salt).not.toBe(saltA);
    expect(b.row.outcome).toBe("fail");
    expect(b.exit).toBe(1);

    const c = await mcpTrial(["--salt", saltA], replay(a.transcript));
    expect(c.manifest.salt).toBe(saltA);
    expect(c.row.outcome, c.row.failure_reason).toBe("pass");
  }, 120_000);

  it("a run directory keeps its salt for later MCP trials; another --salt for it is refused", async () => {
    const out = join(dir, "kept");
    const first = await mcpTrial(["--out", out, "--epoch", "1"], playGoldenOver);
    const second = await mcpTrial(["--out", out, "--epoch", "2"], playGoldenOver);
    expect(second.manifest.salt).toBe(first.manifest.salt);
    const other = bufferIo({}, dir);
    const refused = ["mcp", "--http", "--bank", bankDir, "--task", task.id, "--out", out, "--salt", "other"];
    expect(await runCli(refused, other)).toBe(2);
    expect(other.err()).toMatch(/salt: [0-9a-f]{16} ≠ other/);
  }, 120_000);
});
