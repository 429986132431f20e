import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { skeletonBankContent } from "../generate/skeleton-bank.js";
import { runTrial } from "../run/run-trial.js";
import { mcpBridgeAgent } from "./mcp-bridge-agent.js";

const bank = bankFromContent(skeletonBankContent());
const first = bank.tasks[0];
if (!first) throw new Error("the skeleton bank has no task");
const task: Task = first;
const EIGHT = "read, write, edit, search, execute, clarify, report_blocked, deliver";
const INIT = {
  jsonrpc: "2.0",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "hostile", version: "0" } },
};

type Reply = { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** A raw stdio client: writes lines, reads one reply per request (a hang fails the test at 5 s). */
function rawStdio() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let rest = "";
  stdout.on("data", (chunk: Buffer) => {
    rest += chunk.toString();
    for (let i = rest.indexOf("\n"); i !== -1; i = rest.indexOf("\n")) {
      const line = rest.slice(0, i);
      rest = rest.slice(i + 1);
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  const send = (line: string): Promise<Reply> => {
    stdin.write(`${line}\n`);
    const queued = lines.shift();
    if (queued !== undefined) return Promise.resolve(JSON.parse(queued));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${line}`)), 5_000);
      waiting.push((l) => {
        clearTimeout(timer);
        resolve(JSON.parse(l));
      });
    });
  };
  return { stdin, stdout, send, notify: (line: string) => stdin.write(`${line}\n`) };
}

const call = (id: number, params: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params });

describe("a hostile MCP client over stdio gets an answer to every bad message", () => {
  it("parse errors, invalid requests, bad params, unknown tools and calls after deliver", async () => {
    const client = rawStdio();
    let clientName = "";
    const agent = mcpBridgeAgent({
      kind: "stdio",
      stdin: client.stdin,
      stdout: client.stdout,
      onClient: (c) => {
        clientName = c.name;
      },
    });
    const trial = runTrial({ bank, task, epoch: 1, agent: { name: "mcp", forTask: () => agent } });

    expect(await client.send("this is not json")).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await client.send('{"jsonrpc": "2.0", "id": 7')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    // Valid JSON, not a JSON-RPC message: -32600 with the id when there is one.
    expect(await client.send('{"jsonrpc": "2.0", "id": 7}')).toMatchObject({
      id: 7,
      error: { code: -32600 },
    });
    expect(await client.send('{"jsonrpc": "1.0", "id": "a", "method": "ping"}')).toMatchObject({
      id: "a",
      error: { code: -32600 },
    });
    expect(
      await client.send('{"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": 5}'),
    ).toMatchObject({ id: 8, error: { code: -32600 } });
    expect(await client.send("[1, 2]")).toMatchObject({ id: null, error: { code: -32600 } });
    expect(await client.send("42")).toMatchObject({ id: null, error: { code: -32600 } });
    // Params that do not fit the method: -32602, the SDK's own initialize included.
    expect(await client.send(JSON.stringify({ ...INIT, id: 1, params: {} }))).toMatchObject({
      id: 1,
      error: { code: -32602 },
    });
    const init = await client.send(JSON.stringify({ ...INIT, id: 2 }));
    expect(init.result?.instructions).toContain("eight tools");
    expect(init.result?.instructions).toContain(task.ticket);
    client.notify('{"jsonrpc": "2.0", "method": "notifications/initialized"}');
    expect(await client.send('{"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}')).toMatchObject({
      id: 3,
      error: { code: -32601 },
    });
    expect(await client.send(call(4, {}))).toMatchObject({ id: 4, error: { code: -32602 } });
    expect(await client.send(call(5, { name: "read", arguments: "not an object" }))).toMatchObject({
      id: 5,
      error: { code: -32602 },
    });
    const unknown = await client.send(call(6, { name: "fly", arguments: {} }));
    expect(unknown.error?.code).toBe(-32602);
    expect(unknown.error?.message).toContain(`the tools are ${EIGHT}`);
    // A known tool given bad arguments is the tool's own error, a result the agent can read.
    const badArgs = await client.send(call(9, { name: "read", arguments: { entity: 1 } }));
    expect(badArgs.result).toMatchObject({ isError: true });
    const tools = await client.send('{"jsonrpc": "2.0", "id": 10, "method": "tools/list"}');
    const listed = (tools.result?.tools ?? []) as Array<{ name: string }>;
    expect(listed.map((t) => t.name).join(", ")).toBe(EIGHT);
    const prompt = await client.send(
      '{"jsonrpc": "2.0", "id": 11, "method": "prompts/get", "params": {"name": "ticket"}}',
    );
    expect(JSON.stringify(prompt.result)).toContain(JSON.stringify(task.ticket).slice(1, -1));
    expect(
      await client.send('{"jsonrpc": "2.0", "id": 12, "method": "prompts/get", "params": {}}'),
    ).toMatchObject({ error: { code: -32602 } });
    const resource = await client.send(
      '{"jsonrpc": "2.0", "id": 13, "method": "resources/read", "params": {"uri": "apiflow://trial/ticket"}}',
    );
    expect(resource.result).toEqual({
      contents: [{ uri: "apiflow://trial/ticket", mimeType: "text/markdown", text: task.ticket }],
    });
    // `answer` and `card` together: refused (one would be dropped in silence), the trial goes on.
    const both = await client.send(
      call(20, { name: "deliver", arguments: { answer: "Done, see the card.", card: { x: 1 } } }),
    );
    expect(both.result).toMatchObject({ isError: true });
    expect(JSON.stringify(both.result)).toContain("not both");
    const delivered = await client.send(call(14, { name: "deliver", arguments: { card: { x: 1 } } }));
    expect(delivered.result).toMatchObject({
      content: [{ type: "text", text: "answer delivered; the trial ends" }],
    });
    const after = await client.send(call(15, { name: "read", arguments: { entity_ref: "spec:openapi" } }));
    expect(after).toMatchObject({ id: 15, error: { code: -32600 } });
    expect(after.error?.message).toContain("the trial has ended (the answer card was delivered)");
    expect(await client.send("garbage after the end")).toMatchObject({ id: null, error: { code: -32700 } });
    client.stdin.end();

    const r = await trial;
    expect(r.stop_reason).toBe("answered");
    expect(clientName).toBe("hostile");
    // Only the call of a known tool before the delivery reached the trial.
    expect(r.tool_calls).toBe(1);
  }, 30_000);
});

/** A raw HTTP client of one MCP endpoint. */
function rawHttp(url: string) {
  return async (body: string, sessionId?: string, method = "POST") => {
    const res = await fetch(url, {
      method,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
        ...(sessionId ? { "mcp-session-id": sessionId } : {}),
      },
      ...(method === "POST" ? { body } : {}),
    });
    const text = await res.text();
    return {
      status: res.status,
      session: res.headers.get("mcp-session-id") ?? undefined,
      reply: (text ? JSON.parse(text) : {}) as Reply,
    };
  };
}

function overHttp(options: { idleSeconds?: number } = {}) {
  let ready: (url: string) => void = () => {};
  const url = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const agent = mcpBridgeAgent({ kind: "http", onListening: ready, ...options });
  const trial = runTrial({ bank, task, epoch: 1, agent: { name: "mcp", forTask: () => agent } });
  return { url, trial };
}

describe("a hostile MCP client over Streamable HTTP", () => {
  it("gets -32700, -32602 and, after deliver, an MCP error rather than a closed socket", async () => {
    const { url, trial } = overHttp();
    const post = rawHttp(await url);
    expect(await post("not json")).toMatchObject({ status: 400, reply: { error: { code: -32700 } } });
    const init = await post(JSON.stringify({ ...INIT, id: 1 }));
    expect(init.status).toBe(200);
    const sid = init.session;
    await post('{"jsonrpc": "2.0", "method": "notifications/initialized"}', sid);
    expect((await post(call(2, {}), sid)).reply).toMatchObject({ id: 2, error: { code: -32602 } });
    const unknown = await post(call(3, { name: "fly" }), sid);
    expect(unknown.reply.error?.message).toContain(EIGHT);
    expect(
      (await post(call(4, { name: "deliver", arguments: { card: { x: 1 } } }), sid)).reply.result,
    ).toMatchObject({ content: [{ text: "answer delivered; the trial ends" }] });
    const r = await trial;
    expect(r.stop_reason).toBe("answered");
    const after = await post(call(5, { name: "search", arguments: { query: "" } }), sid);
    expect(after).toMatchObject({ status: 200, reply: { id: 5, error: { code: -32600 } } });
    expect(after.reply.error?.message).toContain("the trial has ended (the answer card was delivered)");
    expect((await post("", sid, "DELETE")).status).toBe(200);
  }, 30_000);

  it("answers a second initialize after a client restart and records the abandoned session as disconnected", async () => {
    const { url, trial } = overHttp();
    const post = rawHttp(await url);
    const first = await post(JSON.stringify({ ...INIT, id: 1 }));
    await post('{"jsonrpc": "2.0", "method": "notifications/initialized"}', first.session);
    expect(
      (await post(call(2, { name: "search", arguments: { query: "" } }), first.session)).reply.result,
    ).toBeDefined();
    // The client restarts: a new initialize, no session id.
    const second = await post(JSON.stringify({ ...INIT, id: 1 }));
    expect(second.status).toBe(200);
    expect(second.reply.result?.serverInfo).toMatchObject({ name: "apiflow-trial" });
    expect(second.session).toBeDefined();
    expect(second.session).not.toBe(first.session);
    const r = await trial;
    expect(r.stop_reason).toBe("disconnected");
    expect(r.stop_detail).toContain("a reconnect");
    expect(r.tool_calls).toBe(1);
    const late = await post(call(3, { name: "search", arguments: { query: "" } }), second.session);
    expect(late.reply.error?.message).toContain("the trial has ended (the client disconnected:");
    // The abandoned session is gone (404, as the spec says, so a client knows to start anew).
    expect((await post(call(4, { name: "search", arguments: {} }), first.session)).status).toBe(404);
    await post("", second.session, "DELETE");
  }, 30_000);

  it("ends a trial whose client stays silent past the idle limit as disconnected", async () => {
    const { url, trial } = overHttp({ idleSeconds: 0.5 });
    const post = rawHttp(await url);
    const init = await post(JSON.stringify({ ...INIT, id: 1 }));
    expect(init.status).toBe(200);
    const r = await trial;
    expect(r.stop_reason).toBe("disconnected");
    expect(r.stop_detail).toContain("no request for 0.5 s: the client was idle past the limit");
  }, 30_000);
});
