import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  canaryTypedIn,
  decoyBlindGrader,
  examKinds,
  SUB01,
  SUB02,
  SUB03,
  selectiveChain,
  skeletonContent,
  storeUnchecked,
  taskOf,
} from "../../test/support/test-banks.js";
import type { Bank } from "../bank/bank.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { extractAnswerCard, finalAssistantText } from "../grade/answer-card.js";
import type { AgentFactory } from "../trial/agent.js";
import { trial, worldOf } from "./certify-kit.js";
import { expectedCard, staleTokenSteps, triadExams, triadGate } from "./triad.js";
import { freshTrials, type TrialRunner } from "./trial-tree.js";

describe("grader triad", () => {
  const bank = bankFromContent(skeletonContent());

  it("passes every task of the skeleton bank, with every kind of sabotage exercised", async () => {
    const report = await triadGate(bank, bank.tasks);
    expect(report.first_failure).toBeNull();
    expect(report).toMatchObject({ checked: 4, passed: 4, failed: 0 });
    const names = examKinds(bank);
    for (const kind of [
      "answer_key",
      "blank",
      "sabotage:decoy_route",
      "sabotage:canary_without_call",
      "sabotage:store_skipped",
      "sabotage:stale_token",
    ])
      expect(names).toContain(kind);
  });

  it("rejects a grader whose labour check does not tie the answer to the call (canary typed in)", async () => {
    const broken = bankWith(SUB02, canaryTypedIn);
    const report = await triadGate(broken, [taskOf(broken, SUB02)]);
    expect(report.failed).toBe(1);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:canary_without_call:berth");
  });

  it("rejects a grader that does not check the store the ticket demands", async () => {
    const broken = bankWith(SUB03, storeUnchecked);
    const report = await triadGate(broken, [taskOf(broken, SUB03)]);
    expect(report.failures.map((f) => f.check)).toEqual(["sabotage:store_skipped@4"]);
  });

  it("rejects a grader the decoy route also satisfies", async () => {
    // Only the last port call is asked, which the v2 snapshot serves unchanged; no constraint, no provenance.
    const broken = bankWith(SUB02, decoyBlindGrader);
    const report = await triadGate(broken, [taskOf(broken, SUB02)]);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:decoy_route@3");
  });

  it("rejects a task whose answer key fails its own grader", async () => {
    const broken = bankWith(SUB01, (t) => ({
      ...t,
      grader: {
        ...t.grader,
        answer: t.grader.answer.map((f) =>
          f.field === "firmware_channel" ? { ...f, expected: "maritime-edge" } : f,
        ),
      },
    }));
    const report = await triadGate(broken, [taskOf(broken, SUB01)]);
    expect(report.failures[0]).toMatchObject({ check: "answer_key" });
    expect(report.first_failure).toMatch(/answer key fails its own grader/);
  });

  it("rejects a grader that passes the blank exam", async () => {
    // No GraderSpec the schema admits passes a blank run: at least one answer field is required and
    // a missing card fails it. So the weak grader is given to the gate directly: real trials of the
    // real task, judged by a grader that only checks the constraints (no forbidden call was made),
    // which a run that does nothing satisfies.
    const fresh = freshTrials(bank);
    const constraintsOnly: TrialRunner = {
      async run(task, agent, epoch) {
        const r = await fresh.run(task, agent, epoch);
        return { ...r, grade: { ...r.grade, passed: r.grade.constraints.every((c) => !c.violated) } };
      },
      release: () => {},
    };
    const task = taskOf(bank, SUB01);
    const report = await triadGate(bank, [task], constraintsOnly);
    expect(report.failed).toBe(1);
    expect(report.failures.map((f) => f.check)).toContain("blank");
    expect(report.failures.find((f) => f.check === "blank")?.message).toBe(
      "the blank exam passes: the grader is not load-bearing",
    );
    // The real grader of the same task passes the triad, blank exam included.
    expect((await triadGate(bank, [task], fresh)).failed).toBe(0);
  });
});

describe("grader triad: the exams each task gets", () => {
  const bank = bankFromContent(skeletonContent());
  const names = (b: Bank, id: string) => triadExams(b, taskOf(b, id)).map((e) => e.name);

  it("a sabotage per decoy-able call, per graded answer field, per store, and the stale token", () => {
    expect(names(bank, SUB01)).toEqual([
      "answer_key",
      "blank",
      "sabotage:decoy_route@2",
      "sabotage:canary_without_call:firmware_build",
      "sabotage:canary_without_call:firmware_channel",
      "sabotage:stale_token",
    ]);
    expect(names(bank, SUB03)).toEqual([
      "answer_key",
      "blank",
      "sabotage:decoy_route@2",
      "sabotage:canary_without_call:order_id",
      "sabotage:canary_without_call:status",
      "sabotage:store_skipped@4",
      "sabotage:stale_token",
    ]);
    const exams = triadExams(bank, taskOf(bank, SUB01));
    expect(exams.map((e) => e.mustPass)).toEqual([true, false, false, false, false, false]);
  });

  it("a selective chain: no canary sabotage for an ungraded segment's fields, no store sabotage nothing graded reads", () => {
    const selective = bankWith(CHAIN, selectiveChain);
    const got = names(selective, CHAIN);
    expect(got).not.toContain("sabotage:canary_without_call:berth");
    expect(got).toContain("sabotage:canary_without_call:order_id");
    // Segment 3 stores the order id and its grader reads it: the store sabotage stays.
    expect(got).toContain("sabotage:store_skipped@9");
    const unread = (t: Task): Task => ({
      ...t,
      grader: {
        ...t.grader,
        g1: t.grader.g1
          .filter((p) => p.kind !== "workspace_value")
          .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
      },
    });
    expect(
      names(
        bankWith(CHAIN, (t) => unread(selectiveChain(t))),
        CHAIN,
      ),
    ).not.toContain("sabotage:store_skipped@9");
    // Graded in full, every store is load-bearing.
    expect(names(bankWith(CHAIN, unread), CHAIN)).toContain("sabotage:store_skipped@9");
  });

  it("canary_without_call skips every call that reveals the value (the same read in another segment, the listing it may come from) and types the exact card", async () => {
    const chain = taskOf(bank, CHAIN);
    const exam = triadExams(bank, chain).find(
      (e) => e.name === "sabotage:canary_without_call:firmware_build",
    );
    const r = await trial(bank, chain, exam?.agent as AgentFactory);
    const urls = r.events.flatMap((e) => (e.type === "exchange" ? [e.url] : []));
    expect(urls).not.toContain("/v3/vessels/V-204");
    expect(urls.filter((u) => /^\/v3\/vessels(\?.*)?$/.test(u))).toEqual([]);
    expect(urls).toContain("/v3/vessels/V-311");
    const card = extractAnswerCard(finalAssistantText(r.messages));
    expect(card.success && card.data).toEqual(expectedCard(chain, r.trial_seed));
  });

  it("the stale-token exam sends the vault's stale token where the golden sends the minted one", () => {
    const task = taskOf(bank, SUB01);
    const world = worldOf(bank, task);
    const steps = staleTokenSteps(task, world);
    expect(steps).toEqual([
      {
        ...task.golden[1],
        request: {
          ...(task.golden[1] as { request: object }).request,
          headers: { Authorization: "Bearer {{access_token}}" },
        },
      },
      task.golden[2],
    ]);
    const noStale = {
      ...task,
      workspace: { ...task.workspace, vault: { client_id: "cid", client_secret: "csec" } },
    };
    expect(staleTokenSteps(noStale, world)).toBeNull();
    expect(staleTokenSteps({ ...task, golden: task.golden.slice(1) }, world)).toBeNull();
  });

  it("reports which exam broke and why", async () => {
    const broken = bankWith(SUB03, storeUnchecked);
    const report = await triadGate(broken, [taskOf(broken, SUB03)]);
    expect(report.failures).toEqual([
      {
        task_id: SUB03,
        check: "sabotage:store_skipped@4",
        message: "sabotaged exam sabotage:store_skipped@4 passes: the grader is not load-bearing",
      },
    ]);
    const wrongKey = bankWith(SUB01, (t) => ({
      ...t,
      grader: {
        ...t.grader,
        answer: t.grader.answer.map((f) =>
          f.field === "firmware_channel" ? { ...f, expected: "maritime-edge" } : f,
        ),
      },
    }));
    const r2 = await triadGate(wrongKey, [taskOf(wrongKey, SUB01)]);
    expect(r2.failures[0]?.message).toMatch(/^the answer key fails its own grader: .*firmware_channel/);
  });
});
