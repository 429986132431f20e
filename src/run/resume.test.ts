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
