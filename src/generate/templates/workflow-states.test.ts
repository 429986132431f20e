import { describe, expect, it } from "vitest";
import { type BankContent, bankFromContent } from "../../bank/bank.js";
import type { Task } from "../../bank/task-schema.js";
import type { World } from "../../bank/world-schema.js";
import { axisNecessityFindings } from "../../certify/axis-necessity.js";
import { certifyBank } from "../../certify/certify-bank.js";
import { GATE_NAMES } from "../../certify/certify-schema.js";
import { discoverabilityFindings } from "../../certify/discoverability.js";
import { premiseFindings } from "../../certify/premises.js";
import { sharedTrials } from "../../certify/trial-tree.js";
import { defaultBankContent } from "../default-bank.js";
import { WORKFLOW_RESOURCE } from "../world-builders/workflow-archetype.js";

/**
 * Issue 16: the workflow-of-states archetype and records that change between reads, in the
 * default bank. Tasks are found by property (what their golden sends and reports), never by id.
 */
const content = defaultBankContent();
const bank = bankFromContent(content);
const solo = content.tasks.filter((t) => t.kind === "solo");
const sends = (t: Task, state: string) =>
  t.golden.some(
    (s) =>
      s.op === "execute" &&
      s.request.url.includes(`/${WORKFLOW_RESOURCE}/`) &&
      JSON.stringify(s.request.body ?? null).includes(`"state":"${state}"`),
  );
const reports = (t: Task, field: string) => t.grader.answer.some((a) => a.field === field);
const approvals = solo.filter((t) => sends(t, "approved") && reports(t, "approval_code"));
const reviews = solo.filter((t) => sends(t, "in_review") && reports(t, "review_ref"));

/** The content with one world rewritten (its routes and records), for sabotages. */
function withWorld(task: Task, change: (w: World) => World): BankContent {
  return { ...content, worlds: content.worlds.map((w) => (w.id === task.world ? change(w) : w)) };
}

describe("workflow worlds in the default bank", () => {
  it("has workflow worlds and solo tasks of both kinds on them", () => {
    expect(content.worlds.filter((w) => w.archetype === "workflow").length).toBeGreaterThanOrEqual(3);
    expect(approvals.length).toBeGreaterThanOrEqual(1);
    expect(reviews.length).toBeGreaterThanOrEqual(1);
    expect(approvals.every((t) => t.axes[0] === "error_recovery")).toBe(true);
    expect(reviews.every((t) => t.axes[0] === "statefulness")).toBe(true);
    // The approval ticket quotes the refused one-step call; the premise says what the world answered.
    for (const t of approvals)
      expect(t.premises).toContainEqual(
        expect.objectContaining({ status: 409, error: "invalid_transition" }),
      );
  });

  it("certifies every such task through every gate, every requirement mutant killed", async () => {
    const ids = new Set([...approvals, ...reviews].map((t) => t.id));
    const report = await certifyBank(content, { tasks: (t) => ids.has(t.id) });
    for (const gate of GATE_NAMES) {
      const g = report.gates[gate];
      if (g?.hard) expect(g.failures, gate).toEqual([]);
    }
    expect(report.gates.axis_necessity?.checked).toBe(ids.size);
    const mutants = report.gates.requirement_mutants?.mutants;
    expect(mutants?.generated).toBeGreaterThan(ids.size * 3);
    expect(mutants?.killed).toBe(mutants?.generated);
  }, 300_000);
});

describe("sabotages the gates reject", () => {
  const approval = approvals[0] as Task;
  const review = reviews[0] as Task;
  /** The approval's world with a workflow that lets any state move anywhere (no transition refused). */
  const permissive = () =>
    withWorld(approval, (w) => ({
      ...w,
      routes: w.routes.map((r) =>
        r.workflow
          ? {
              ...r,
              workflow: {
                ...r.workflow,
                transitions: Object.fromEntries(
                  Object.keys(r.workflow.transitions).map((s) => [
                    s,
                    Object.keys(r.workflow?.transitions ?? {}),
                  ]),
                ),
              },
            }
          : r,
      ),
    }));

  it("premises: a world that takes the one-step approval makes the ticket's quoted 409 false", async () => {
    const sabotaged = bankFromContent(permissive());
    const found = await premiseFindings(sabotaged, sabotaged.tasks.find((t) => t.id === approval.id) as Task);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]?.message).toMatch(/409/);
    expect(await premiseFindings(bank, approval)).toEqual([]);
  });

  it("axis necessity: on that world, retrying the client's call plainly passes, so the gate fails the task", async () => {
    const sabotaged = bankFromContent(permissive());
    const task = sabotaged.tasks.find((t) => t.id === approval.id) as Task;
    const found = await axisNecessityFindings(sabotaged, task, sharedTrials(sabotaged));
    expect(found.failures[0]).toMatchObject({ check: "axis_blind:error_recovery" });
    expect(found.failures[0]?.message).toMatch(/sent as the client sent it/);
    expect((await axisNecessityFindings(bank, approval, sharedTrials(bank))).failures).toEqual([]);
  }, 120_000);

  it("discoverability: a spec that does not document the transitions leaves the intermediate states unseen", async () => {
    const hard = approvals.find((t) => t.golden.filter((s) => s.op === "execute").length >= 3) ?? approval;
    const silent = bankFromContent(
      withWorld(hard, (w) => ({
        ...w,
        routes: w.routes.map((r) =>
          r.resource === WORKFLOW_RESOURCE
            ? {
                ...r,
                summary: "Change requests",
                query_params: r.query_params?.map((q) => ({ ...q, allowed: [] })),
              }
            : r,
        ),
        resources: Object.fromEntries(
          Object.entries(w.resources).map(([k, res]) => [
            k,
            k === WORKFLOW_RESOURCE
              ? {
                  ...res,
                  fields: Object.fromEntries(
                    Object.keys(res.fields).map((f) => [f, { type: "string", description: "" }]),
                  ),
                }
              : res,
          ]),
        ),
      })),
    );
    const task = silent.tasks.find((t) => t.id === hard.id) as Task;
    const found = await discoverabilityFindings(silent, task, sharedTrials(silent));
    expect(found.map((f) => f.message).join(" ")).toMatch(/in_review|submitted/);
    expect(await discoverabilityFindings(bank, hard, sharedTrials(bank))).toEqual([]);
  }, 120_000);

  it("axis necessity: a review reference already on the record before the move needs no re-read, and the gate says so", async () => {
    // Keeping nothing is the other half of the statefulness-blind agent: leave the keeping out, so
    // the re-read alone is on trial.
    const reportOnly = (t: Task): Task => ({
      ...t,
      golden: t.golden.filter((s) => s.op !== "store"),
      grader: {
        ...t.grader,
        g1: t.grader.g1
          .filter((p) => p.kind !== "workspace_value")
          .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
      },
      requirements: (t.requirements ?? []).filter((r) => r.id !== "ref_kept"),
    });
    const id = /\/change-requests\/([^/?"]+)/.exec(JSON.stringify(review.golden))?.[1] as string;
    const expected = review.grader.answer.find((a) => a.field === "review_ref")?.expected;
    const only = (c: BankContent) => ({
      ...c,
      tasks: c.tasks.map((t) => (t.id === review.id ? reportOnly(t) : t)),
    });
    // The record carries, from the start, the very value the move would stamp: the first read shows it.
    const stale = bankFromContent(
      only(
        withWorld(review, (w) => ({
          ...w,
          routes: w.routes.map((r) => (r.workflow ? { ...r, workflow: { ...r.workflow, on_enter: {} } } : r)),
          resources: Object.fromEntries(
            Object.entries(w.resources).map(([k, res]) => [
              k,
              k === WORKFLOW_RESOURCE
                ? {
                    ...res,
                    records: res.records.map((r) =>
                      r.request_id === id ? { ...r, review_ref: expected ?? null } : r,
                    ),
                  }
                : res,
            ]),
          ),
        })),
      ),
    );
    const task = stale.tasks.find((t) => t.id === review.id) as Task;
    const blind = await axisNecessityFindings(stale, task, sharedTrials(stale));
    expect(blind.failures[0]).toMatchObject({ check: "axis_blind:statefulness" });
    expect(blind.failures[0]?.message).toMatch(/not read again/);
    // On the real world the record changes between the reads: the same report-only task's blind
    // agent, acting on its first read, fails.
    const real = bankFromContent(only(content));
    const same = real.tasks.find((t) => t.id === review.id) as Task;
    expect((await axisNecessityFindings(real, same, sharedTrials(real))).failures).toEqual([]);
  }, 120_000);
});
