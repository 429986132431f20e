import type { AgentToolCall, StepResult, StopReason, TrialSession } from "../trial/agent.js";
import type { StepHistory, StopCondition } from "../trial/stop-conditions.js";
import type { TokenUsage, TranscriptMessage } from "../trial/transcript-schema.js";
import { toolJsonSchemas } from "../workspace/tool-definitions.js";
import { withLazyProperty } from "../workspace/tool-result.js";
import type { ToolResult, Workspace } from "../workspace/workspace.js";

/**
 * The tool contract is static, and rendering its JSON Schemas is about a millisecond of zod work,
 * the largest harness cost of a short trial: render once per process, share across sessions.
 */
let toolSchemas: ReturnType<typeof toolJsonSchemas> | undefined;
function sharedToolSchemas(): ReturnType<typeof toolJsonSchemas> {
  if (!toolSchemas) toolSchemas = toolJsonSchemas();
  return toolSchemas;
}

/** A session's transcript length and counters (see `HarnessSession.position`). */
export interface SessionPosition {
  messages: number;
  toolCalls: number;
  callSeq: number;
  tokens: number;
}

/**
 * The transcript message of a tool result. Its content is the result's, read when the message's
 * is: a result may write its text only when first read (see `okKept`), and certification's trials
 * read few of them.
 */
function toolMessage(result: ToolResult, id: string, name: string): TranscriptMessage {
  const message = { role: "tool" } as TranscriptMessage;
  messageResults.set(message, result);
  withLazyProperty(message, "content", resultContent);
  message.tool_call_id = id;
  message.function = name;
  if (result.error) message.error = { type: result.error.code, message: result.error.message };
  return message;
}

const messageResults = new WeakMap<object, ToolResult>();

function resultContent(this: object): string {
  return (messageResults.get(this) as ToolResult).content;
}

/** What a session sends tool calls to: a `Workspace`, or certification's forking stand-in for one. */
export type ToolRunner = Pick<Workspace, "call">;

/**
 * The harness side of a trial: it runs the agent's tool calls against the workspace, records the
 * transcript in the 1.0 message layout, applies the stop conditions, and knows how the trial ended.
 */
export class HarnessSession implements TrialSession {
  readonly tools = sharedToolSchemas();
  readonly messages: TranscriptMessage[];
  readonly usage: TokenUsage & { cache_write: number } = {
    input: 0,
    output: 0,
    cache: 0,
    total: 0,
    cache_write: 0,
  };
  finalMessage: string | null = null;
  stopReason: StopReason | null = null;
  stopDetail = "";
  private toolCalls = 0;
  private callSeq = 0;
  private readonly started: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly workspace: ToolRunner,
    readonly systemPrompt: string,
    readonly ticket: string,
    private readonly conditions: StopCondition[],
    options: { maxSeconds?: number; now?: () => number } = {},
  ) {
    this.now = options.now ?? (() => performance.now());
    this.started = this.now();
    this.messages = [
      { role: "system", content: systemPrompt },
      { role: "user", content: ticket },
    ];
    if (options.maxSeconds) {
      this.timer = setTimeout(() => {
        this.end("time_limit", `wall time limit of ${options.maxSeconds}s reached`);
        this.controller.abort(new Error("time_limit"));
      }, options.maxSeconds * 1000);
      this.timer.unref();
    }
  }

  private readonly now: () => number;

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get ended(): boolean {
    return this.stopReason !== null;
  }

  get toolCallCount(): number {
    return this.toolCalls;
  }

  async step(turn: { text?: string; reasoning?: string; toolCalls: AgentToolCall[] }): Promise<StepResult> {
    if (this.ended) return { results: [], stopped: this.stopReason };
    const calls = turn.toolCalls.map((c) => ({
      ...c,
      id: c.id ?? `call_${String(++this.callSeq).padStart(4, "0")}`,
    }));
    const content: Array<{ type: string; text?: string; reasoning?: string }> = [];
    if (turn.reasoning) content.push({ type: "reasoning", reasoning: turn.reasoning });
    if (turn.text) content.push({ type: "text", text: turn.text });
    this.messages.push({
      role: "assistant",
      content,
      tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })),
    });
    const results: ToolResult[] = [];
    for (const call of calls) {
      if (this.ended) break;
      this.toolCalls += 1;
      const limit = this.check();
      if (limit) {
        this.end(limit, `limit reached before ${call.name}`);
        break;
      }
      let result: ToolResult;
      try {
        result = await this.workspace.call(call.name, call.arguments);
      } catch (e) {
        // The workspace answers every bad call with a result; a throw is our bug, not the agent's.
        this.end(
          "harness_error",
          `harness threw in ${call.name}: ${e instanceof Error ? e.message : String(e)}`,
        );
        throw e;
      }
      results.push(result);
      this.messages.push(toolMessage(result, call.id, call.name));
      if (result.ends) this.end(result.ends, result.content);
    }
    return { results, stopped: this.stopReason };
  }

  finish(text: string, reasoning?: string): void {
    if (this.ended) return;
    const content: Array<{ type: string; text?: string; reasoning?: string }> = [];
    if (reasoning) content.push({ type: "reasoning", reasoning });
    content.push({ type: "text", text });
    this.messages.push({ role: "assistant", content });
    this.finalMessage = text;
    this.end("answered", "");
  }

  addUsage(usage: Partial<TokenUsage> & { cache_write?: number }): void {
    this.usage.input += usage.input ?? 0;
    this.usage.output += usage.output ?? 0;
    this.usage.cache += usage.cache ?? 0;
    this.usage.cache_write += usage.cache_write ?? 0;
    this.usage.total = this.usage.input + this.usage.output + this.usage.cache + this.usage.cache_write;
    const limit = this.check();
    if (limit) this.end(limit, "limit reached after a model call");
  }

  abort(reason: StopReason, detail: string): void {
    this.end(reason, detail);
  }

  recordSystemPrompt(text: string): void {
    // The transcript opens with the system message (see the constructor).
    this.messages[0] = { role: "system", content: text };
  }

  /**
   * Where the session is: how long its transcript is, and its counters. Certification's golden memo
   * keeps the messages a span of calls appended, and `replay`s them in a session at the same point.
   */
  position(): SessionPosition {
    return {
      messages: this.messages.length,
      toolCalls: this.toolCalls,
      callSeq: this.callSeq,
      tokens: this.usage.total,
    };
  }

  /**
   * Moves an open session at `from` (equal to its `position()`) to `to`, appending `messages`: what
   * another session at the same point recorded between the two while its calls got the results
   * this one's would (no limit fired, nothing ended it). Returns false, changing nothing, when this
   * session is not at `from` or has ended.
   */
  replay(from: SessionPosition, to: SessionPosition, messages: readonly TranscriptMessage[]): boolean {
    const at = this.position();
    if (
      this.ended ||
      at.messages !== from.messages ||
      at.toolCalls !== from.toolCalls ||
      at.callSeq !== from.callSeq ||
      at.tokens !== from.tokens ||
      to.tokens !== from.tokens ||
      to.messages - from.messages !== messages.length
    )
      return false;
    this.messages.push(...messages);
    this.toolCalls = to.toolCalls;
    this.callSeq = to.callSeq;
    return true;
  }

  /** Seconds since the session started. */
  elapsedSeconds(): number {
    return (this.now() - this.started) / 1000;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  private history(): StepHistory {
    return { toolCalls: this.toolCalls, tokens: this.usage.total, elapsedMs: this.now() - this.started };
  }

  private check(): StopReason | null {
    const h = this.history();
    for (const condition of this.conditions) {
      const r = condition(h);
      if (r) return r;
    }
    return null;
  }

  private end(reason: StopReason, detail: string): void {
    if (this.stopReason !== null) return;
    this.stopReason = reason;
    this.stopDetail = detail;
    if (this.timer) clearTimeout(this.timer);
  }
}
