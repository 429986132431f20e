import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { writeBank } from "../../bank/load-bank.js";
import { defaultBankContent } from "../../generate/default-bank.js";
import { protocolVariant } from "../../generate/protocol-variants.js";
import { bufferIo } from "../io.js";
import { registerServe } from "./serve.js";

const content = defaultBankContent();
const world = content.worlds.find((w) => w.id === "fleet-telemetry");
if (!world) throw new Error("no world");

describe("apiflow serve for a GraphQL or MCP world", () => {
  it.each([
    ["graphql", "/graphql", { query: "{ __schema { queryType { name } } }" }, "GraphQL at POST"],
    ["mcp", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }, "MCP tools (Streamable HTTP) at POST"],
  ] as const)(
    "names the %s endpoint and answers on it",
    async (protocol, path, request, says) => {
      const v = protocolVariant(world, content.tasks, protocol);
      if (!v.success) throw new Error(v.error.message);
      const dir = mkdtempSync(join(tmpdir(), "apiflow-serve-"));
      writeBank(dir, { ...content, worlds: [v.data.world], tasks: v.data.tasks });
      const io = bufferIo();
      const stop = new AbortController();
      const program = new Command("apiflow").exitOverride();
      registerServe(program, io, () => {}, stop.signal);
      const done = program.parseAsync(["serve", "--bank", dir, "--port", "0"], { from: "user" });
      while (!io.out().includes("\n")) await new Promise((r) => setTimeout(r, 20));
      const base = io.out().trim();
      expect(io.err()).toContain(`${says} ${base}${path}`);
      expect(io.err()).not.toContain("openapi.json");
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(request),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(protocol === "graphql" ? body.data : body.result).toBeDefined();
      stop.abort();
      await done;
    },
    60_000,
  );
});
