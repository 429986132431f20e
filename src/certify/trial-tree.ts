import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { gradeConstraint } from "../grade/grade-g1.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import {
  type GradeInput,
  type GradeOptions,
  gradeTrial,
  ungradedFail,
  VERDICT_ONLY_FAIL,
} from "../grade/grade-trial.js";
import { prepareTrialWorld } from "../run/replay-setup.js";
import { freshBackend, runTrial, type TrialBackend, type TrialResult } from "../run/run-trial.js";
import { HarnessSession, type SessionPosition } from "../run/trial-session.js";
import type { AgentFactory, GoldenMemo, TrialSession } from "../trial/agent.js";
import type { TranscriptMessage } from "../trial/transcript-schema.js";
import type { ToolResult, Workspace } from "../workspace/workspace.js";
import { trialSeed } from "../world/canary.js";
import type { TrialEvent } from "../world/event-log.js";
import { inProcessTransport } from "../world/transport.js";
import type { TrialWorld } from "../world/trial-world.js";
import { worldOf } from "./certify-kit.js";

/**
 * How the gates run a trial of `agent` on `task` at `epoch` (default 1) through the real harness,
 * and say when they are done with a task (its recorded states can go).
 *
 * @example const r = await runner.run(task, goldenAgentFactory); runner.release(task);
 */
export interface TrialRunner {
  run(task: Task, agent: AgentFactory, epoch?: number, options?: RunOptions): Promise<TrialResult>;
  release(task: Task): void;
  /**
   * A world of its own in the state every epoch-1 trial of `task` starts from (the storyline
   * replayed, no call made), for checks that send calls outside a trial (see `startWorld`).
   */
  startWorld?(task: Task): Promise<TrialWorld>;
}

/**
 * `runner.startWorld(task)`, or where the runner has none a fresh trial world of the task's epoch-1
 * seed with the storyline replayed: the shared runner forks the one its trials of the task start
 * from instead of replaying the storyline again.
 *
 * @example const trial = await startWorld(bank, task, runner); await inProcessTransport(trial)(request)
 */
export function startWorld(bank: Bank, task: Task, runner?: TrialRunner): Promise<TrialWorld> {
  return (
    runner?.startWorld?.(task) ??
    prepareTrialWorld(worldOf(bank, task), task, trialSeed(bank.manifest.seed, task.id, 1))
  );
}

/** How one trial may be run. */
export interface RunOptions {
  /**
   * The caller reads only whether the trial passed, and expects a fail: the runner may stop the
   * trial as soon as its log breaks a forbid constraint of the task's grader. The log only grows
   * and one forbidden call fails the verdict, so the verdict is the whole trial's; the log,
   * transcript and stop reason are the shortened trial's. Sabotaged exams, decoy replays and
   * exploits opt in: most of them call a decoy route early, then play the rest of the golden.
   */
  failFast?: boolean;
  /**
   * What the trial does, when the caller can name it (e.g. the golden edited in one step, then its
   * card): trials of the same task at epoch 1 with the same `sameAs` (and `failFast`) make the same
   * calls and end with the same message, so the runner may run the first and hand its result to
   * the rest (the chain gate's `decoy@N` is the triad's `decoy_route@N`). The result keeps the first
   * trial's agent name.
   */
  sameAs?: string;
}

/**
 * Every trial from scratch: a fresh world (storyline replayed), workspace and grader. The
 * reference the shared runner is tested against.
 *
 * @example await freshTrials(bank).run(task, goldenAgentFactory)
 */
export function freshTrials(bank: Bank): TrialRunner {
  return {
    run: (task, agent, epoch = 1) => runTrial({ bank, task, agent, epoch }),
    release: () => {},
  };
}

interface State {
  trial: TrialWorld;
  workspace: Workspace;
}

/** A tool-call sequence of one trial seed: the call that led here, its result, what followed. */
interface Node {
  parent: Node | null;
  /**
   * The call that led here: its name and `callKey` (whose JSON part is an exact copy of its
   * arguments, parsed back only when a state is rebuilt); null at the root.
   */
  call: { name: string; key: string } | null;
  result: ToolResult | null;
  children: Map<string, Node>;
  /** The world and workspace right after the call, kept pristine: forked before any use. */
  state: State | null;
  /** Whether the log up to this call breaks a forbid constraint of the task's grader. */
  violated: boolean;
  /** Golden runs played from here, by the session's position then (see `goldenMemo`). */
  runs?: Map<string, RunPoint>;
}

/**
 * A point of the golden runs played from one tree node and session position: a trie of golden
 * steps (the same step objects), each point the node the trial was at after the step, the
 * session's position, the messages the step appended and what the interpreter bound in it (its
 * bindings at a point are those of every step from the root, applied in order: `bindingsAt`).
 */
interface RunPoint {
  node: Node;
  position: SessionPosition;
  messages: TranscriptMessage[];
  bound: ReadonlyArray<readonly [string, JsonValue]>;
  parent: RunPoint | null;
  next: Map<GoldenStep, RunPoint>;
}

/** A trial's backend in the tree, with where it is (for the golden memo). */
interface TreeBackend extends TrialBackend {
  /** The node the trial is at, and whether it runs on a live state; null once off the tree. */
  point(): { node: Node; live: boolean } | null;
  /** Moves a trial that runs on no live state to `node`, a descendant of where it is. */
  jump(node: Node): void;
}

function fork(state: State): State {
  const trial = state.trial.fork();
  const workspace = state.workspace.fork({ transport: inProcessTransport(trial), log: trial.log });
  return { trial, workspace };
}

/**
 * The canonical text of tool-call arguments, or null when JSON would not keep them exactly
 * (undefined members, NaN, -0, non-plain objects): such a call is never shared.
 */
function callKey(name: string, args: unknown): string | null {
  return keptByJson(args) ? `${name}\u0000${JSON.stringify(args)}` : null;
}

/** Whether `JSON.parse(JSON.stringify(v))` is `v` again, exactly. */
function keptByJson(v: unknown): boolean {
  if (v === null || typeof v === "string" || typeof v === "boolean") return true;
  if (typeof v === "number") return Number.isFinite(v) && !Object.is(v, -0);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (i in v && !keptByJson(v[i])) return false;
    return true;
  }
  if (typeof v === "object") {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || !keptByJson(x)) return false;
    }
    return true;
  }
  return false;
}

/**
 * Every trial of one task at one trial seed, as a tree of tool-call sequences. The world and the
 * workspace are deterministic functions of the seed and the calls made, so a trial whose calls
 * so far equal an earlier trial's gets that trial's recorded results, and where it first differs
 * it continues on a fork of the state the earlier trial had reached. The storyline before the task
 * is replayed once per seed, and a sabotaged golden run replays only from its sabotaged step. The
 * first trial (the golden reference) keeps a state after each call, every trial the state it ended
 * in; a later branch point without one is rebuilt from the nearest kept state by re-sending the
 * recorded calls. Trials that end in the same kept state with the same final message share a grade.
 * Golden steps a trial plays the way an earlier trial did from the same point are not played again
 * (see `goldenMemo`): the trial moves to where the earlier one got.
 */
class TrialTree {
  private root: Promise<Node> | null = null;
  private trials = 0;
  /** Grades by final log (append-only, so its array and length name its events) and final message. */
  private readonly grades = new WeakMap<readonly TrialEvent[], Map<string, TrialGrade>>();

  constructor(
    private readonly bank: Bank,
    private readonly task: Task,
    private readonly seed: string,
  ) {}

  private rootNode(): Promise<Node> {
    this.root ??= freshBackend(worldOf(this.bank, this.task), this.task, this.seed).then((b) => ({
      parent: null,
      call: null,
      result: null,
      children: new Map(),
      state: { trial: b.trial, workspace: b.workspace },
      violated: false,
    }));
    return this.root;
  }

  /** A fork of the world the trials start from (the root's, never written). */
  async startWorld(): Promise<TrialWorld> {
    const root = await this.rootNode();
    return (root.state as State).trial.fork();
  }

  /** Whether events a call appended break a forbid constraint (each is judged on one call alone). */
  private violates(events: readonly TrialEvent[]): boolean {
    if (events.length === 0) return false;
    return this.task.grader.constraints.some((c) => gradeConstraint(c, events).violated);
  }

  /** A fork of the state right after `node`'s call (rebuilt from the nearest kept state if need be). */
  private async materialize(node: Node): Promise<State> {
    if (node.state) return fork(node.state);
    const path: Node[] = [];
    let at: Node | null = node;
    while (at && !at.state) {
      path.push(at);
      at = at.parent;
    }
    if (!at?.state) throw new Error("trial tree: the root has no state");
    const state = fork(at.state);
    for (const step of path.reverse()) {
      const call = step.call as NonNullable<Node["call"]>;
      await state.workspace.call(call.name, JSON.parse(call.key.slice(call.name.length + 1)));
    }
    // Where one later trial branched, others tend to: keep this state too.
    node.state = fork(state);
    return state;
  }

  /**
   * `gradeTrial` for this tree's trials (one task, grader and seed): a trial that ends in a log
   * another one ended in (a kept state's, read by both) with the same final message gets its grade.
   * A verdict-only grade (`GradeOptions.verdictOnly`) is shared only with verdict-only callers; a
   * full one with every caller.
   */
  grade(input: GradeInput, options: GradeOptions = {}): TrialGrade {
    let byEnd = this.grades.get(input.events);
    if (!byEnd) {
      byEnd = new Map();
      this.grades.set(input.events, byEnd);
    }
    const key = `${input.events.length}\u0000${JSON.stringify(input.finalMessage)}`;
    let grade = byEnd.get(key);
    if (!grade && options.verdictOnly) grade = byEnd.get(`verdict\u0000${key}`);
    if (!grade) {
      grade = gradeTrial(input, options);
      byEnd.set(grade.failure_reason === VERDICT_ONLY_FAIL ? `verdict\u0000${key}` : key, grade);
    }
    return grade;
  }

  /**
   * A backend for the next trial of this tree. `watch.violated` turns true once the trial's log
   * breaks a forbid constraint (see `RunOptions.failFast`).
   */
  async backend(watch?: { violated: boolean }): Promise<TreeBackend> {
    const keepStates = this.trials === 0;
    this.trials += 1;
    let cursor = await this.rootNode();
    let live: State | null = null;
    let offTree = false;
    let violated = false;
    return {
      call: async (name, args) => {
        const key = offTree ? null : callKey(name, args);
        if (!live) {
          const known = key === null ? undefined : cursor.children.get(key);
          if (known?.result) {
            cursor = known;
            violated = known.violated;
            if (watch) watch.violated = violated;
            return known.result;
          }
          live = await this.materialize(cursor);
        }
        const logged = live.trial.log.events.length;
        const result = await live.workspace.call(name, args);
        violated ||= this.violates(live.trial.log.events.slice(logged));
        if (watch) watch.violated = violated;
        if (key === null) offTree = true;
        if (!offTree) {
          const node: Node = {
            parent: cursor,
            call: { name, key: key as string },
            result,
            children: new Map(),
            state: keepStates ? fork(live) : null,
            violated,
          };
          cursor.children.set(key as string, node);
          cursor = node;
        }
        return result;
      },
      events: async () => {
        if (live) {
          // The trial is over, so its live state is never written again: keep it as the state of
          // its last recorded call, so that a later trial with the same calls (the chain gate's
          // `decoy@N` is the triad's `decoy_route@N`) reads this log instead of rebuilding it by
          // re-sending every call from the nearest kept state.
          if (!offTree && !cursor.state) cursor.state = live;
          return live.trial.log.events;
        }
        // Every call was a recorded one: the log is the recorded state's (read, never written).
        if (!cursor.state) cursor.state = await this.materialize(cursor);
        return cursor.state.trial.log.events;
      },
      // The world's records when the trial ended, from the state its log was read from.
      finalRecords: () => {
        const state = live ?? cursor.state;
        return state ? Object.fromEntries(state.trial.records) : {};
      },
      removedRecords: () => {
        const state = live ?? cursor.state;
        return state ? Object.fromEntries(state.trial.removed) : {};
      },
      point: () => (offTree ? null : { node: cursor, live: live !== null }),
      jump: (node) => {
        if (live || offTree) throw new Error("trial tree: only a trial on recorded calls can jump");
        cursor = node;
        violated = node.violated;
        if (watch) watch.violated = violated;
      },
    };
  }
}

const positionKey = (p: SessionPosition) => `${p.messages}/${p.toolCalls}/${p.callSeq}/${p.tokens}`;

/** The points from `root` (left out) to `point`, in order. */
function pointsBetween(root: RunPoint, point: RunPoint): RunPoint[] {
  const points: RunPoint[] = [];
  for (let at: RunPoint | null = point; at && at !== root; at = at.parent) points.push(at);
  return points.reverse();
}

/** The messages appended from `root` to `point`, in order. */
function messagesBetween(root: RunPoint, point: RunPoint): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  for (const at of pointsBetween(root, point)) for (const m of at.messages) messages.push(m);
  return messages;
}

/** The interpreter's bindings at `point` (a run's bindings start empty at its root). */
function bindingsAt(root: RunPoint, point: RunPoint): Map<string, JsonValue> {
  const bindings = new Map<string, JsonValue>();
  for (const at of pointsBetween(root, point))
    for (const [name, value] of at.bound) bindings.set(name, value);
  return bindings;
}

/**
 * The golden memo of one trial (see `GoldenMemo`): golden steps another trial of the tree played
 * from the same node and session position got the same results (the node names every call made so
 * far, and the results are a function of them), appended the same messages and left the
 * interpreter the same bindings. So a trial that has made only recorded calls skips them: its
 * session gets those messages and counters, its backend the node they led to. A span that broke a
 * forbid constraint is played (a `failFast` trial stops inside it).
 */
function goldenMemo(harness: HarnessSession, backend: TreeBackend): GoldenMemo {
  return {
    begin(steps) {
      const start = backend.point();
      if (!start) return undefined;
      const from = harness.position();
      const key = positionKey(from);
      start.node.runs ??= new Map();
      let root = start.node.runs.get(key);
      if (!root) {
        root = { node: start.node, position: from, messages: [], bound: [], parent: null, next: new Map() };
        start.node.runs.set(key, root);
      }
      let at = root;
      let played = 0;
      if (!start.live) {
        let deepest = root;
        let k = 0;
        while (k < steps.length) {
          const next = deepest.next.get(steps[k] as GoldenStep);
          if (!next) break;
          deepest = next;
          k += 1;
        }
        if (
          k > 0 &&
          !deepest.node.violated &&
          harness.replay(from, deepest.position, messagesBetween(root, deepest))
        ) {
          backend.jump(deepest.node);
          at = deepest;
          played = k;
        }
      }
      let recording: RunPoint | null = at;
      let recorded = played;
      return {
        played,
        bindings: bindingsAt(root, at),
        reached(n, bound) {
          const point = backend.point();
          if (!recording || n !== recorded + 1 || !point) {
            recording = null;
            return;
          }
          const step = steps[n - 1] as GoldenStep;
          let next = recording.next.get(step);
          if (!next) {
            const position = harness.position();
            next = {
              node: point.node,
              position,
              messages: harness.messages.slice(recording.position.messages, position.messages),
              bound,
              parent: recording,
              next: new Map(),
            };
            recording.next.set(step, next);
          } else if (next.node !== point.node) {
            recording = null;
            return;
          }
          recording = next;
          recorded = n;
        },
      };
    },
  };
}

/**
 * `agent` whose session offers the golden memo of its trial (when the harness hands it a
 * `HarnessSession` and the trial's backend is `backend()`'s).
 */
function withGoldenMemo(agent: AgentFactory, backend: () => TreeBackend | undefined): AgentFactory {
  return {
    name: agent.name,
    forTask(task, context) {
      const inner = agent.forTask(task, context);
      return {
        name: inner.name,
        attempt(session) {
          const b = backend();
          if (!(session instanceof HarnessSession) || !b) return inner.attempt(session);
          return inner.attempt(forwarding(session, { goldenMemo: goldenMemo(session, b) }));
        },
      };
    },
  };
}

/**
 * `session` as it is, but for what `extra` replaces: its `step`, or its `goldenMemo` (given as
 * undefined: none).
 */
function forwarding(
  session: TrialSession,
  extra: { goldenMemo?: GoldenMemo; step?: TrialSession["step"] } = {},
): TrialSession {
  const goldenMemo = "goldenMemo" in extra ? extra.goldenMemo : session.goldenMemo;
  return {
    get systemPrompt() {
      return session.systemPrompt;
    },
    get ticket() {
      return session.ticket;
    },
    get tools() {
      return session.tools;
    },
    get signal() {
      return session.signal;
    },
    get ended() {
      return session.ended;
    },
    step: extra.step ?? ((turn) => session.step(turn)),
    finish: (text, reasoning) => session.finish(text, reasoning),
    addUsage: (usage) => session.addUsage(usage),
    abort: (reason, detail) => session.abort(reason, detail),
    ...(session.recordSystemPrompt
      ? { recordSystemPrompt: (text: string) => session.recordSystemPrompt?.(text) }
      : {}),
    ...(goldenMemo ? { goldenMemo } : {}),
  };
}

/**
 * The grade of a verdict-only trial (`RunOptions.failFast`) whose log broke a forbid constraint: a
 * fail, as `gradeTrial` gives it (a forbidden call fails the verdict, and the log only grows), with
 * the constraints' results. Its predicates and card are not graded: only the verdict is read.
 */
function forbiddenCallGrade(input: GradeInput): TrialGrade {
  const constraints = input.grader.constraints.map((c) => gradeConstraint(c, input.events));
  const broken = constraints.find((c) => c.violated);
  return ungradedFail(
    `forbidden call ${broken?.detail ?? ""} (${broken?.id ?? "a forbid constraint"}); the rest of the trial was not graded`,
    constraints,
  );
}

/**
 * `agent` stopped once `watch.violated` turns true: after the step that broke a forbid
 * constraint, the trial is aborted (its verdict is a fail whatever the agent would do next).
 */
function stoppedWhenViolated(agent: AgentFactory, watch: { violated: boolean }): AgentFactory {
  return {
    name: agent.name,
    forTask(task, context) {
      const inner = agent.forTask(task, context);
      return {
        name: inner.name,
        attempt: (session) => inner.attempt(stopOnViolation(session, watch)),
      };
    },
  };
}

function stopOnViolation(session: TrialSession, watch: { violated: boolean }): TrialSession {
  return forwarding(session, {
    async step(turn) {
      const r = await session.step(turn);
      if (watch.violated && !session.ended) {
        session.abort("agent_error", "stopped by certification: a forbidden call fails the trial");
        return { ...r, stopped: "agent_error" };
      }
      return r;
    },
  });
}

/**
 * The runner certification uses: trials of the same task at epoch 1 share a `TrialTree`, and the
 * golden agent's trial of a task at epoch 1 — the triad's answer key, the oracle's first attempt,
 * the chain's golden replay and the discoverability run are the same trial — runs once. Every
 * result equals what `freshTrials` returns for the same trial (but `duration_s`).
 *
 * @example const runner = sharedTrials(bank); await triadGate(bank, bank.tasks, runner)
 */
export function sharedTrials(bank: Bank): TrialRunner {
  const trees = new Map<string, TrialTree>();
  const golden = new Map<string, Promise<TrialResult>>();
  // Results of named trials (`RunOptions.sameAs`), by task, then by name and failFast.
  const named = new Map<string, Map<string, Promise<TrialResult>>>();
  // The tree of a task's trials at epoch 1 (the only epoch whose trials share one).
  const treeOf = (task: Task): TrialTree => {
    let tree = trees.get(task.id);
    if (!tree) {
      tree = new TrialTree(bank, task, trialSeed(bank.manifest.seed, task.id, 1));
      trees.set(task.id, tree);
    }
    return tree;
  };
  const run = (
    task: Task,
    agent: AgentFactory,
    epoch = 1,
    options: RunOptions = {},
  ): Promise<TrialResult> => {
    // The gates run their many trials (exams, replays, exploits) at epoch 1; the oracle's other
    // epochs are one trial each, with nothing to share: a tree would only record its calls, and
    // keeping the result until the task is released would only keep its transcript and log alive
    // (old-generation garbage the collector walks through in every later gate of the task).
    if (epoch !== 1) return runTrial({ bank, task, agent, epoch });
    if (agent === goldenAgentFactory) {
      const memo = golden.get(task.id);
      if (memo) return memo;
    }
    let byName: Map<string, Promise<TrialResult>> | undefined;
    const name = options.sameAs === undefined ? "" : `${options.failFast ? 1 : 0}\u0000${options.sameAs}`;
    if (name) {
      byName = named.get(task.id);
      if (!byName) {
        byName = new Map();
        named.set(task.id, byName);
      }
      const memo = byName.get(name);
      if (memo) return memo;
    }
    const t = treeOf(task);
    // A trial that may stop early is never the golden's (which must run whole: it is memoised).
    const watch = options.failFast && agent !== goldenAgentFactory ? { violated: false } : undefined;
    let backend: TreeBackend | undefined;
    const result = runTrial({
      bank,
      task,
      agent: withGoldenMemo(watch ? stoppedWhenViolated(agent, watch) : agent, () => backend),
      epoch,
      backend: async () => {
        backend = await t.backend(watch);
        return backend;
      },
      // A trial stopped at a forbidden call fails whatever else its grade says; of a trial that may
      // stop early only the verdict is read.
      grade: (input) =>
        watch?.violated ? forbiddenCallGrade(input) : t.grade(input, watch ? { verdictOnly: true } : {}),
    });
    if (agent === goldenAgentFactory) golden.set(task.id, result);
    byName?.set(name, result);
    return result;
  };
  return {
    run,
    startWorld: (task) => treeOf(task).startWorld(),
    release(task) {
      trees.delete(task.id);
      golden.delete(task.id);
      named.delete(task.id);
    },
  };
}
