import type { LanguageModelV3 } from "@ai-sdk/provider";
import { generateText, jsonSchema, type ModelMessage, type ToolSet, tool } from "ai";
import {
  type CallOutcome,
  callWithRetries,
  DEFAULT_RETRY_POLICY,
  type ModelCallControl,
} from "../run/model-call-retry.js";
import type { Agent, AgentFactory, AgentToolCall, TrialSession } from "./agent.js";

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

/** The model agent itself (it ignores the task: it only sees the session). */
export function modelAgent(options: ModelAgentOptions): Agent {
  const settings = options.settings ?? DEFAULT_MODEL_SETTINGS;
  const control: ModelCallControl = options.calls ?? { retry: DEFAULT_RETRY_POLICY };
  return {
    name: options.name,
    async attempt(session: TrialSession) {
      const tools = toolSet(session);
      const messages: ModelMessage[] = [{ role: "user", content: session.ticket }];
      while (!session.ended) {
        const out: CallOutcome<Awaited<ReturnType<typeof generateText>>> = await callWithRetries(
          (abortSignal) =>
            generateText({
              model: options.model,
              system: session.systemPrompt,
              messages,
              tools,
              temperature: settings.temperature,
              ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
              maxRetries: 0,
              abortSignal,
            }),
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
        const result = out.data;
        const u = result.usage;
        const cacheRead = u.inputTokenDetails?.cacheReadTokens ?? 0;
        const cacheWrite = u.inputTokenDetails?.cacheWriteTokens ?? 0;
        session.addUsage({
          input:
            u.inputTokenDetails?.noCacheTokens ?? Math.max(0, (u.inputTokens ?? 0) - cacheRead - cacheWrite),
          output: u.outputTokens ?? 0,
          cache: cacheRead,
          cache_write: cacheWrite,
        });
        if (session.ended) return;
        const text = result.text;
        const reasoning = result.reasoningText;
        const calls: AgentToolCall[] = result.toolCalls.map((c) => ({
          id: c.toolCallId,
          name: c.toolName,
          arguments: c.input,
        }));
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
        messages.push({
          role: "assistant",
          content: [
            ...(text ? [{ type: "text" as const, text }] : []),
            ...calls.map((c) => ({
              type: "tool-call" as const,
              toolCallId: c.id as string,
              toolName: c.name,
              input: c.arguments,
            })),
          ],
        });
        messages.push({
          role: "tool",
          content: calls.map((c, i) => {
            const r = step.results[i];
            const value = r?.content ?? "error: the call was not run";
            return {
              type: "tool-result" as const,
              toolCallId: c.id as string,
              toolName: c.name,
              output: r?.ok ? { type: "text" as const, value } : { type: "error-text" as const, value },
            };
          }),
        });
      }
    },
  };
}

/** The seven tools as AI SDK tools without `execute`: the loop runs them through the session. */
function toolSet(session: TrialSession): ToolSet {
  const tools: ToolSet = {};
  for (const t of session.tools) {
    tools[t.name] = tool({ description: t.description, inputSchema: jsonSchema(t.inputSchema) });
  }
  return tools;
}
