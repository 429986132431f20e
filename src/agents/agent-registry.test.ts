import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentRequest, modelRequest, NAMED_AGENTS, resolveAgent } from "./agent-registry.js";
import { AimdLimiter } from "./aimd-limiter.js";
import { DEFAULT_RETRY_POLICY } from "./model-call-retry.js";

const here = { cwd: process.cwd(), env: {} };

describe("agentRequest (--agent NAME)", () => {
  it("reads named agents, mcp commands and module paths, and names the known agents otherwise", () => {
    expect(agentRequest("golden")).toEqual({
      success: true,
      data: { name: "golden", settings: { kind: "scripted" } },
    });
    expect(agentRequest("mcp: my-agent {url}")).toEqual({
      success: true,
      data: { settings: { kind: "mcp", command: "my-agent {url}" } },
    });
    expect(agentRequest("./agents/mine.ts")).toEqual({
      success: true,
      data: { settings: { kind: "module", module: "./agents/mine.ts" } },
    });
    const empty = agentRequest("mcp:  ");
    expect(!empty.success && empty.error.message).toMatch(/^--agent mcp: needs a command/);
    const unknown = agentRequest("goldne");
    expect(unknown).toEqual({
      success: false,
      error: {
        code: "unknown_agent",
        message: expect.stringContaining(`known agents: ${Object.keys(NAMED_AGENTS).join(", ")}`),
      },
    });
    expect(Object.keys(NAMED_AGENTS)).toEqual(["golden", "blank", "baseline"]);
  });
});

describe("resolveAgent (run, queue worker and verify)", () => {
  it("gives the scripted agents by name and refuses a name it does not know", async () => {
    for (const name of ["golden", "blank", "baseline"]) {
      const r = await resolveAgent({ name, settings: { kind: "scripted" } }, here);
      expect(r.success && r.data.factory).toBe(NAMED_AGENTS[name]);
    }
    const r = await resolveAgent({ name: "oracle", settings: { kind: "scripted" } }, here);
    expect(r).toEqual({
      success: false,
      error: { code: "agent_unavailable", message: 'no scripted agent "oracle"' },
    });
  });

  it("builds a model with this machine's key, pins its settings without the key, and asks for its call control", async () => {
    const asked: string[] = [];
    const limiter = new AimdLimiter({ max: 2 });
    const r = await resolveAgent(modelRequest("openai/gpt-5-mini", { temperature: 0 }), {
      ...here,
      env: { OPENAI_API_KEY: "sk-registry-test" },
      calls: (modelApi) => {
        asked.push(modelApi);
        return { retry: DEFAULT_RETRY_POLICY, limiter };
      },
    });
    if (!r.success) throw new Error(r.error.message);
    expect(r.data.factory.name).toBe("gpt-5-mini");
    expect(r.data.settings).toEqual({
      kind: "model",
      model_api: "openai/gpt-5-mini",
      base_url: null,
      temperature: 0,
    });
    expect(JSON.stringify(r.data.settings)).not.toContain("sk-registry-test");
    expect(r.data.secrets).toEqual(["sk-registry-test"]);
    expect(r.data.modelApi).toBe("openai/gpt-5-mini");
    expect(asked).toEqual(["openai/gpt-5-mini"]);
  });

  it("explains a model without its key, and only describes one for a queue coordinator", async () => {
    const missing = await resolveAgent(modelRequest("openai/gpt-5-mini"), here);
    expect(missing).toEqual({
      success: false,
      error: { code: "agent_unavailable", message: "openai/gpt-5-mini needs an API key: set OPENAI_API_KEY" },
    });
    const described = await resolveAgent(modelRequest("openai/gpt-5-mini"), { ...here, describeOnly: true });
    expect(described.success && described.data.secrets).toEqual([]);
  });

  it("launches external MCP agents only where it is allowed to", async () => {
    const request = agentRequest('mcp:node agent.js --server "{url}"');
    if (!request.success) throw new Error(request.error.message);
    const ok = await resolveAgent(request.data, here);
    expect(ok.success && ok.data.factory.name).toMatch(/^mcp-/);
    const refused = await resolveAgent(request.data, {
      ...here,
      refuseMcp: "workers do not launch commands",
    });
    expect(refused).toEqual({
      success: false,
      error: { code: "agent_unavailable", message: "workers do not launch commands" },
    });
  });

  it("loads a module, and refuses one whose agent is not the one a job names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-registry-"));
    writeFileSync(
      join(dir, "mine.mjs"),
      'export default { name: "mine", async attempt(s) { s.finish(""); } };\n',
    );
    const request = { settings: { kind: "module" as const, module: "mine.mjs" } };
    const loaded = await resolveAgent(request, { ...here, cwd: dir });
    expect(loaded.success && loaded.data.factory.name).toBe("mine");
    const other = await resolveAgent({ ...request, name: "theirs" }, { ...here, cwd: dir });
    expect(other).toEqual({
      success: false,
      error: { code: "agent_unavailable", message: 'mine.mjs is agent "mine" here, not "theirs"' },
    });
  });
});
