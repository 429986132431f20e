// An external agent that will not go: it ignores SIGTERM, starts a child that ignores it too,
// delivers over MCP, then keeps running. Usage: node stubborn-mcp-agent.test-fixture.mjs <url> <pid-file>
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, pidFile] = process.argv.slice(2);
process.on("SIGTERM", () => {});
const child = spawn(
  process.execPath,
  ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"],
  {
    stdio: "ignore",
  },
);
writeFileSync(pidFile, JSON.stringify([process.pid, child.pid]));
const client = new Client({ name: "stubborn", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
await client.callTool({ name: "deliver", arguments: { card: { done: true } } });
setInterval(() => {}, 1000);
