import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { axisNecessityFindings } from "./axis-necessity.js";
import { sharedTrials } from "./trial-tree.js";

describe("axis necessity gate: the golden blind to its axis fails", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  const runner = sharedTrials(bank);
  const world = bank.worlds[0]?.id;
  const solo = (axis: string) =>
    bank.tasks.filter((t) => t.kind === "solo" && t.world === world && t.axes[0] === axis);

  it("passes a task whose blind variant differs and fails (an error-recovery task retried plainly)", async () => {
    let passing: Task | undefined;
    for (const t of solo("error_recovery")) {
      const found = await axisNecessityFindings(bank, t, runner);
      if (found.failures.length === 0) {
        passing = t;
        break;
      }
    }
    expect(passing).toBeDefined();
  }, 120_000);

  it("catches a pagination task built to fail it: a page cap that lets one page hold the whole collection", async () => {
    const task = solo("pagination")[0] as Task;
    const uncapped = bankFromContent({
      ...content,
      worlds: content.worlds.map((w) =>
        w.id !== world
          ? w
          : {
              ...w,
              routes: w.routes.map((r) =>
                r.pagination ? { ...r, pagination: { ...r.pagination, max_page_size: 10_000 } } : r,
              ),
            },
      ),
    });
    const found = await axisNecessityFindings(uncapped, task, sharedTrials(uncapped));
    expect(found.failures).toHaveLength(1);
    expect(found.failures[0]).toMatchObject({ task_id: task.id, check: "axis_blind:pagination" });
    expect(found.failures[0]?.message).toMatch(
      /an agent blind to pagination passes \(one page of \S+ at (limit|per_page)=10000\)/,
    );
  }, 60_000);

  it("catches a task whose golden has nothing the blind agent would do differently", async () => {
    // An error-recovery ticket that quotes no broken call: the plain retrier plays the golden itself.
    const task = solo("error_recovery").find((t) => (t.premises ?? []).length > 0) as Task;
    const quiet = bankFromContent({
      ...content,
      tasks: content.tasks.map((t) => (t.id === task.id ? { ...t, premises: [] } : t)),
    });
    const found = await axisNecessityFindings(
      quiet,
      quiet.tasks.find((t) => t.id === task.id) as Task,
      sharedTrials(quiet),
    );
    expect(found.failures[0]).toMatchObject({ check: "axis_blind:error_recovery" });
    expect(found.failures[0]?.message).toMatch(/plays the golden unchanged/);
  }, 60_000);

  it("passes every solo task of one world, each axis's blind agent failing for its own reason", async () => {
    const reasons: Record<string, RegExp> = {
      auth: /re-mint\(s\) dropped|the vault's access_token kept/,
      discovery: /\S+ instead of \S+|first record listed|undocumented parameter/,
      schema_repair: /sent as the client sent it/,
      error_recovery: /sent as the client sent it/,
      statefulness: /not kept|not read again/,
      multistep: /skipped/,
      pagination: /one page of/,
    };
    const { axisBlindVariant } = await import("./axis-necessity.js");
    const { goldenAgentFactory } = await import("../agents/scripted-agents.js");
    for (const [axis, reason] of Object.entries(reasons))
      for (const t of solo(axis)) {
        expect((await axisNecessityFindings(bank, t, runner)).failures, t.id).toEqual([]);
        const golden = await runner.run(t, goldenAgentFactory);
        const exchanges = golden.events.filter((e) => e.type === "exchange");
        const sends = t.golden.flatMap((s, i) => (s.op === "execute" ? [i] : []));
        const seen = new Map(
          sends.map((i, n) => [i, exchanges[n] as (typeof exchanges)[number] & { type: "exchange" }]),
        );
        const variant = axisBlindVariant(bank, t, seen);
        expect(variant.success && variant.what.join("; "), t.id).toMatch(reason);
      }
  }, 240_000);

  /** `task` in a bank where `edit` rewrote it; the gate's findings on it there. */
  const findingsOnEdited = async (task: Task, edit: (t: Task) => Task) => {
    const edited = bankFromContent({
      ...content,
      tasks: content.tasks.map((t) => (t.id === task.id ? edit(t as Task) : t)),
    });
    return axisNecessityFindings(
      edited,
      edited.tasks.find((t) => t.id === task.id) as Task,
      sharedTrials(edited),
    );
  };

  it("catches an auth task whose client held a fresh token: never re-minting changes nothing", async () => {
    const task = solo("auth").find((t) =>
      t.premises?.some((p) => p.kind === "call" && p.token === "stale"),
    ) as Task;
    const found = await findingsOnEdited(task, (t) => ({
      ...t,
      premises: (t.premises ?? []).map((p) => (p.kind === "call" ? { ...p, token: "fresh" as const } : p)),
    }));
    expect(found.failures[0]).toMatchObject({ task_id: task.id, check: "axis_blind:auth" });
    expect(found.failures[0]?.message).toMatch(/plays the golden unchanged/);
  }, 60_000);

  it("catches a discovery task in a world whose right route is listed first (agent audit mar: simply the first /v3 one)", async () => {
    // The client met a decoy, but the spec lists the canonical read first: the agent that takes the
    // first documented candidate passes without any discovery.
    const task = solo("discovery").find((t) =>
      t.premises?.some((p) => p.kind === "call" && p.status === 200),
    ) as Task;
    const canonicalFirst = bankFromContent({
      ...content,
      worlds: content.worlds.map((w) =>
        w.id !== world
          ? w
          : {
              ...w,
              routes: [
                ...w.routes.filter((r) => r.status === "canonical"),
                ...w.routes.filter((r) => r.status !== "canonical"),
              ],
            },
      ),
    });
    const found = await axisNecessityFindings(
      canonicalFirst,
      canonicalFirst.tasks.find((t) => t.id === task.id) as Task,
      sharedTrials(canonicalFirst),
    );
    expect(found.failures[0]).toMatchObject({ task_id: task.id, check: "axis_blind:discovery" });
    expect(found.failures[0]?.message).toMatch(/plays the golden unchanged/);
    // As generated (decoys listed first), the same task needs discovery.
    expect((await axisNecessityFindings(bank, task, runner)).failures).toEqual([]);
  }, 60_000);

  it("catches a statefulness task whose grader never looks at the kept variable", async () => {
    // Keeping is its only statefulness: a task that also re-reads a record (the world changed it
    // between reads) still fails blind without the kept variable.
    const rereads = (t: Task) => {
      const gets = t.golden.flatMap((s) =>
        s.op === "execute" && s.request.method === "GET" ? [s.request.url] : [],
      );
      return new Set(gets).size < gets.length;
    };
    const task = solo("statefulness").find(
      (t) => t.grader.g1.some((p) => p.kind === "workspace_value") && !rereads(t),
    ) as Task;
    const found = await findingsOnEdited(task, (t) => ({
      ...t,
      requirements: [],
      grader: {
        ...t.grader,
        g1: t.grader.g1
          .filter((p) => p.kind !== "workspace_value")
          .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
      },
    }));
    expect(found.failures[0]).toMatchObject({ task_id: task.id, check: "axis_blind:statefulness" });
    expect(found.failures[0]?.message).toMatch(
      /an agent blind to statefulness passes \(.*variable \S+ not kept/,
    );
  }, 60_000);

  it("catches a multistep task that grades the create alone: the create's own answer holds the card's values", async () => {
    // Any world's: which worlds get the open-and-read-back job is the seed's deal.
    const task = bank.tasks.find(
      (t) =>
        t.kind === "solo" &&
        t.axes[0] === "multistep" &&
        t.golden.filter((s) => s.op === "execute").length === 4 &&
        t.grader.g1.some((p) => p.id === "read_back"),
    ) as Task;
    expect(task).toBeDefined();
    const found = await findingsOnEdited(task, (t) => ({
      ...t,
      requirements: [],
      // Only the create is graded (its copied value): the follow-up read is nobody's business.
      grader: { ...t.grader, g1: t.grader.g1.filter((p) => p.id === "copy_value_carried") },
    }));
    expect(found.failures[0]).toMatchObject({ task_id: task.id, check: "axis_blind:multistep" });
    expect(found.failures[0]?.message).toMatch(
      /an agent blind to multistep passes \((GET|PUT|PATCH) \S+ skipped/,
    );
  }, 60_000);

  it("blinds a chain segment by segment, each to its own axis", async () => {
    const { axisBlindVariant } = await import("./axis-necessity.js");
    const chain = bank.tasks.find(
      (t) => t.kind === "chain" && t.world === world && t.positions.length === 20,
    ) as Task;
    const golden = await runner.run(chain, (await import("../agents/scripted-agents.js")).goldenAgentFactory);
    const exchanges = golden.events.filter((e) => e.type === "exchange");
    const sends = chain.golden.flatMap((s, i) => (s.op === "execute" ? [i] : []));
    const seen = new Map(
      sends.map((i, n) => [i, exchanges[n] as (typeof exchanges)[number] & { type: "exchange" }]),
    );
    const variant = axisBlindVariant(bank, chain, seen);
    if (!variant.success) throw new Error(variant.error);
    expect(variant.what.some((w) => /^segment \d+ \(pagination\): one page of /.test(w))).toBe(true);
    expect(variant.what.some((w) => /^segment \d+ \((schema_repair|error_recovery)\): /.test(w))).toBe(true);
  }, 60_000);
});
