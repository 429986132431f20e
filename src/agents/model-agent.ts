import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { Agent, AgentFactory, AgentToolCall, StepResult, TrialSession } from "../trial/agent.js";
import type { TokenUsage } from "../trial/transcript-schema.js";
import {
  type CallOutcome,
  callWithRetries,
  DEFAULT_RETRY_POLICY,
  type ModelCallControl,
} from "./model-call-retry.js";

/** Sampling settings of a model agent; they go into the run manifest. */
export interface ModelSettings {
  /** 1.0 by default: we measure the model as it is sampled, not its greedy mode. */
  temperature: number;
  /** Per model call; undefined leaves the provider's default. */
  maxOutputTokens?: number;
}

export const DEFAULT_MODEL_SETTINGS: ModelSettings = { temperature: 1 };

export interface ModelAgentOptions {
  /** The name in the store and the transcripts folder (the model slug). */
  name: string;
  model: LanguageModelV3;
  settings?: ModelSettings;
  /** Retries, the shared AIMD gate and events; one per model across all its trials. */
  calls?: ModelCallControl;
}

/**
 * The neutral ReAct loop every model runs: system prompt and ticket, then model call → tool calls
 * → results until the model replies without a tool call, abstains, or a limit ends the trial. Tool
 * arguments reach the workspace as the model produced them (even malformed), so the model sees a
 * truthful error rather than a crash.
 *
 * @example
 * const factory = modelAgentFactory({ name: "gpt-5-mini", model: createOpenAI({ apiKey })("gpt-5-mini") });
 * await runTrial({ bank, task, agent: factory, epoch: 1 });
 */
export function modelAgentFactory(options: ModelAgentOptions): AgentFactory {
  const agent = modelAgent(options);
  return { name: options.name, forTask: () => agent };
}

/**
 * The model agent itself (it ignores the task: it only sees the session).
 *
 * It calls the provider's `LanguageModelV3.doGenerate` — the AI SDK's provider interface — rather
 * than `generateText`, because `generateText` costs O(history) per step before the model is even
 * called: it re-validates the whole message history against the SDK's zod `ModelMessage` union
 * (with zod 4.6's memoizer, every failed union branch allocates and clones issues) and walks the
 * message schema again for a fresh `z.array` each call; its multi-step mode instead deep-clones all
 * response messages every step. That made the harness cost 16–24 ms per step over a 100-step trial
 * (bench/runner.bench.ts). Here the prompt is kept in the provider's own format and only grows.
 */
export function modelAgent(options: ModelAgentOptions): Agent {
  const settings = options.settings ?? DEFAULT_MODEL_SETTINGS;
  const control: ModelCallControl = options.calls ?? { retry: DEFAULT_RETRY_POLICY };
  return {
    name: options.name,
    async attempt(session: TrialSession) {
      const tools = functionTools(session);
      const toolNames = new Set(tools.map((t) => t.name));
      const prompt: LanguageModelV3Message[] = [
        { role: "system", content: session.systemPrompt },
        { role: "user", content: [{ type: "text", text: session.ticket }] },
      ];
      while (!session.ended) {
        const out: CallOutcome<LanguageModelV3GenerateResult> = await callWithRetries(
          async (abortSignal) =>
            options.model.doGenerate({
              // A copy: a provider (or a test's mock) may keep the prompt it was given.
              prompt: prompt.slice(),
              tools,
              toolChoice: { type: "auto" },
              temperature: settings.temperature,
              ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
              abortSignal,
            } satisfies LanguageModelV3CallOptions),
          control,
          session.signal,
        );
        if (!out.success) {
          const f = out.failure;
          if (f.kind === "aborted") {
            // The session ended it (wall time); it already holds the stop reason.
            if (!session.ended) session.abort("harness_error", "model call aborted");
          } else if (f.kind === "context_overflow") session.abort("context_overflow", f.message);
          else
            session.abort(
              "provider_error",
              `${f.kind}${f.retryable ? ` after ${out.retries + 1} attempts` : ""}: ${f.message}`,
            );
          return;
        }
        session.addUsage(tokenUsage(out.data.usage));
        if (session.ended) return;
        const { text, reasoning, calls } = readTurn(out.data.content, toolNames);
        if (calls.length === 0) {
          session.finish(text, reasoning);
          return;
        }
        const step = await session.step({
          ...(text ? { text } : {}),
          ...(reasoning ? { reasoning } : {}),
          toolCalls: calls,
        });
        if (step.stopped) return;
        prompt.push(...turnMessages(text, calls, step));
      }
    },
  };
}

/** The seven tools as provider function tools; the loop runs them through the session itself. */
function functionTools(session: TrialSession): LanguageModelV3FunctionTool[] {
  return session.tools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    inputSchema: t.inputSchema as JSONSchema7,
  }));
}

/** One assistant turn as the agent hands it to the session. */
export interface ModelTurn {
  /** The text parts joined, "" when there were none. */
  text: string;
  /** The reasoning parts joined, undefined when there were none. */
  reasoning: string | undefined;
  calls: Array<AgentToolCall & { id: string }>;
}

/**
 * Read a model reply the way `generateText` reads a step: text and reasoning parts joined, each
 * tool call's JSON input parsed. Pure; never throws. Input that is not JSON (or names no tool we
 * offered and is not JSON) reaches the session as the raw string, so the workspace answers with a
 * truthful error; an empty input to a known tool is `{}` as in the SDK.
 *
 * @example readTurn([{ type: "tool-call", toolCallId: "c1", toolName: "read", input: '{"entity_ref":' }], new Set(["read"])).calls[0].arguments // '{"entity_ref":'
 */
export function readTurn(
  content: readonly LanguageModelV3Content[],
  toolNames: ReadonlySet<string>,
): ModelTurn {
  let text = "";
  let reasoning: string | undefined;
  const calls: ModelTurn["calls"] = [];
  for (const part of content) {
    if (part.type === "text") text += part.text;
    else if (part.type === "reasoning") reasoning = (reasoning ?? "") + part.text;
    else if (part.type === "tool-call" && !part.providerExecuted) {
      calls.push({
        id: part.toolCallId,
        name: part.toolName,
        arguments: parseToolInput(part.input, toolNames.has(part.toolName)),
      });
    }
  }
  return { text, reasoning, calls };
}

function parseToolInput(input: string, knownTool: boolean): unknown {
  if (knownTool && input.trim() === "") return {};
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return input;
  }
}

/** Usage of one call in the store's terms: input excludes cached tokens, which are counted apart. */
export function tokenUsage(u: LanguageModelV3Usage): Partial<TokenUsage> & { cache_write: number } {
  const cacheRead = u.inputTokens.cacheRead ?? 0;
  const cacheWrite = u.inputTokens.cacheWrite ?? 0;
  return {
    input: u.inputTokens.noCache ?? Math.max(0, (u.inputTokens.total ?? 0) - cacheRead - cacheWrite),
    output: u.outputTokens.total ?? 0,
    cache: cacheRead,
    cache_write: cacheWrite,
  };
}

/**
 * The assistant turn and its tool results as the model will see them next call. Reasoning is not
 * sent back (as before); a call the session did not run (a limit hit mid-turn) is answered as such.
 */
function turnMessages(text: string, calls: ModelTurn["calls"], step: StepResult): LanguageModelV3Message[] {
  return [
    {
      role: "assistant",
      content: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...calls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.id,
          toolName: c.name,
          input: c.arguments,
        })),
      ],
    },
    {
      role: "tool",
      content: calls.map((c, i) => {
        const r = step.results[i];
        const value = r?.content ?? "error: the call was not run";
        return {
          type: "tool-result" as const,
          toolCallId: c.id,
          toolName: c.name,
          output: r?.ok ? { type: "text" as const, value } : { type: "error-text" as const, value },
        };
      }),
    },
  ];
}
