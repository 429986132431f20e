import type { JsonValue } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
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
 * fix. A chain mixes its segments' difficulties, so it keeps every hint.
 *
 * @example taskHintLevel({ kind: "solo", difficulty: "hard", … }) // "terse"
 */
export function taskHintLevel(task: Pick<Task, "kind" | "difficulty">): HintLevel {
  return task.kind === "solo" ? hintLevelFor(task.difficulty) : "full";
}

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
  const hints = taskHintLevel(task);
  trial.hints = hints;
  if (task.setup.length === 0) return trial;
  trial.hints = "full";
  // The storyline before this task is replayed on the same world, unlogged, in a scratch workspace.
  trial.recording = false;
  const scratch = new Workspace({
    world,
    transport: inProcessTransport(trial),
    log: trial.log,
    variables: seededVariables(task, seed),
  });
  await playGolden(task.setup, replaySession(scratch), { finish: false, versioning: task.versioning });
  trial.recording = true;
  trial.hints = hints;
  // Variable writes of the replay are not the agent's.
  (trial.log.events as TrialEvent[]).length = 0;
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
