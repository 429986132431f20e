import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

/** What the sessions tell the trial. */
export interface HttpTrialSessionEvents {
  /**
   * A session ended without a delivery in it: the client deleted it or went idle (`gone`: nobody
   * is left to answer), or started a new one (a reconnect; the new session is still served).
   */
  onLeave: (how: string, gone: boolean) => void;
  /** A new MCP server for one session (every session serves the same trial). */
  newServer: () => Server;
}

/**
 * The Streamable HTTP sessions of one trial. The SDK's transport serves one session; a client
 * that restarts sends a new `initialize`, which the SDK refuses on an initialized transport
 * ("Server already initialized"). Here a new `initialize` opens a new session on a new transport
 * (it works), and the old session is closed and reported as the client having left (a reconnect).
 * A session with no request for `idleMs` is reported as left too, so a client that vanishes
 * without a DELETE does not hold the trial open until its wall-time limit. Everything else —
 * parse errors, session ids, a missing header, DELETE — is the SDK transport's own answer.
 *
 * @example const sessions = new HttpTrialSessions({ onLeave, newServer }, 300_000); serve({ fetch: (r) => sessions.handle(r) });
 */
export class HttpTrialSessions {
  private current: { transport: WebStandardStreamableHTTPServerTransport; server: Server } | null = null;
  private idle: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private closed = false;

  constructor(
    private readonly events: HttpTrialSessionEvents,
    private readonly idleMs: number,
  ) {
    this.touch();
  }

  /**
   * Answer one HTTP request to the MCP endpoint. Idle time counts from the end of the last
   * answer: while a request is being answered (a slow tool call) the client is not away.
   */
  async handle(req: Request): Promise<Response> {
    this.inFlight += 1;
    this.touch();
    try {
      return await this.answer(req);
    } finally {
      this.inFlight -= 1;
      this.touch();
    }
  }

  private async answer(req: Request): Promise<Response> {
    let parsedBody: unknown;
    if (req.method === "POST" && !req.headers.get("mcp-session-id")) {
      parsedBody = await req
        .clone()
        .json()
        .catch(() => undefined);
      const initializes = Array.isArray(parsedBody)
        ? parsedBody.some(isInitializeRequest)
        : isInitializeRequest(parsedBody);
      if (initializes && this.current?.transport.sessionId !== undefined) {
        const old = this.current;
        this.current = null;
        this.events.onLeave(
          "the client started a new MCP session without closing the old one (a reconnect)",
          false,
        );
        await old.server.close().catch(() => {});
      }
    }
    const { transport } = await this.session();
    return parsedBody === undefined
      ? transport.handleRequest(req)
      : transport.handleRequest(req, { parsedBody });
  }

  private async session() {
    if (this.current) return this.current;
    const transport = new WebStandardStreamableHTTPServerTransport({
      // A session id only names the connection; it never reaches the grade.
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      onsessionclosed: () => this.events.onLeave("the client closed its MCP session", true),
    });
    const server = this.events.newServer();
    this.current = { transport, server };
    await server.connect(transport);
    return this.current;
  }

  private touch(): void {
    if (this.closed) return;
    if (this.idle) this.idle.refresh();
    else {
      this.idle = setTimeout(() => {
        if (this.inFlight > 0) this.idle?.refresh();
        else
          this.events.onLeave(
            `no request for ${this.idleMs / 1000} s: the client was idle past the limit`,
            true,
          );
      }, this.idleMs);
      this.idle.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    await this.current?.server.close().catch(() => {});
    this.current = null;
  }
}
