import {
  APICallError,
  type LanguageModelV3Content,
  type LanguageModelV3GenerateResult,
} from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { runTrial } from "../run/run-trial.js";
import { modelAgentFactory, readTurn, tokenUsage } from "./model-agent.js";

const bank = bankFromContent(defaultBankContent());
const task =
  bank.tasks.find((t) => t.id === "harbor-telemetry-sub01") ?? (bank.tasks[0] as (typeof bank.tasks)[0]);

function reply(content: LanguageModelV3Content[], input = 100, output = 10): LanguageModelV3GenerateResult {
  return {
    content,
    finishReason: {
      unified: content.some((c) => c.type === "tool-call") ? "tool-calls" : "stop",
      raw: undefined,
    },
    usage: {
      inputTokens: { total: input, noCache: input - 40, cacheRead: 40, cacheWrite: 0 },
      outputTokens: { total: output, text: output, reasoning: 0 },
    },
    warnings: [],
  };
}
const call = (id: string, toolName: string, input: unknown): LanguageModelV3Content => ({
  type: "tool-call",
  toolCallId: id,
  toolName,
  input: typeof input === "string" ? input : JSON.stringify(input),
});

/** A mock model that plays a list of replies (or errors), one per call. */
function scripted(turns: Array<LanguageModelV3GenerateResult | Error>) {
  let i = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      const t = turns[Math.min(i++, turns.length - 1)] as LanguageModelV3GenerateResult | Error;
      if (t instanceof Error) throw t;
      return t;
    },
  });
  return model;
}

const fastRetry = {
  retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 2, callTimeoutMs: 5000 },
  sleep: async () => {},
};

describe("model agent loop", () => {
  it("runs tool calls through the session, records usage, and finishes on a reply without tool calls", async () => {
    const model = scripted([
      reply([call("c1", "read", { entity_ref: { kind: "spec", id: "openapi" } })]),
      reply([
        { type: "text", text: 'Done.\n```json\n{"firmware_build": "x", "firmware_channel": "y"}\n```' },
      ]),
    ]);
    const r = await runTrial({ bank, task, agent: modelAgentFactory({ name: "mock", model }), epoch: 1 });
    expect(r.stop_reason).toBe("answered");
    expect(r.outcome).toBe("fail");
    expect(r.tool_calls).toBe(1);
    expect(r.tokens).toMatchObject({ input: 120, output: 20, cache: 80, total: 220 });
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    // The second call saw the tool result, and temperature 1.0 by default.
    const second = model.doGenerateCalls[1];
    expect(second?.temperature).toBe(1);
    expect(JSON.stringify(second?.prompt)).toContain("spec:openapi");
    expect(second?.tools?.map((t) => t.name).sort()).toEqual(
      ["clarify", "edit", "execute", "read", "report_blocked", "search", "write"].sort(),
    );
  });

  it("answers a malformed tool-call argument with a truthful error, not a crash", async () => {
    const model = scripted([
      reply([call("c1", "read", '{"entity_ref": {')]),
      reply([{ type: "text", text: "giving up" }]),
    ]);
    const r = await runTrial({ bank, task, agent: modelAgentFactory({ name: "mock", model }), epoch: 1 });
    expect(r.stop_reason).toBe("answered");
    const tool = r.messages.find((m) => m.role === "tool");
    expect(tool?.content).toMatch(/^error \(/);
  });

  it("ends on clarify as an abstention", async () => {
    const model = scripted([reply([call("c1", "clarify", { question: "which vessel?" })])]);
    const r = await runTrial({ bank, task, agent: modelAgentFactory({ name: "mock", model }), epoch: 1 });
    expect(r.outcome).toBe("abstained");
  });

  it("retries a 429 honouring Retry-After, then succeeds", async () => {
    const slept: number[] = [];
    const model = scripted([
      new APICallError({
        message: "rate limited",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { "retry-after": "2" },
      }),
      reply([{ type: "text", text: "ok" }]),
    ]);
    const r = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({
        name: "mock",
        model,
        calls: { ...fastRetry, sleep: async (ms) => void slept.push(ms) },
      }),
      epoch: 1,
    });
    expect(r.stop_reason).toBe("answered");
    expect(slept).toEqual([2000]);
  });

  it("records a context-length error as context_overflow and exhausted retries as provider_error", async () => {
    const overflow = scripted([
      new APICallError({
        message: "This model's maximum context length is 8192 tokens",
        url: "http://x",
        requestBodyValues: {},
        statusCode: 400,
      }),
    ]);
    const a = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model: overflow, calls: fastRetry }),
      epoch: 1,
    });
    expect(a.outcome).toBe("context_overflow");
    const down = scripted([
      new APICallError({ message: "boom", url: "http://x", requestBodyValues: {}, statusCode: 503 }),
    ]);
    const b = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model: down, calls: fastRetry }),
      epoch: 1,
    });
    expect(b.outcome).toBe("provider_error");
    expect(b.stop_detail).toMatch(/after 4 attempts/);
    expect(down.doGenerateCalls).toHaveLength(4);
  });

  it("stops at the tool-call limit", async () => {
    const model = scripted([reply([call("c1", "search", { query: "" })])]);
    const r = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model }),
      epoch: 1,
      limits: { maxToolCalls: 3, maxTokens: 1_000_000, maxSeconds: 60 },
    });
    expect(r.outcome).toBe("limit");
    expect(r.stop_reason).toBe("tool_call_limit");
  });
});

describe("model agent on the provider interface", () => {
  it("reads a reply as generateText would: text and reasoning joined, JSON inputs parsed, bad JSON kept raw", () => {
    const names = new Set(["read", "search"]);
    const turn = readTurn(
      [
        { type: "reasoning", text: "think " },
        { type: "text", text: "Let me " },
        { type: "reasoning", text: "more" },
        { type: "text", text: "look." },
        call("c1", "read", { entity_ref: { kind: "spec", id: "openapi" } }),
        call("c2", "read", '{"entity_ref": {'),
        call("c3", "search", "  "),
        call("c4", "delete_everything", { id: 1 }),
        call("c5", "delete_everything", ""),
      ],
      names,
    );
    expect(turn.text).toBe("Let me look.");
    expect(turn.reasoning).toBe("think more");
    expect(turn.calls).toEqual([
      { id: "c1", name: "read", arguments: { entity_ref: { kind: "spec", id: "openapi" } } },
      { id: "c2", name: "read", arguments: '{"entity_ref": {' },
      { id: "c3", name: "search", arguments: {} },
      { id: "c4", name: "delete_everything", arguments: { id: 1 } },
      { id: "c5", name: "delete_everything", arguments: "" },
    ]);
    expect(readTurn([{ type: "text", text: "" }], names)).toEqual({
      text: "",
      reasoning: undefined,
      calls: [],
    });
  });

  it("prices usage without cached tokens as input, and derives it when the provider gives only a total", () => {
    expect(
      tokenUsage({
        inputTokens: { total: 100, noCache: 60, cacheRead: 30, cacheWrite: 10 },
        outputTokens: { total: 7, text: 7, reasoning: undefined },
      }),
    ).toEqual({ input: 60, output: 7, cache: 30, cache_write: 10 });
    expect(
      tokenUsage({
        inputTokens: { total: 100, noCache: undefined, cacheRead: 30, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      }),
    ).toEqual({ input: 70, output: 0, cache: 30, cache_write: 0 });
  });

  it("sends the provider the whole conversation in its own format, each call its own prompt", async () => {
    const model = scripted([
      reply([
        { type: "reasoning", text: "private" },
        { type: "text", text: "Reading." },
        call("c1", "read", { entity_ref: { kind: "spec", id: "openapi" } }),
        call("c2", "nonexistent_tool", { x: 1 }),
      ]),
      reply([{ type: "text", text: "done" }]),
    ]);
    const r = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model, settings: { temperature: 0.5, maxOutputTokens: 99 } }),
      epoch: 1,
    });
    expect(r.stop_reason).toBe("answered");
    expect(r.tool_calls).toBe(2);
    const [first, second] = model.doGenerateCalls;
    expect(first?.prompt.map((m) => m.role)).toEqual(["system", "user"]);
    expect(first?.toolChoice).toEqual({ type: "auto" });
    expect(first?.temperature).toBe(0.5);
    expect(first?.maxOutputTokens).toBe(99);
    expect(first?.tools?.every((t) => t.type === "function" && typeof t.inputSchema === "object")).toBe(true);
    expect(second?.prompt.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    // Reasoning stays in the transcript but is not sent back; tool inputs go back parsed.
    expect(second?.prompt[2]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Reading." },
        {
          type: "tool-call",
          toolCallId: "c1",
          toolName: "read",
          input: { entity_ref: { kind: "spec", id: "openapi" } },
        },
        { type: "tool-call", toolCallId: "c2", toolName: "nonexistent_tool", input: { x: 1 } },
      ],
    });
    const results = second?.prompt[3];
    expect(results?.role).toBe("tool");
    const outputs =
      results?.role === "tool" ? results.content.map((p) => p.type === "tool-result" && p.output) : [];
    expect(outputs[0]).toMatchObject({ type: "text" });
    expect(JSON.stringify(outputs[0])).toContain("openapi");
    // An unknown tool still goes through the session, which answers it truthfully.
    expect(outputs[1]).toMatchObject({ type: "error-text" });
    const assistant = r.messages.find((m) => m.role === "assistant");
    expect(JSON.stringify(assistant)).toContain("private");
    expect(r.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("stops mid-turn at the tool-call limit without running the rest of the turn", async () => {
    const model = scripted([
      reply([call("c1", "search", { query: "" }), call("c2", "search", { query: "" })]),
      reply([{ type: "text", text: "never" }]),
    ]);
    const r = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model }),
      epoch: 1,
      limits: { maxToolCalls: 1, maxTokens: 1_000_000, maxSeconds: 60 },
    });
    expect(r.stop_reason).toBe("tool_call_limit");
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(r.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("stops before running tools once a reply takes the trial over its token limit", async () => {
    const model = scripted([reply([call("c1", "search", { query: "" })], 5000, 10)]);
    const r = await runTrial({
      bank,
      task,
      agent: modelAgentFactory({ name: "mock", model }),
      epoch: 1,
      limits: { maxToolCalls: 10, maxTokens: 1000, maxSeconds: 60 },
    });
    expect(r.stop_reason).toBe("token_limit");
    expect(r.tool_calls).toBe(0);
  });
});
