import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentFactory } from "../trial/agent.js";
import { mcpBridgeAgent } from "./mcp-bridge-agent.js";

/** A stable agent name for an external command: `mcp-` and a short digest of its template. */
export function mcpAgentName(commandTemplate: string): string {
  return `mcp-${createHash("sha256").update(commandTemplate).digest("hex").slice(0, 8)}`;
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

/**
 * `--agent mcp:"<command>"`: each trial serves its tools over MCP on 127.0.0.1 and launches the
 * external agent with the command template (see `renderCommand`). The trial ends when the agent
 * delivers, abstains, hits a limit or exits; an exit without a delivery fails the trial with the
 * exit status as its reason. The agent's output is not recorded (it may hold its own credentials);
 * the transcript holds every tool call it made.
 *
 * @example const factory = mcpAgentFactory("npx my-mcp-agent --server {url} --ticket-file {ticket_file}");
 */
export function mcpAgentFactory(commandTemplate: string, name = mcpAgentName(commandTemplate)): AgentFactory {
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
              client: (url, signal) =>
                new Promise<string>((resolve) => {
                  const child = spawn(
                    renderCommand(commandTemplate, { url, ticketFile, ticket: session.ticket }),
                    {
                      shell: true,
                      // Its own process group, so ending the trial ends the agent and its children.
                      detached: true,
                      stdio: ["ignore", "ignore", "ignore"],
                      env: {
                        ...process.env,
                        APIFLOW_MCP_URL: url,
                        APIFLOW_TICKET_FILE: ticketFile,
                        APIFLOW_TICKET: session.ticket,
                      },
                    },
                  );
                  const kill = () => {
                    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
                      return;
                    try {
                      process.kill(-child.pid, "SIGTERM");
                    } catch {
                      child.kill("SIGTERM");
                    }
                  };
                  signal.addEventListener("abort", kill, { once: true });
                  child.on("error", (e) => resolve(`the agent command could not start: ${e.message}`));
                  child.on("exit", (code, sig) =>
                    resolve(sig ? `the agent was ended by ${sig}` : `the agent exited with status ${code}`),
                  );
                }),
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
