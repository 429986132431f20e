import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { AgentFactory } from "../trial/agent.js";
import { DEFAULT_PRICE_TABLE } from "./price-table.js";
import { DEFAULT_REDO, parseRedo } from "./redo-outcomes.js";
import { runIntoDir } from "./run-into-dir.js";
import type { Outcome } from "./trial-record.js";

/**
 * Resume in process (issue 21: mutation testing): the agent's attempts are counted, so a rerun
 * that redid finished trials, or skipped one it should redo, fails here; and the stored rows of
 * kept trials are the very rows of the first run.
 */
const bank = skeletonBank();
const tasks = bank.tasks.slice(0, 3);

/** The golden agent, counting its attempts per task; it crashes (agent_error) on `crashOn`. */
function counting(crashOn: string | null) {
  const attempts = new Map<string, number>();
  const factory: AgentFactory = {
    name: "counted",
    forTask(task, context) {
      const golden = goldenAgentFactory.forTask(task, context);
      return {
        name: "counted",
        attempt: async (session) => {
          attempts.set(task.id, (attempts.get(task.id) ?? 0) + 1);
          if (task.id === crashOn) throw new Error("crash");
          return golden.attempt(session);
        },
      };
    },
  };
  return { factory, attempts, total: () => [...attempts.values()].reduce((a, b) => a + b, 0) };
}

const run = (runDir: string, factory: AgentFactory, redo?: ReadonlySet<Outcome>) =>
  runIntoDir({
    runDir,
    bank,
    tasks,
    agents: [{ factory, settings: { kind: "module", module: "./counted.js" } }],
    epochs: 1,
    concurrency: 1,
    priceTable: DEFAULT_PRICE_TABLE,
    salt: "resume-test",
    ...(redo ? { redo } : {}),
  });

function redoOf(text: string): ReadonlySet<Outcome> {
  const parsed = parseRedo(text);
  if (!parsed.success) throw new Error(parsed.error.message);
  return parsed.data;
}

describe("resume", () => {
  it("a rerun runs nothing that finished, and keeps the stored rows as they were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-resume-"));
    const agent = counting(tasks[1]!.id);
    const first = await run(dir, agent.factory);
    if (!first.success) throw new Error(first.error.message);
    expect(first.data).toMatchObject({ ran: 3, resumed: 0, redone: 0, notRun: 0 });
    expect(agent.total()).toBe(3);
    expect(first.data.records.map((r) => r.outcome)).toEqual(["pass", "agent_error", "pass"]);

    const again = await run(dir, agent.factory);
    if (!again.success) throw new Error(again.error.message);
    expect(again.data).toMatchObject({ ran: 0, resumed: 3, redone: 0, notRun: 0 });
    expect(agent.total()).toBe(3);
    expect(again.data.records).toEqual(first.data.records);
  });

  it("--redo runs again exactly the trials with those outcomes; the others keep their rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-redo-"));
    const agent = counting(tasks[1]!.id);
    const first = await run(dir, agent.factory);
    if (!first.success) throw new Error(first.error.message);
    const redone = await run(dir, agent.factory, redoOf("agent_error"));
    if (!redone.success) throw new Error(redone.error.message);
    expect(redone.data).toMatchObject({ ran: 1, resumed: 2, redone: 1 });
    expect(Object.fromEntries(agent.attempts)).toEqual({
      [tasks[0]!.id]: 1,
      [tasks[1]!.id]: 2,
      [tasks[2]!.id]: 1,
    });
    const byTask = (recs: typeof first.data.records, id: string) => recs.find((r) => r.task_id === id);
    expect(byTask(redone.data.records, tasks[0]!.id)).toEqual(byTask(first.data.records, tasks[0]!.id));
    expect(byTask(redone.data.records, tasks[2]!.id)).toEqual(byTask(first.data.records, tasks[2]!.id));

    const none = await run(dir, agent.factory, redoOf("none"));
    if (!none.success) throw new Error(none.error.message);
    expect(none.data).toMatchObject({ ran: 0, resumed: 3, redone: 0 });
    expect(agent.total()).toBe(4);
  });
});

describe("parseRedo", () => {
  it("by default reruns only trials the provider or the harness broke", () => {
    expect([...DEFAULT_REDO].sort()).toEqual(["harness_error", "provider_error"]);
  });

  it("reads outcomes separated by commas, with spaces and empty items ignored; none is the empty set", () => {
    expect(parseRedo(" provider_error , limit,")).toEqual({
      success: true,
      data: new Set(["provider_error", "limit"]),
    });
    expect(parseRedo("none")).toEqual({ success: true, data: new Set() });
    expect(parseRedo(" none ")).toEqual({ success: true, data: new Set() });
  });

  for (const text of ["", " , ", "pass,bogus", "none,pass", "PASS"]) {
    it(`refuses ${JSON.stringify(text)}, listing every outcome`, () => {
      expect(parseRedo(text)).toEqual({
        success: false,
        error: {
          code: "bad_redo",
          message: `--redo takes "none" or outcomes separated by commas (pass, fail, abstained, limit, context_overflow, agent_error, provider_error, harness_error, unscored); got ${JSON.stringify(text)}`,
        },
      });
    });
  }
});

/** A golden agent named `name` that reports `tokens` input tokens per trial (priced $1 a token). */
function costing(name: string, tokens: number) {
  let calls = 0;
  const factory: AgentFactory = {
    name,
    forTask(task, context) {
      const golden = goldenAgentFactory.forTask(task, context);
      return {
        name,
        attempt: async (session) => {
          calls++;
          session.addUsage({ input: tokens, output: 0, total: tokens });
          return golden.attempt(session);
        },
      };
    },
  };
  return { factory, calls: () => calls };
}

const DOLLAR_A_TOKEN = {
  version: "test-1",
  currency: "USD" as const,
  models: { "fake/m": { input: 1, output: 0 } },
};

describe("resume: the cost limit and the progress counters count stored trials", () => {
  const costRun = (
    runDir: string,
    agents: { factory: AgentFactory }[],
    extra: Partial<Parameters<typeof runIntoDir>[0]>,
  ) =>
    runIntoDir({
      runDir,
      bank,
      tasks,
      agents: agents.map((a) => ({
        factory: a.factory,
        settings: { kind: "module" as const, module: `./${a.factory.name}.js` },
        modelApi: "fake/m",
      })),
      epochs: 1,
      concurrency: 1,
      priceTable: DOLLAR_A_TOKEN,
      salt: "cost-test",
      ...extra,
    });

  it("a rerun under the same limit starts nothing: the resumed trials' cost counts towards it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-cost-"));
    // $1 per trial: 1,000,000 tokens at $1 per million.
    const agent = costing("costly", 1_000_000);
    const first = await costRun(dir, [agent], { costLimitUsd: 2 });
    if (!first.success) throw new Error(first.error.message);
    expect(first.data).toMatchObject({ ran: 2, notRun: 1, costLimitReached: true });
    expect(first.data.records.map((r) => r.cost_usd)).toEqual([1, 1]);

    const again = await costRun(dir, [agent], { costLimitUsd: 2 });
    if (!again.success) throw new Error(again.error.message);
    expect(again.data).toMatchObject({ ran: 0, resumed: 2, notRun: 1, costLimitReached: true });
    expect(agent.calls()).toBe(2);

    // A limit just above what is stored lets exactly one more trial start.
    const more = await costRun(dir, [agent], { costLimitUsd: 2.5 });
    if (!more.success) throw new Error(more.error.message);
    expect(more.data).toMatchObject({ ran: 1, resumed: 2, notRun: 0, costLimitReached: false });
    expect(agent.calls()).toBe(3);
  });

  it("without a limit, every trial runs whatever it costs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-nolimit-"));
    const agent = costing("costly", 5_000_000);
    const out = await costRun(dir, [agent], {});
    if (!out.success) throw new Error(out.error.message);
    expect(out.data).toMatchObject({ ran: 3, notRun: 0, costLimitReached: false });
  });

  it("resumed trials count as done (not done here) in their own agent's progress, with their cost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-progress-"));
    const a = costing("first", 1_000_000);
    const b = costing("second", 2_000_000);
    const progress = () =>
      ["first", "second"].map((name) => ({
        name,
        total: 3,
        done: 0,
        passed: 0,
        doneHere: 0,
        retries: 0,
        costUsd: 0,
        costUnknown: false,
      }));
    const p1 = progress();
    const first = await costRun(dir, [a, b], { progress: p1 });
    if (!first.success) throw new Error(first.error.message);
    expect(p1.map((p) => [p.done, p.doneHere, p.passed, p.costUsd])).toEqual([
      [3, 3, 3, 3],
      [3, 3, 3, 6],
    ]);
    const p2 = progress();
    const again = await costRun(dir, [a, b], { progress: p2 });
    if (!again.success) throw new Error(again.error.message);
    expect(again.data.resumed).toBe(6);
    expect(p2.map((p) => [p.done, p.doneHere, p.passed, p.costUsd])).toEqual([
      [3, 0, 3, 3],
      [3, 0, 3, 6],
    ]);
  });
});

describe("an agent whose key is refused", () => {
  /** An agent whose trials on `refuseOn` end with a 401, the others played golden. */
  function refusing(
    name: string,
    refuseOn: (taskId: string) => boolean,
    before?: (taskId: string) => Promise<void>,
  ) {
    const factory: AgentFactory = {
      name,
      forTask(task, context) {
        const golden = goldenAgentFactory.forTask(task, context);
        return {
          name,
          attempt: async (session) => {
            await before?.(task.id);
            if (refuseOn(task.id)) return session.abort("provider_error", "auth: 401: bad key");
            return golden.attempt(session);
          },
        };
      },
    };
    return factory;
  }
  const agentsOf = (factories: AgentFactory[]) =>
    factories.map((factory) => ({
      factory,
      settings: { kind: "module" as const, module: `./${factory.name}.js` },
    }));

  it("is stopped after its first trial is refused (concurrency 1): its other trials are not started", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-refused-"));
    const out = await runIntoDir({
      runDir: dir,
      bank,
      tasks,
      agents: agentsOf([refusing("locked", () => true)]),
      epochs: 1,
      concurrency: 1,
      priceTable: DEFAULT_PRICE_TABLE,
      salt: "refused-test",
    });
    if (!out.success) throw new Error(out.error.message);
    expect(out.data).toMatchObject({ ran: 1, notRun: 2, refused: ["locked"] });
  });

  it("the threshold counts only the agent's own trials: two of two refused stop it beside two other agents", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-refused-own-"));
    const two = tasks.slice(0, 2);
    // Threshold min(3, concurrency 3, its 2 trials) = 2; counting all 6 cells it would be 3.
    const out = await runIntoDir({
      runDir: dir,
      bank,
      tasks: two,
      agents: agentsOf([
        refusing("locked", () => true),
        refusing("open-a", () => false),
        refusing("open-b", () => false),
      ]),
      epochs: 1,
      concurrency: 3,
      priceTable: DEFAULT_PRICE_TABLE,
      salt: "refused-test",
    });
    if (!out.success) throw new Error(out.error.message);
    expect(out.data.refused).toEqual(["locked"]);
  });

  it("one refusal followed by a pass is not a refused key when two trials were in flight", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-refused-once-"));
    const two = tasks.slice(0, 2);
    // The passing trial waits until the refused one is recorded: the refusal is the first result.
    let refusedRecorded!: () => void;
    const recorded = new Promise<void>((r) => {
      refusedRecorded = r;
    });
    const out = await runIntoDir({
      runDir: dir,
      bank,
      tasks: two,
      agents: agentsOf([
        refusing(
          "flaky",
          (id) => id === two[0]!.id,
          async (id) => {
            if (id === two[1]!.id) await recorded;
          },
        ),
      ]),
      epochs: 1,
      concurrency: 2,
      priceTable: DEFAULT_PRICE_TABLE,
      salt: "refused-test",
      onRecord: (record) => {
        if (record.outcome === "provider_error") refusedRecorded();
      },
    });
    if (!out.success) throw new Error(out.error.message);
    expect(out.data.records.map((r) => r.outcome)).toEqual(["provider_error", "pass"]);
    expect(out.data.refused).toEqual([]);
  });
});
