import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { HttpTrialSessions } from "./http-trial-sessions.js";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/** Sessions over an MCP server whose one tool answers after `toolMs`; `left` collects onLeave. */
function sessions(idleMs: number, toolMs: number) {
  const left: string[] = [];
  const s = new HttpTrialSessions(
    {
      onLeave: (how) => left.push(how),
      newServer: () => {
        const server = new Server({ name: "slow", version: "1" }, { capabilities: { tools: {} } });
        server.setRequestHandler(CallToolRequestSchema, async () => {
          await new Promise((r) => setTimeout(r, toolMs));
          return { content: [{ type: "text", text: "done" }] };
        });
        return server;
      },
    },
    idleMs,
  );
  const post = async (body: unknown, session?: string) =>
    s.handle(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: session ? { ...HEADERS, "mcp-session-id": session } : HEADERS,
        body: JSON.stringify(body),
      }),
    );
  return { s, left, post };
}

describe("HttpTrialSessions' idle limit", () => {
  it("does not count a slow answer as the client's idle time, and still ends a silent client", async () => {
    const { s, left, post } = sessions(300, 900);
    const init = await post(INIT);
    const sid = init.headers.get("mcp-session-id") ?? undefined;
    expect(sid).toBeDefined();
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sid);
    // The tool takes three idle limits to answer: the client is waiting, not gone.
    const called = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow" } }, sid);
    expect(called.status).toBe(200);
    expect(left).toEqual([]);
    // Silent after the answer: the limit runs from the answer's end.
    await new Promise((r) => setTimeout(r, 700));
    expect(left).toEqual(["no request for 0.3 s: the client was idle past the limit"]);
    await s.close();
  }, 30_000);
});
