import { describe, expect, it } from "vitest";
import { skeletonContent } from "../../test/support/test-banks.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { TrialResult } from "../run/run-trial.js";
import type { AgentFactory } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import { chainSegments, playAndAnswer, playedName, scripted } from "./certify-kit.js";
import { negativeReplays } from "./chain-replay.js";
import { EXPLOITS } from "./exploits/index.js";
import { triadExams } from "./triad.js";
import { freshTrials, sharedTrials, startWorld } from "./trial-tree.js";

const bank = bankFromContent(skeletonContent());

/** Every trial certification runs on a task, in the order it runs them. */
function trialsOf(task: Task): Array<{ agent: AgentFactory; epoch: number }> {
  const out = triadExams(bank, task).map((e) => ({ agent: e.agent, epoch: 1 }));
  for (let epoch = 1; epoch <= 3; epoch++) out.push({ agent: goldenAgentFactory, epoch });
  const segments = chainSegments(task);
  if (task.kind === "chain" && segments.success)
    for (const replay of negativeReplays(bank, task, segments.data))
      out.push({
        agent: scripted(bank, `replay-${replay.name}`, async (s) => {
          await playAndAnswer(s, task, replay.steps);
        }),
        epoch: 1,
      });
  for (const exploit of EXPLOITS)
    out.push({
      agent: scripted(bank, `exploit-${exploit.name}`, (s, ctx) => exploit.play(s, ctx)),
      epoch: 1,
    });
  // A state reached only through recorded calls, then left again.
  out.push({ agent: scripted(bank, "blank-again", async (s) => s.finish("")), epoch: 1 });
  // Finished trials again: each follows recorded calls to the state its first run ended in.
  for (const e of triadExams(bank, task)) out.push({ agent: e.agent, epoch: 1 });
  // A trial that leaves the golden early and finishes, then one with its calls and more: the
  // second continues on a fork of the state the first one ended in.
  const storeless = task.golden.filter((step) => step.op !== "store");
  out.push({
    agent: scripted(bank, "storeless", async (s) => {
      await playAndAnswer(s, task, storeless);
    }),
    epoch: 1,
  });
  out.push({
    agent: scripted(bank, "storeless-then-more", async (s) => {
      await playGolden(storeless, s, { finish: false });
      await s.step({
        toolCalls: [{ name: "read", arguments: { entity_ref: { kind: "spec", id: "openapi" } } }],
      });
    }),
    epoch: 1,
  });
  return out;
}

const comparable = ({ duration_s: _, ...rest }: TrialResult) => JSON.parse(JSON.stringify(rest)) as unknown;

describe("sharedTrials", () => {
  it("gives every trial exactly the result a fresh trial gives (transcript, log, grade)", async () => {
    const fresh = freshTrials(bank);
    const shared = sharedTrials(bank);
    let compared = 0;
    for (const task of bank.tasks) {
      for (const { agent, epoch } of trialsOf(task)) {
        const a = await shared.run(task, agent, epoch);
        const b = await fresh.run(task, agent, epoch);
        expect(comparable(a), `${task.id} ${agent.name} epoch ${epoch}`).toEqual(comparable(b));
        compared += 1;
      }
      shared.release(task);
    }
    expect(compared).toBeGreaterThan(60);
  }, 120_000);

  it("with failFast, stops a trial at its first forbidden call with the verdict of the whole trial", async () => {
    const fresh = freshTrials(bank);
    const shared = sharedTrials(bank);
    let stopped = 0;
    for (const task of bank.tasks) {
      const trials = trialsOf(task);
      // Shortened trials first: the whole trials after them continue past where they stopped.
      for (const { agent, epoch } of trials) {
        const a = await shared.run(task, agent, epoch, { failFast: true });
        const b = await fresh.run(task, agent, epoch);
        expect(a.grade.passed, `${task.id} ${agent.name}`).toBe(b.grade.passed);
        if (a.tool_calls < b.tool_calls) {
          stopped += 1;
          expect(a.grade.constraints.some((c) => c.violated)).toBe(true);
          expect(a.grade.passed).toBe(false);
        }
      }
      for (const { agent, epoch } of trials) {
        const a = await shared.run(task, agent, epoch);
        const b = await fresh.run(task, agent, epoch);
        expect(comparable(a), `${task.id} ${agent.name} epoch ${epoch}`).toEqual(comparable(b));
      }
      shared.release(task);
    }
    // The decoy-route sabotages and replays, and the decoy-reading exploits.
    expect(stopped).toBeGreaterThan(4);
  }, 240_000);

  it("runs the golden trial of a task and epoch once, whichever gate asks", async () => {
    const shared = sharedTrials(bank);
    const task = bank.tasks[0] as Task;
    const first = await shared.run(task, goldenAgentFactory, 1);
    expect(await shared.run(task, goldenAgentFactory, 1)).toBe(first);
    expect(await shared.run(task, goldenAgentFactory, 2)).not.toBe(first);
    shared.release(task);
    expect(await shared.run(task, goldenAgentFactory, 1)).not.toBe(first);
  });

  it("hands out the world a task's trials start from: a fresh world's state, each fork its own", async () => {
    const shared = sharedTrials(bank);
    const task = bank.tasks.find((t) => t.setup.length > 0) as Task;
    expect(task).toBeDefined();
    const fresh = await startWorld(bank, task);
    const first = await startWorld(bank, task, shared);
    expect(Object.fromEntries(first.records)).toEqual(Object.fromEntries(fresh.records));
    expect(first.log.events).toEqual(fresh.log.events);
    expect([first.hints, first.terseRoutes, first.clock]).toEqual([
      fresh.hints,
      fresh.terseRoutes,
      fresh.clock,
    ]);
    // What one fork goes through changes neither the next fork nor the trials' own start.
    first.tick();
    first.acceptNonce("key-1", 7);
    const second = await startWorld(bank, task, shared);
    expect(second.clock).toBe(fresh.clock);
    expect(second.lastNonce("key-1")).toBe(0);
    const golden = await shared.run(task, goldenAgentFactory, 1);
    const reference = await freshTrials(bank).run(task, goldenAgentFactory, 1);
    expect(golden.events).toEqual(reference.events);
    expect(golden.grade).toEqual(reference.grade);
  });

  it("runs trials with the same sameAs once per task (and failFast), and no longer after release", async () => {
    const shared = sharedTrials(bank);
    const task = bank.tasks[0] as Task;
    const storeless = task.golden.filter((step) => step.op !== "store");
    let played = 0;
    const agent = (name: string) =>
      scripted(bank, name, async (s) => {
        played += 1;
        await playAndAnswer(s, task, storeless);
      });
    const sameAs = playedName(storeless, "golden card");
    const first = await shared.run(task, agent("first"), 1, { sameAs });
    expect(await shared.run(task, agent("second"), 1, { sameAs })).toBe(first);
    expect(played).toBe(1);
    // Another name, or a verdict-only run of the same name, is a trial of its own.
    expect(await shared.run(task, agent("other"), 1, { sameAs: `${sameAs}!` })).not.toBe(first);
    expect(await shared.run(task, agent("fast"), 1, { sameAs, failFast: true })).not.toBe(first);
    expect(played).toBe(3);
    shared.release(task);
    expect(await shared.run(task, agent("again"), 1, { sameAs })).not.toBe(first);
    expect(played).toBe(4);
  });

  it("skips the golden steps another trial played from the same point, with a fresh trial's result", async () => {
    // Every golden run a trial starts: how many of its steps the golden memo skipped.
    const runs: Array<{ steps: readonly GoldenStep[]; played: number }> = [];
    const spied = (agent: AgentFactory): AgentFactory => ({
      name: agent.name,
      forTask(task, context) {
        const inner = agent.forTask(task, context);
        return {
          name: inner.name,
          attempt: (session) =>
            inner.attempt(
              new Proxy(session, {
                get(target, key) {
                  const memo = target.goldenMemo;
                  if (key === "goldenMemo" && memo)
                    return {
                      begin(steps: readonly GoldenStep[]) {
                        const run = memo.begin(steps);
                        runs.push({ steps, played: run?.played ?? 0 });
                        return run;
                      },
                    };
                  const v = Reflect.get(target, key);
                  return typeof v === "function" ? v.bind(target) : v;
                },
              }),
            ),
        };
      },
    });
    const fresh = freshTrials(bank);
    const shared = sharedTrials(bank);
    let decoys = 0;
    for (const task of bank.tasks) {
      for (const { agent, epoch } of trialsOf(task)) {
        runs.length = 0;
        const a = await shared.run(task, spied(agent), epoch);
        const b = await fresh.run(task, agent, epoch);
        expect(comparable(a), `${task.id} ${agent.name} epoch ${epoch}`).toEqual(comparable(b));
        if (!agent.name.startsWith("sabotage-decoy_route")) continue;
        // The golden ran first: its steps before the decoy are skipped, the decoy is played.
        const [run] = runs;
        const decoyAt = run?.steps.findIndex((step, i) => step !== task.golden[i]) ?? -1;
        expect(decoyAt).toBeGreaterThan(0);
        expect(run?.played, `${task.id} ${agent.name}`).toBe(decoyAt);
        decoys += 1;
      }
      shared.release(task);
    }
    expect(decoys).toBeGreaterThan(2);
  }, 120_000);

  it("names played steps by their whole JSON (playedName's per-step texts join to it)", () => {
    for (const task of bank.tasks) {
      const edited = task.golden.filter((_, i) => i % 2 === 0);
      for (const steps of [task.golden, edited, []])
        expect(playedName(steps, "golden card")).toBe(`golden card\u0000${JSON.stringify(steps)}`);
    }
  });

  it("grades a verdict-only trial stopped at a forbidden call as a fail naming the constraint", async () => {
    const shared = sharedTrials(bank);
    let checked = 0;
    for (const task of bank.tasks) {
      for (const exam of triadExams(bank, task).filter((e) => e.name.startsWith("sabotage:decoy_route"))) {
        const r = await shared.run(task, exam.agent, 1, { failFast: true });
        expect(r.grade.passed).toBe(false);
        const broken = r.grade.constraints.filter((c) => c.violated);
        expect(broken.length).toBeGreaterThan(0);
        expect(r.grade.failure_reason).toContain(broken[0]?.id);
        checked += 1;
      }
      shared.release(task);
    }
    expect(checked).toBeGreaterThan(0);
  });
});
