import type { AddressInfo } from "node:net";
import type { Readable, Writable } from "node:stream";
import { serve } from "@hono/node-server";
import type { Agent, TrialSession } from "../trial/agent.js";
import { HttpTrialSessions } from "./http-trial-sessions.js";
import { StrictStdioServerTransport } from "./strict-stdio-transport.js";
import { mcpInstructions, trialMcpServer } from "./trial-mcp-server.js";

/** Where the MCP endpoint of a trial served over Streamable HTTP lives. */
export const TRIAL_MCP_PATH = "/mcp";

/** Default idle limit of an HTTP session: with no request for this long, the client has left. */
export const DEFAULT_IDLE_SECONDS = 300;

/**
 * After a trial ends, its server still answers (calls get an MCP error saying the trial ended)
 * until the client leaves or this long has passed, so a client never meets a closed socket in
 * the middle of a request.
 */
export const LINGER_MS = 5_000;

/** Who is on the other end, as its `initialize` said. */
export type McpClientInfo = { name: string; version: string };

/**
 * How an agent outside our loop reaches the trial. `stdio`: the process's stdin/stdout (or the
 * given streams); the trial ends when the input closes. `http`: Streamable HTTP on 127.0.0.1;
 * `client`, when given, runs the agent once the server listens and resolves, when the agent is
 * gone, with a sentence saying how it went (the trial then ends); without it the trial ends when
 * the client deletes its session, reconnects, or sends nothing for `idleSeconds`.
 */
export type McpBridgeMode = (
  | { kind: "stdio"; stdin?: Readable; stdout?: Writable }
  | {
      kind: "http";
      port?: number;
      /** Default 127.0.0.1; only loopback addresses are accepted. */
      host?: string;
      /** Default `DEFAULT_IDLE_SECONDS`. */
      idleSeconds?: number;
      onListening?: (url: string) => void;
      client?: (url: string, signal: AbortSignal) => Promise<string>;
    }
) & {
  /** Called when a client initializes, with its `clientInfo`. */
  onClient?: (client: McpClientInfo) => void;
  /** Default `LINGER_MS`. */
  lingerMs?: number;
};

/** The stop detail of a trial whose agent went away without delivering. */
export function disconnectDetail(how: string): string {
  return `the MCP client disconnected before delivering an answer card (${how})`;
}

/**
 * An agent that is not ours: the trial's tools are served over MCP and whatever connects plays
 * them. It finishes when the client calls `deliver`, abstains (`clarify`, `report_blocked`), hits
 * a limit, or disconnects; a disconnect without a delivery ends the trial with no final message
 * (so no answer card: the trial fails) and a stop detail that says so. The transcript's system
 * message is the server's instructions, what the client was shown (not our model system prompt).
 *
 * @example await runTrial({ bank, task, epoch: 1, agent: { name: "mcp", forTask: () => mcpBridgeAgent({ kind: "stdio" }) } })
 */
export function mcpBridgeAgent(mode: McpBridgeMode, name = "mcp"): Agent {
  return {
    name,
    attempt: (session) => {
      // The client never sees our system prompt: the transcript records what every client is
      // offered instead, the server's instructions (also the `ticket` prompt).
      session.recordSystemPrompt?.(mcpInstructions(session));
      return mode.kind === "stdio" ? overStdio(session, mode) : overHttp(session, mode);
    },
  };
}

/**
 * When the trial ends and when its server may close. `endTrial` ends the trial (as `disconnected`
 * when it has not ended yet) and starts the linger; `clientGone` also closes now. `ended`
 * resolves with the trial's end, `closed` once the server has been shut.
 */
function trialLifetime(session: TrialSession, lingerMs: number, close: () => Promise<void>) {
  let why: string | null = null;
  let markEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    markEnded = resolve;
  });
  let closing: Promise<void> | null = null;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  let linger: NodeJS.Timeout | null = null;
  const shut = () => {
    if (closing) return;
    if (linger) clearTimeout(linger);
    // The reply to the last request is still on its way out: close a moment later.
    closing = new Promise<void>((resolve) => setTimeout(resolve, 100))
      .then(close)
      .catch(() => {})
      .then(markClosed);
  };
  const endTrial = (how: string) => {
    if (why !== null) return;
    if (session.ended) why = how;
    else {
      session.abort("disconnected", disconnectDetail(how));
      why = `the client disconnected: ${how}`;
    }
    markEnded();
    linger = setTimeout(shut, lingerMs);
  };
  const clientGone = (how: string) => {
    endTrial(how);
    shut();
  };
  session.signal.addEventListener("abort", () => endTrial("the wall-time limit was reached"), { once: true });
  return { endTrial, clientGone, ended, closed, why: () => why ?? "it was stopped" };
}

async function overStdio(
  session: TrialSession,
  mode: Extract<McpBridgeMode, { kind: "stdio" }>,
): Promise<void> {
  const stdin = mode.stdin ?? process.stdin;
  const transport = new StrictStdioServerTransport(stdin, mode.stdout ?? process.stdout);
  const life = trialLifetime(session, mode.lingerMs ?? LINGER_MS, () => server.close());
  const server = trialMcpServer(session, {
    onEnd: life.endTrial,
    endedBecause: life.why,
    ...(mode.onClient ? { onClient: mode.onClient } : {}),
  });
  const closed = () => life.clientGone("stdin closed");
  stdin.once("end", closed);
  stdin.once("close", closed);
  await server.connect(transport);
  await life.ended;
  void life.closed.then(() => {
    stdin.off("end", closed);
    stdin.off("close", closed);
  });
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
  const life = trialLifetime(session, mode.lingerMs ?? LINGER_MS, async () => {
    await sessions.close();
    await closeHttp();
  });
  const sessions = new HttpTrialSessions(
    {
      onLeave: (how, gone) => (gone ? life.clientGone(how) : life.endTrial(how)),
      newServer: () =>
        trialMcpServer(session, {
          onEnd: life.endTrial,
          endedBecause: life.why,
          ...(mode.onClient ? { onClient: mode.onClient } : {}),
        }),
    },
    (mode.idleSeconds ?? DEFAULT_IDLE_SECONDS) * 1000,
  );
  const url = await new Promise<string>((resolve, reject) => {
    const http = serve(
      {
        fetch: (req) =>
          new URL(req.url).pathname === TRIAL_MCP_PATH
            ? sessions.handle(req)
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
    // The agent is stopped when the trial ends, and the attempt returns once it is gone.
    const gone = mode.client(url, stop.signal).then(
      (how) => life.clientGone(how),
      (e: unknown) =>
        life.clientGone(`the agent could not be run: ${e instanceof Error ? e.message : String(e)}`),
    );
    await life.ended;
    stop.abort();
    await gone;
    return;
  }
  await life.ended;
}
