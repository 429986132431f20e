/**
 * A real MCP client (the SDK's), run as a child process by the tests: it connects to a trial's
 * MCP endpoint and plays a task's golden solution through the served tools, then delivers the
 * card. `--stop-after N` makes it leave after N tool calls without delivering (an early disconnect).
 *
 * Usage: tsx test/support/golden-mcp-client.ts <url> <task.json> [--stop-after N]
 * With `stdio` as the url it launches the server itself, over stdio, from the JSON array of
 * command and arguments in APIFLOW_TEST_SERVER_CMD. When the file holds an array of tasks (a grid:
 * one command template for every trial), it plays the task whose ticket is APIFLOW_TICKET.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TaskSchema } from "../../src/bank/task-schema.js";
import type { AgentToolCall, StepResult, TrialSession } from "../../src/trial/agent.js";
import { playGolden } from "../../src/trial/play-golden.js";
import type { ToolResult } from "../../src/workspace/workspace.js";

const [url, taskFile, flag, n] = process.argv.slice(2);
if (!url || !taskFile) throw new Error("usage: <url> <task.json> [--stop-after N]");
const stopAfter = flag === "--stop-after" ? Number(n) : Number.POSITIVE_INFINITY;
const given: unknown = JSON.parse(readFileSync(taskFile, "utf8"));
const task = TaskSchema.parse(
  Array.isArray(given)
    ? given.find((t: { ticket?: unknown }) => t.ticket === process.env.APIFLOW_TICKET)
    : given,
);

const client = new Client({ name: "golden-mcp-client", version: "1.0.0" });
const serverCmd =
  url === "stdio" ? (JSON.parse(process.env.APIFLOW_TEST_SERVER_CMD ?? "[]") as string[]) : [];
const transport =
  url === "stdio"
    ? new StdioClientTransport({
        command: serverCmd[0] ?? "false",
        args: serverCmd.slice(1),
        stderr: "inherit",
      })
    : new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const { tools } = await client.listTools();
if (!tools.some((t) => t.name === "deliver")) throw new Error("the server offers no deliver tool");

let calls = 0;
let ended = false;
const session: TrialSession = {
  systemPrompt: "",
  ticket: client.getInstructions() ?? "",
  tools: [],
  signal: new AbortController().signal,
  get ended() {
    return ended;
  },
  async step(turn: { toolCalls: AgentToolCall[] }): Promise<StepResult> {
    const results: ToolResult[] = [];
    for (const call of turn.toolCalls) {
      if (calls >= stopAfter) {
        await transport.close();
        process.exit(0);
      }
      calls += 1;
      const r = await client.callTool({
        name: call.name,
        arguments: call.arguments as Record<string, unknown>,
      });
      const text = (r.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("");
      results.push({ ok: r.isError !== true, content: text });
      if (/the trial ends/.test(text)) ended = true;
    }
    return { results, stopped: ended ? "clarify" : null };
  },
  finish(text: string) {
    void text;
  },
  addUsage() {},
  abort() {},
};
let delivered: string | null = null;
session.finish = (text: string) => {
  delivered = text;
};
await playGolden(task.golden, session, { versioning: task.versioning });
if (delivered !== null) await client.callTool({ name: "deliver", arguments: { answer: delivered } });
if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
await client.close();
