import type { Bank } from "../bank/bank.js";
import type { JsonObject } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import { type GradeInput, gradeTrial, ungradedFail } from "../grade/grade-trial.js";
import type { AgentFactory, StopReason } from "../trial/agent.js";
import { DEFAULT_LIMITS, stopConditions, type TrialLimits } from "../trial/stop-conditions.js";
import { SYSTEM_PROMPT } from "../trial/system-prompt.js";
import type { TokenUsage, TranscriptMessage } from "../trial/transcript-schema.js";
import { Workspace } from "../workspace/workspace.js";
import { trialSeed as deriveTrialSeed } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { inProcessTransport, type WorldTransport } from "../world/transport.js";
import type { TrialWorld } from "../world/trial-world.js";
import { prepareTrialWorld, seededVariables } from "./replay-setup.js";
import { gradedSegmentsOf } from "./stored-trial-log.js";
import { HarnessSession, type ToolRunner } from "./trial-session.js";

/** How a trial ended, for the store and the analysis; the last two are not scored. */
export type TrialOutcomeKind =
  | "pass"
  | "fail"
  | "abstained"
  | "limit"
  | "context_overflow"
  | "agent_error"
  | "provider_error"
  | "harness_error";

export interface TrialResult {
  task_id: string;
  epoch: number;
  agent: string;
  trial_seed: string;
  outcome: TrialOutcomeKind;
  stop_reason: StopReason;
  stop_detail: string;
  grade: TrialGrade;
  messages: TranscriptMessage[];
  events: readonly TrialEvent[];
  /** The final message the grader read (null without one); absent where the harness had none to give. */
  final_message?: string | null;
  /** The world's records when the trial ended, by resource; absent when the backend cannot tell. */
  final_records?: Record<string, JsonObject[]>;
  /** The records deleted during the trial (setup replay included), by resource; absent when unknown. */
  removed_records?: Record<string, JsonObject[]>;
  tokens: TokenUsage & { cache_write: number };
  tool_calls: number;
  duration_s: number;
}

export interface RunTrialOptions {
  bank: Bank;
  task: Task;
  agent: AgentFactory;
  epoch: number;
  /** The run's salt (enters every canary); default none, as certification runs. */
  salt?: string;
  limits?: TrialLimits;
  /** Use another transport (e.g. HTTP to a served world); default is in-process. */
  transport?: (trial: TrialWorld) => WorldTransport;
  /**
   * Where the trial's tool calls go and its event log is read from; default a fresh world with the
   * storyline replayed and a fresh workspace. Certification passes a backend that forks recorded
   * states of the same trial seed (same answers, same log), so it need not replay them again.
   */
  backend?: (seed: string) => Promise<TrialBackend>;
  /**
   * How the trial is graded; default `gradeTrial`. Certification passes a memo of it: its trials
   * of one seed that end in the same log with the same final message (the chain gate's `decoy@N`
   * and the triad's `decoy_route@N`) are graded once.
   */
  grade?: (input: GradeInput) => TrialGrade;
}

/**
 * A trial's world and workspace as the harness sees them: tool calls in, the event log out.
 *
 * @example const backend: TrialBackend = { call: (n, a) => ws.call(n, a), events: () => trial.log.events };
 */
export interface TrialBackend extends ToolRunner {
  events(): readonly TrialEvent[] | Promise<readonly TrialEvent[]>;
  /** The world's records at the end of the trial (kept in the stored event log). */
  finalRecords?(): Record<string, JsonObject[]>;
  /** The records deleted during the trial (setup replay included), by resource. */
  removedRecords?(): Record<string, JsonObject[]>;
}

/** The default backend: a fresh trial world (storyline replayed) and workspace for `seed`. */
export async function freshBackend(
  world: World,
  task: Task,
  seed: string,
  transportFor?: (trial: TrialWorld) => WorldTransport,
): Promise<TrialBackend & { trial: TrialWorld; workspace: Workspace }> {
  const trial = await prepareTrialWorld(world, task, seed);
  const workspace = new Workspace({
    world,
    transport: transportFor ? transportFor(trial) : inProcessTransport(trial),
    log: trial.log,
    variables: seededVariables(task, seed),
  });
  return {
    trial,
    workspace,
    call: (name, args) => workspace.call(name, args),
    events: () => trial.log.events,
    finalRecords: () => Object.fromEntries(trial.records),
    removedRecords: () => Object.fromEntries(trial.removed),
  };
}

/**
 * Run one trial end to end: world, workspace, agent, grade. Never throws for an agent's mistake;
 * an exception inside the harness is recorded as `harness_error`.
 *
 * @example const r = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
 */
export async function runTrial(options: RunTrialOptions): Promise<TrialResult> {
  const { bank, task, agent, epoch } = options;
  const limits = options.limits ?? DEFAULT_LIMITS;
  const world = bank.worlds.find((w) => w.id === task.world);
  if (!world) throw new Error(`task ${task.id} names unknown world ${task.world}`);
  const seed = deriveTrialSeed(bank.manifest.seed, task.id, epoch, options.salt);
  const started = performance.now();
  const backend = options.backend
    ? await options.backend(seed)
    : await freshBackend(world, task, seed, options.transport);
  const session = new HarnessSession(backend, SYSTEM_PROMPT, task.ticket, stopConditions(limits), {
    maxSeconds: limits.maxSeconds,
  });
  try {
    await agent.forTask(task, { trialSeed: seed }).attempt(session);
    if (!session.ended) session.abort("agent_error", "the agent returned without finishing the trial");
  } catch (e) {
    // The agent's own exception is its failure (scored); an exception our session raised inside
    // its call has already ended the trial as harness_error, and `abort` keeps the first reason.
    session.abort("agent_error", `agent threw: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    session.dispose();
  }
  const events = await backend.events();
  const finalRecords = backend.finalRecords?.();
  const removedRecords = backend.removedRecords?.();
  const gradedSegments = gradedSegmentsOf(task);
  const graded = (options.grade ?? gradeTrial)({
    grader: task.grader,
    ...(gradedSegments ? { gradedSegments } : {}),
    trialSeed: seed,
    events,
    finalMessage: session.finalMessage,
    ...(finalRecords ? { finalRecords } : {}),
    ...(removedRecords ? { removedRecords } : {}),
    ...(task.requirements ? { requirements: task.requirements } : {}),
  });
  const stop = session.stopReason ?? "harness_error";
  // The card of an agent that crashed is not graded as delivered: it scores 0 whatever it wrote.
  // (A copy: certification's grade memo may share the object.)
  const grade = stop === "agent_error" && graded.passed ? { ...graded, passed: false } : graded;
  return {
    task_id: task.id,
    epoch,
    agent: agent.name,
    trial_seed: seed,
    outcome: outcomeOf(stop, grade.passed),
    stop_reason: stop,
    stop_detail: session.stopDetail,
    grade,
    messages: session.messages,
    events,
    final_message: session.finalMessage,
    ...(finalRecords ? { final_records: finalRecords } : {}),
    ...(removedRecords ? { removed_records: removedRecords } : {}),
    tokens: session.usage,
    tool_calls: session.toolCallCount,
    duration_s: (performance.now() - started) / 1000,
  };
}

/**
 * The result of a trial the harness itself could not run (an exception outside the agent): counted
 * as `harness_error`, never scored, so one broken trial does not stop the grid.
 *
 * @example harnessErrorResult(task, 1, "golden", seed, new Error("boom")).outcome // "harness_error"
 */
export function harnessErrorResult(
  task: Task,
  epoch: number,
  agent: string,
  seed: string,
  error: unknown,
): TrialResult {
  const detail = `harness threw: ${error instanceof Error ? error.message : String(error)}`;
  return {
    task_id: task.id,
    epoch,
    agent,
    trial_seed: seed,
    outcome: "harness_error",
    stop_reason: "harness_error",
    stop_detail: detail,
    grade: ungradedFail(detail),
    messages: [
      { role: "system", content: SYSTEM_PROMPT },
      { role: "user", content: task.ticket },
    ],
    events: [],
    tokens: { input: 0, output: 0, cache: 0, total: 0, cache_write: 0 },
    tool_calls: 0,
    duration_s: 0,
  };
}

export function outcomeOf(stop: StopReason, passed: boolean): TrialOutcomeKind {
  switch (stop) {
    case "answered":
      return passed ? "pass" : "fail";
    case "clarify":
    case "report_blocked":
      return "abstained";
    case "tool_call_limit":
    case "token_limit":
    case "time_limit":
      return "limit";
    // Leaving without a delivery is the agent's failure, graded (and scored) like a missing card.
    case "disconnected":
      return passed ? "pass" : "fail";
    default:
      return stop;
  }
}
