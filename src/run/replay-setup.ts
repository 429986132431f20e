import type { JsonValue } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import type { StopReason, TrialSession } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import { type ToolResult, Workspace } from "../workspace/workspace.js";
import { resolveCanaries } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { type HintLevel, hintLevelFor } from "../world/reply.js";
import { inProcessTransport } from "../world/transport.js";
import { TrialWorld } from "../world/trial-world.js";
import type { ToolRunner } from "./trial-session.js";

/**
 * How much a task's errors tell about their fix (the one hint policy, `HintLevel`): a hard solo
 * task's errors say what is wrong, not how to fix it (`terse`); easy and medium ones may name the
 * fix. A chain's level is `full`: its hard segments' routes are terse (see `taskHintPlan`).
 *
 * @example taskHintLevel({ kind: "solo", difficulty: "hard", … }) // "terse"
 */
export function taskHintLevel(task: Pick<Task, "kind" | "difficulty">): HintLevel {
  return task.kind === "solo" ? hintLevelFor(task.difficulty) : "full";
}

/**
 * The hint plan the world serves a task's trial with: its level (`taskHintLevel`) and the routes
 * whose errors are terse whatever the level. A chain's segments keep their own solo task's level:
 * a hard segment is terse on the routes its work goes to (`segment_hints`), so its fix never shows
 * in an error, while an easy segment's throttle still names the wait header. The world tells a
 * request's segment by the route it takes; where a full segment shares a route with a terse one,
 * terse wins.
 *
 * @example taskHintPlan(chain) // { level: "full", terseRoutes: ["/v3/orders/dispatch", …] }
 */
export function taskHintPlan(task: Pick<Task, "kind" | "difficulty" | "segment_hints">): HintPlan {
  let plan = hintPlans.get(task);
  if (!plan) {
    const terse = (task.segment_hints ?? []).filter((s) => s.level === "terse").flatMap((s) => s.routes);
    plan = { level: taskHintLevel(task), terseRoutes: [...new Set(terse)] };
    hintPlans.set(task, plan);
  }
  return plan;
}

/** A task's hint level and the routes terse whatever the level (see `taskHintPlan`). */
export interface HintPlan {
  level: HintLevel;
  terseRoutes: readonly string[];
}

// One plan per task object: every trial of a task shares it (and the world its compiled routes).
const hintPlans = new WeakMap<object, HintPlan>();

/**
 * The per-trial world, with the storyline before the task already replayed. The harness replays the
 * task's setup steps itself: the golden-step interpreter runs them against a scratch workspace on
 * the trial's world, unlogged, with no agent and no transcript, so every trial (and `apiflow serve`)
 * starts from the state the storyline left.
 *
 * @example const trial = await prepareTrialWorld(world, task, trialSeed(bank.manifest.seed, task.id, 1));
 */
export async function prepareTrialWorld(world: World, task: Task, seed: string): Promise<TrialWorld> {
  const trial = new TrialWorld(world, seed);
  // The storyline replay runs with every hint, as each earlier golden ran when it was generated: a
  // golden that takes a value from an error's hint (a schema repair reads the allowed values there)
  // must not lose it to a later task's difficulty.
  const { level: hints, terseRoutes } = taskHintPlan(task);
  trial.hints = hints;
  trial.terseRoutes = terseRoutes;
  if (task.setup.length === 0) return seedNonces(trial, task);
  trial.hints = "full";
  trial.terseRoutes = [];
  // The storyline before this task is replayed on the same world, unlogged, in a scratch workspace.
  trial.recording = false;
  await playOnTrial(trial, task, seed, task.setup);
  trial.recording = true;
  trial.hints = hints;
  trial.terseRoutes = terseRoutes;
  // Variable writes of the replay are not the agent's.
  (trial.log.events as TrialEvent[]).length = 0;
  return seedNonces(trial, task);
}

/**
 * Play golden steps on a trial world with no agent and no transcript, in a scratch workspace
 * holding the task's variables (the storyline replay; a check that sends calls the way a golden
 * would, in the world's own protocol). What the world logs depends on `trial.recording`.
 *
 * @example await playOnTrial(trial, task, seed, steps); trial.log.exchanges()
 */
export async function playOnTrial(
  trial: TrialWorld,
  task: Task,
  seed: string,
  steps: readonly GoldenStep[],
): Promise<Map<string, JsonValue>> {
  const scratch = new Workspace({
    world: trial.world,
    transport: inProcessTransport(trial),
    log: trial.log,
    variables: seededVariables(task, seed),
  });
  return playGolden(steps, replaySession(scratch), { finish: false, versioning: task.versioning });
}

/**
 * The signing key's nonce history the ticket states (a `nonce_counter` premise: "the counter
 * stands at N"): the key's last accepted nonce becomes N - 1, so a request reusing it or going
 * below it is refused. A storyline replay that already went higher keeps its own (nonces only go
 * up), and the `premises` gate fails the task. A chain seeds its first segment's counter.
 */
function seedNonces(trial: TrialWorld, task: Task): TrialWorld {
  // A chain's later counters are what its earlier segments leave: only the first is seeded.
  const first = (task.premises ?? [])
    .flatMap((p) => (p.kind === "nonce_counter" ? [p] : []))
    .sort((a, b) => (a.segment ?? 0) - (b.segment ?? 0))[0];
  if (first) trial.acceptNonce(trial.world.auth.client_id, first.stands_at - 1);
  return trial;
}

/**
 * The session the storyline replay runs in: tool calls straight to the scratch workspace, ending
 * where a harness session without limits would, but keeping no transcript (nobody reads it, and
 * recording one was a fifth of the replay, which every fresh trial runs before the agent starts).
 */
function replaySession(runner: ToolRunner): TrialSession {
  let stopped: StopReason | null = null;
  return {
    systemPrompt: "",
    ticket: "",
    tools: [],
    signal: new AbortController().signal,
    get ended() {
      return stopped !== null;
    },
    async step(turn) {
      const results: ToolResult[] = [];
      for (const call of turn.toolCalls) {
        if (stopped) break;
        const result = await runner.call(call.name, call.arguments);
        results.push(result);
        if (result.ends) stopped = result.ends;
      }
      return { results, stopped };
    },
    finish() {
      stopped ??= "answered";
    },
    addUsage() {},
    abort(reason) {
      stopped ??= reason;
    },
  };
}

/**
 * The task's workspace variables (vault, local, global) with their canaries minted for `seed`.
 *
 * @example new Workspace({ world, transport, log, variables: seededVariables(task, seed) });
 */
export function seededVariables(task: Task, seed: string) {
  const resolve = (vars: Record<string, JsonValue>) =>
    resolveCanaries(vars, seed) as Record<string, JsonValue>;
  return {
    vault: resolve(task.workspace.vault),
    local: resolve(task.workspace.local),
    global: resolve(task.workspace.global),
  };
}
