import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Readable, Writable } from "node:stream";
import { serve } from "@hono/node-server";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Agent, TrialSession } from "../trial/agent.js";
import { trialMcpServer } from "./trial-mcp-server.js";

/** Where the MCP endpoint of a trial served over Streamable HTTP lives. */
export const TRIAL_MCP_PATH = "/mcp";

/**
 * How an agent outside our loop reaches the trial. `stdio`: the process's stdin/stdout (or the
 * given streams); the trial ends when the input closes. `http`: Streamable HTTP on 127.0.0.1;
 * `client`, when given, runs the agent once the server listens and resolves, when the agent is
 * gone, with a sentence saying how it went (the trial then ends); without it the trial ends when
 * the client deletes its session.
 */
export type McpBridgeMode =
  | { kind: "stdio"; stdin?: Readable; stdout?: Writable }
  | {
      kind: "http";
      port?: number;
      /** Default 127.0.0.1; only loopback addresses are accepted. */
      host?: string;
      onListening?: (url: string) => void;
      client?: (url: string, signal: AbortSignal) => Promise<string>;
    };

/** The stop detail of a trial whose agent went away without delivering. */
export function disconnectDetail(how: string): string {
  return `the MCP client disconnected before delivering an answer card (${how})`;
}

/**
 * An agent that is not ours: the trial's tools are served over MCP and whatever connects plays
 * them. It finishes when the client calls `deliver`, abstains (`clarify`, `report_blocked`), hits
 * a limit, or disconnects; a disconnect without a delivery ends the trial with no final message
 * (so no answer card: the trial fails) and a stop detail that says so.
 *
 * @example await runTrial({ bank, task, epoch: 1, agent: { name: "mcp", forTask: () => mcpBridgeAgent({ kind: "stdio" }) } })
 */
export function mcpBridgeAgent(mode: McpBridgeMode, name = "mcp"): Agent {
  return {
    name,
    attempt: (session) => (mode.kind === "stdio" ? overStdio(session, mode) : overHttp(session, mode)),
  };
}

function ender(session: TrialSession, cleanup: () => Promise<void>) {
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  let settled = false;
  const end = (how?: string) => {
    if (settled) return;
    settled = true;
    if (!session.ended) session.abort("disconnected", disconnectDetail(how ?? "the connection closed"));
    // The reply to the last tool call is still on its way out: close a moment later.
    setTimeout(() => void cleanup().catch(() => {}), 200).unref();
    done();
  };
  session.signal.addEventListener("abort", () => end("the trial's wall-time limit was reached"), {
    once: true,
  });
  return { end, finished };
}

async function overStdio(
  session: TrialSession,
  mode: Extract<McpBridgeMode, { kind: "stdio" }>,
): Promise<void> {
  const stdin = mode.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, mode.stdout ?? process.stdout);
  const { end, finished } = ender(session, () => server.close());
  const server = trialMcpServer(session, () => end());
  const closed = () => end("stdin closed");
  stdin.once("end", closed);
  stdin.once("close", closed);
  await server.connect(transport);
  await finished;
  stdin.off("end", closed);
  stdin.off("close", closed);
}

async function overHttp(
  session: TrialSession,
  mode: Extract<McpBridgeMode, { kind: "http" }>,
): Promise<void> {
  const host = mode.host ?? "127.0.0.1";
  if (!["127.0.0.1", "localhost", "::1"].includes(host)) {
    throw new Error(`refusing to serve a trial off this machine: ${host}`);
  }
  let closeHttp: () => Promise<void> = async () => {};
  const { end, finished } = ender(session, async () => {
    await server.close();
    await closeHttp();
  });
  const server = trialMcpServer(session, () => end());
  const transport = new WebStandardStreamableHTTPServerTransport({
    // A session id only names the connection; it never reaches the grade.
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessionclosed: () => end("the client closed its MCP session"),
  });
  await server.connect(transport);
  const url = await new Promise<string>((resolve, reject) => {
    const http = serve(
      {
        fetch: (req) =>
          new URL(req.url).pathname === TRIAL_MCP_PATH
            ? transport.handleRequest(req)
            : Response.json(
                { error: "not_found", message: `the MCP endpoint is ${TRIAL_MCP_PATH}` },
                { status: 404 },
              ),
        port: mode.port ?? 0,
        hostname: host,
      },
      (info: AddressInfo) =>
        resolve(`http://${host.includes(":") ? `[${host}]` : host}:${info.port}${TRIAL_MCP_PATH}`),
    );
    http.on("error", reject);
    closeHttp = () =>
      new Promise((done) => {
        http.close(() => done());
        (http as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
  });
  mode.onListening?.(url);
  if (mode.client) {
    const stop = new AbortController();
    void mode.client(url, stop.signal).then(
      (how) => end(how),
      (e: unknown) => end(`the agent could not be run: ${e instanceof Error ? e.message : String(e)}`),
    );
    await finished;
    stop.abort();
    return;
  }
  await finished;
}
