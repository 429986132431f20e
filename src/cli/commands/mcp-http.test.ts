import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { openStore } from "../../run/store.js";
import { bufferIo, type CliIo } from "../io.js";
import { runCli } from "../program.js";

const dir = mkdtempSync(join(tmpdir(), "apiflow-mcp-http-"));
const bankDir = join(dir, "bank");
const content = skeletonBankContent();
writeBank(bankDir, content);
const taskId = content.tasks[0]?.id ?? "";

/** `apiflow mcp --http` in-process: resolves the endpoint URL from stdout's first line. */
function serveMcp(args: string[]) {
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
  const code = runCli(["mcp", "--http", "--bank", bankDir, "--task", taskId, ...args], watched);
  return { url, code, io };
}

async function rpc(url: string, body: unknown, session?: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { session: res.headers.get("mcp-session-id") ?? undefined, reply: text ? JSON.parse(text) : null };
}

async function connect(url: string, clientName: string): Promise<string> {
  const init = await rpc(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: clientName, version: "1" },
    },
  });
  await rpc(url, { jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
  return init.session ?? "";
}

const search = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "search", arguments: { query: "" } },
});

function rows(out: string) {
  const store = openStore(out, { readonly: true });
  const all = [...store.all()];
  store.close();
  return all;
}

describe("apiflow mcp --http", () => {
  it("takes run's trial limits and --agent-name", async () => {
    const out = join(dir, "limited");
    const { url, code, io } = serveMcp(["--max-tool-calls", "1", "--agent-name", "my-agent", "--out", out]);
    const endpoint = await url;
    const session = await connect(endpoint, "some client");
    expect((await rpc(endpoint, search(1), session)).reply.result.isError).toBeUndefined();
    await rpc(endpoint, search(2), session);
    const late = await rpc(endpoint, search(3), session);
    expect(late.reply.error.message).toContain("the trial has ended (the tool-call limit was reached)");
    await fetch(endpoint, { method: "DELETE", headers: { "mcp-session-id": session } });
    expect(await code, io.err()).toBe(1);
    expect(rows(out)).toEqual([
      expect.objectContaining({ agent: "my-agent", task_id: taskId, stop_reason: "tool_call_limit" }),
    ]);
  }, 60_000);

  it("names the agent by the client's clientInfo.name when no --agent-name is given", async () => {
    const out = join(dir, "named");
    const { url, code } = serveMcp(["--out", out]);
    const endpoint = await url;
    const session = await connect(endpoint, "Hostile Client/2");
    await rpc(
      endpoint,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "deliver", arguments: { card: {} } } },
      session,
    );
    await fetch(endpoint, { method: "DELETE", headers: { "mcp-session-id": session } });
    await code;
    expect(rows(out)).toEqual([
      expect.objectContaining({ agent: "Hostile-Client-2", stop_reason: "answered" }),
    ]);
  }, 60_000);

  it("refuses a bad --agent-name and a bad limit in one line each", async () => {
    const bad = bufferIo({}, dir);
    expect(await runCli(["mcp", "--bank", bankDir, "--task", taskId, "--agent-name", "../x"], bad)).toBe(2);
    expect(bad.err()).toMatch(/^apiflow: --agent-name: an agent name is 1 to 64 letters.*"\.\.\/x"\n$/);
    const limit = bufferIo({}, dir);
    expect(await runCli(["mcp", "--bank", bankDir, "--task", taskId, "--max-seconds", "0"], limit)).toBe(2);
    expect(limit.err()).toBe('apiflow: --max-seconds must be a positive number, got "0"\n');
  });
});
