import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_KILL_GRACE_MS, runAgentProcess } from "./agent-process.js";
import { mcpBridgeAgent } from "./mcp-bridge-agent.js";

/** A stable agent name for an external command: `mcp-` and a short digest of its template. */
export function mcpAgentName(commandTemplate: string): string {
  return `mcp-${createHash("sha256").update(commandTemplate).digest("hex").slice(0, 8)}`;
}

/** What an agent name may hold: it names a folder of transcripts and a column of the reports. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Null when `name` may name an agent, else why not. */
export function agentNameProblem(name: string): string | null {
  return AGENT_NAME.test(name)
    ? null
    : `an agent name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit; got ${JSON.stringify(name)}`;
}

/**
 * The agent name an MCP client's `clientInfo.name` stands for (what it calls itself is not ours
 * to trust): runs of other characters become one dash, 64 characters at most; `mcp` when nothing
 * is left.
 *
 * @example mcpClientAgentName("Claude Code") // "Claude-Code"
 */
export function mcpClientAgentName(clientName: string | undefined): string {
  const name = (clientName ?? "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return name === "" ? "mcp" : name;
}

/** Quote a value for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line for one trial: `{url}` is the trial's MCP endpoint (Streamable HTTP on
 * 127.0.0.1), `{ticket_file}` a file holding the ticket, `{ticket}` the ticket itself (all shell
 * quoted). The same values are in the environment as `APIFLOW_MCP_URL`, `APIFLOW_TICKET_FILE` and
 * `APIFLOW_TICKET`.
 *
 * @example renderCommand("my-agent --mcp {url} --task-file {ticket_file}", { url: "http://127.0.0.1:5123/mcp", ticketFile: "/tmp/t", ticket: "…" })
 */
export function renderCommand(
  template: string,
  values: { url: string; ticketFile: string; ticket: string },
): string {
  return template
    .replaceAll("{url}", shellQuote(values.url))
    .replaceAll("{ticket_file}", shellQuote(values.ticketFile))
    .replaceAll("{ticket}", shellQuote(values.ticket));
}

/** Settings of an external MCP agent beyond its command. */
export interface McpAgentOptions {
  /** Its name in the store and the reports (default `mcpAgentName(command)`). */
  name?: string;
  /** Time between SIGTERM and SIGKILL of its process group once the trial ended (default 5 s). */
  killGraceMs?: number;
  /** An HTTP session with no request for this long has left (default `DEFAULT_IDLE_SECONDS`). */
  idleSeconds?: number;
}

/**
 * `--agent mcp:"<command>"`: each trial serves its tools over MCP on 127.0.0.1 and launches the
 * external agent with the command template (see `renderCommand`) in its own process group. The
 * trial ends when the agent delivers, abstains, hits a limit or exits; an exit without a delivery
 * fails the trial with the exit status as its reason. When the trial ends, the agent's process
 * group gets SIGTERM and, after the grace period, SIGKILL; the trial returns once it is gone. The
 * agent's output is not recorded (it may hold its own credentials); the transcript holds every
 * tool call it made.
 *
 * @example const factory = mcpAgentFactory("npx my-mcp-agent --server {url} --ticket-file {ticket_file}", { name: "my-agent" });
 */
export function mcpAgentFactory(commandTemplate: string, options: McpAgentOptions = {}): AgentFactory {
  const name = options.name ?? mcpAgentName(commandTemplate);
  return {
    name,
    forTask: () => ({
      name,
      attempt: async (session) => {
        const dir = mkdtempSync(join(tmpdir(), "apiflow-mcp-"));
        const ticketFile = join(dir, "ticket.md");
        writeFileSync(ticketFile, session.ticket);
        try {
          await mcpBridgeAgent(
            {
              kind: "http",
              ...(options.idleSeconds !== undefined ? { idleSeconds: options.idleSeconds } : {}),
              client: (url, signal) =>
                runAgentProcess(
                  renderCommand(commandTemplate, { url, ticketFile, ticket: session.ticket }),
                  { APIFLOW_MCP_URL: url, APIFLOW_TICKET_FILE: ticketFile, APIFLOW_TICKET: session.ticket },
                  signal,
                  options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
                ),
            },
            name,
          ).attempt(session);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    }),
  };
}
