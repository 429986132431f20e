import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import type { World } from "../bank/world-schema.js";
import { Workspace } from "../workspace/workspace.js";
import { EXAMPLE_WORLD } from "./example-world.js";
import { inProcessTransport, type ServedWorld, serveTrialWorld } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

const MCP_WORLD: World = { ...EXAMPLE_WORLD, protocol: "mcp" };
const SEED = "mcp-seed";
let served: ServedWorld | null = null;
afterEach(async () => {
  await served?.close();
  served = null;
});

type ToolAnswer = { status: number; headers: Record<string, string>; body: Record<string, unknown> };

describe("a world served as MCP tools", () => {
  it("answers a real SDK client over Streamable HTTP: tools per route, REST semantics, neutral log", async () => {
    const trial = new TrialWorld(MCP_WORLD, SEED);
    served = await serveTrialWorld(trial);
    const client = new Client({ name: "world-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${served.baseUrl}/mcp`)));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["issue_token", ...EXAMPLE_WORLD.routes.map((r) => r.id)]);
    expect(tools.find((t) => t.name === "getValve")?.inputSchema.required).toEqual(["valve_id"]);

    const refused = await client.callTool({ name: "getValve", arguments: { valve_id: "VL-1" } });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as ToolAnswer).body).toMatchObject({
      error: "missing_token",
      message: "this route needs a bearer token",
      // The way in, in MCP's words: the issue_token tool, not the REST path.
      hint: 'mint a fresh token with the issue_token tool (grant_type: "client_credentials"), or exchange your refresh_token with grant_type: "refresh_token" and send Authorization: Bearer <token> as an HTTP header of your MCP requests',
    });

    const minted = await client.callTool({
      name: "issue_token",
      arguments: { grant_type: "client_credentials", client_id: "cid_irr", client_secret: "csec_irr" },
    });
    const token = (minted.structuredContent as ToolAnswer).body.access_token as string;
    await client.close();

    const authed = new Client({ name: "world-test", version: "1.0.0" });
    await authed.connect(
      new StreamableHTTPClientTransport(new URL(`${served.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const got = await authed.callTool({ name: "getValve", arguments: { valve_id: "VL-1" } });
    expect(got.structuredContent).toMatchObject({
      status: 200,
      headers: { etag: '"1"' },
      body: { valve_id: "VL-1" },
    });
    const page = await authed.callTool({ name: "listWorkOrdersCursor", arguments: { limit: 3 } });
    const body = (page.structuredContent as ToolAnswer).body;
    expect((body["work-orders"] as unknown[]).length).toBe(3);
    expect(typeof body.next_cursor).toBe("string");
    const unknown = await authed.callTool({ name: "getValve", arguments: { valve_id: "VL-1", vavle: "x" } });
    expect(unknown.isError).toBe(true);
    expect(JSON.stringify(unknown.content)).toContain("getValve takes no argument");
    await authed.close();

    const log = trial.log.exchanges();
    expect(log.map((e) => `${e.protocol} ${e.method} ${e.url} ${e.status}`)).toEqual([
      "mcp GET /v3/valves/VL-1 401",
      "mcp POST /v3/oauth/token 200",
      "mcp GET /v3/valves/VL-1 200",
      "mcp GET /v3/work-orders?limit=3 200",
    ]);
    expect(log[2]?.request_headers.authorization).toMatch(/^Bearer <redacted:/);
  });

  it("is reachable through execute({protocol: 'mcp'}) with placeholders in arguments and headers", async () => {
    const trial = new TrialWorld(MCP_WORLD, SEED);
    const ws = new Workspace({
      world: MCP_WORLD,
      transport: inProcessTransport(trial),
      log: trial.log,
      variables: { vault: { client_id: "cid_irr", client_secret: "csec_irr" }, local: {}, global: {} },
    });
    const spec = JSON.parse((await ws.call("read", { entity_ref: "spec:mcp" })).content);
    expect(spec.content.format).toBe("mcp-tools");
    const minted = JSON.parse(
      (
        await ws.call("execute", {
          request: {
            protocol: "mcp",
            tool: "issue_token",
            arguments: {
              grant_type: "client_credentials",
              client_id: "{{client_id}}",
              client_secret: "{{client_secret}}",
            },
          },
        })
      ).content,
    );
    const token = JSON.parse(minted.body_preview).structuredContent.body.access_token;
    await ws.call("write", { entity_ref: { kind: "variable", id: "tok" }, content: { value: token } });
    const got = JSON.parse(
      (
        await ws.call("execute", {
          request: {
            protocol: "mcp",
            tool: "getValve",
            arguments: { valve_id: "VL-3" },
            headers: { authorization: "Bearer {{tok}}" },
          },
        })
      ).content,
    );
    const read = JSON.parse((await ws.call("read", { entity_ref: got.response_ref })).content);
    expect(read.content.body.structuredContent).toMatchObject({ status: 200, body: { valve_id: "VL-3" } });
    expect(trial.log.exchanges().map((e) => e.url)).toEqual(["/v3/oauth/token", "/v3/valves/VL-3"]);
  });
});
