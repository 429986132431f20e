import type { JsonValue } from "../bank/json.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { ToolResult } from "../workspace/workspace.js";
import type { TokenUsage } from "./transcript-schema.js";

/** One tool call an agent wants to make. `id` is the provider's call id, when it has one. */
export interface AgentToolCall {
  id?: string;
  name: string;
  /** Arguments as the model produced them: an object, or a JSON string. */
  arguments: unknown;
}

/**
 * Why a trial stopped: `answered` (replied without a tool call), `clarify`, `report_blocked`, the
 * limits, `provider_error`, `agent_error` (the agent's own code threw or returned without ending the
 * trial: its failure, scored), `harness_error` (our code threw: a bug, never scored) and
 * `disconnected` (an agent over MCP went away without delivering its card). The one list that the
 * stored logs and queue jobs validate against.
 */
export const STOP_REASONS = [
  "answered",
  "clarify",
  "report_blocked",
  "tool_call_limit",
  "token_limit",
  "time_limit",
  "context_overflow",
  "provider_error",
  "agent_error",
  "harness_error",
  "disconnected",
] as const;

/** Why a trial stopped (see `STOP_REASONS`). */
export type StopReason = (typeof STOP_REASONS)[number];

export interface StepResult {
  results: ToolResult[];
  /** Set when this step ended the trial (an abstention or a limit); the agent must stop. */
  stopped: StopReason | null;
}

/**
 * What an agent sees of a trial: the ticket, the tool contract, and a way to act. Nothing about
 * the golden solution or the grader is reachable from here.
 */
export interface TrialSession {
  readonly systemPrompt: string;
  readonly ticket: string;
  readonly tools: ReadonlyArray<{ name: string; description: string; inputSchema: Record<string, unknown> }>;
  /** Aborted when a wall-time limit is reached or the run is cancelled. */
  readonly signal: AbortSignal;
  /**
   * One assistant turn: optional text (and reasoning), then tool calls run in order. The session
   * records the turn and the results in the transcript and checks the limits.
   */
  step(turn: { text?: string; reasoning?: string; toolCalls: AgentToolCall[] }): Promise<StepResult>;
  /** The final assistant message (it should hold the answer card). Ends the trial. */
  finish(text: string, reasoning?: string): void;
  /** Token usage of one model call, for limits and pricing. */
  addUsage(usage: Partial<TokenUsage> & { cache_write?: number }): void;
  /** Ends the trial with a stop reason from the agent's side (e.g. the provider kept failing). */
  abort(reason: StopReason, detail: string): void;
  /** True once the trial has ended for any reason. */
  readonly ended: boolean;
  /**
   * The agent shows its model another system text than `systemPrompt` (an agent over MCP is
   * shown the MCP server's instructions, never our system prompt): the transcript records that
   * text instead. Call it before the first step. Sessions that keep no transcript may omit it.
   */
  recordSystemPrompt?(text: string): void;
  /**
   * Certification's memo of golden runs (see `GoldenMemo`); absent everywhere else. Only the golden
   * interpreter uses it, and only to skip work whose outcome it already knows.
   */
  readonly goldenMemo?: GoldenMemo;
}

/**
 * A memo of golden runs a session may offer (certification's shared runner does): where another
 * trial already played the same golden steps from the same point (same world, workspace and
 * transcript so far), `playGolden` moves the session to where that trial reached instead of playing
 * the steps again. Steps are the same when they are the same objects.
 *
 * @example const run = session.goldenMemo?.begin(steps); // run?.played steps already played
 */
export interface GoldenMemo {
  /**
   * Starts a run of `steps` from the session's current point: the session is moved past the longest
   * prefix of `steps` another trial played from this point (`played` steps, with the bindings the
   * interpreter then held), and the run records how far this one gets. Undefined when the session
   * cannot be moved or recorded from here.
   */
  begin(steps: readonly GoldenStep[]): GoldenRun | undefined;
}

/** One `playGolden` run under a `GoldenMemo`. */
export interface GoldenRun {
  /** Steps of the run already played (the session is right after the last of them). */
  readonly played: number;
  /** The interpreter's bindings after those steps (a copy the run may change). */
  readonly bindings: Map<string, JsonValue>;
  /**
   * Step `played - 1` was played and the session is open: a later run with the same steps may skip
   * to here. `bound` is what the interpreter bound since the run began or since the last `reached`
   * (names and values, in order; a later one may bind a name again): its bindings here are the
   * run's first ones with these applied.
   */
  reached(played: number, bound: ReadonlyArray<readonly [string, JsonValue]>): void;
}

/**
 * An agent: anything that can attempt a trial through a `TrialSession`. Models, scripted agents,
 * exploits and external agents all implement this one interface.
 *
 * @example const blank: Agent = { name: "blank", attempt: async (s) => s.finish("") };
 */
export interface Agent {
  readonly name: string;
  attempt(session: TrialSession): Promise<void>;
}

/**
 * Builds the agent for one trial. Model agents ignore the task; scripted agents (golden, exploits)
 * are given it, because replaying or attacking a known task is what they are for.
 */
export interface AgentFactory {
  readonly name: string;
  forTask(task: import("../bank/task-schema.js").Task, context: { trialSeed: string }): Agent;
}
