import { describe, expect, it } from "vitest";
import { jobTaskWithRequirements, requirementBank } from "../../test/support/requirement-banks.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { extractAnswerCard, finalAssistantText } from "../grade/answer-card.js";
import { isRecordRef } from "../grade/final-state.js";
import type { AgentFactory } from "../trial/agent.js";
import { answerBindings, capturesOf, isGradedSegment, placeholdersOf, trial } from "./certify-kit.js";
import { triadExams, triadGate } from "./triad.js";

/**
 * The canary exam types in the exactly right card: a field whose expected value is a record
 * reference (resolved from the world's final records) holds the value the answer key's grade
 * resolved, not the reference itself. A card holding the reference fails G2 alone, whatever the
 * calls: the exam would then check nothing about the call it leaves out.
 */
describe("grader triad: the canary exam's card holds record references resolved", () => {
  // The job task (its order id a record reference), which also reports V-204's berth, read first.
  const withBerth = (t: Task): Task => ({
    ...t,
    ticket: `${t.ticket} Also tell me V-204's current berth.`,
    golden: [
      ...t.golden.slice(0, 1),
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels/V-204", headers: { Authorization: "Bearer {{token}}" } },
        capture: { berth: "berth" },
      },
      ...t.golden
        .slice(1)
        .map((s) => (s.op === "answer" ? { ...s, fields: { ...s.fields, berth: "berth" } } : s)),
    ],
    grader: {
      ...t.grader,
      answer: [
        ...t.grader.answer,
        {
          field: "berth",
          comparator: "string",
          expected: { $canary: "v204_berth", format: "BX-{code}" },
          explain: "V-204's berth.",
        },
      ],
      g1: [
        ...t.grader.g1,
        {
          kind: "data_flow",
          id: "berth_from_vessel",
          explain: "The berth must come from the vessel's read.",
          from_response_url_pattern: "^/v3/vessels/V-204$",
          from_status: 200,
          from_body_key: "berth",
          answer_field: "berth",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
    },
    requirements: [
      ...(t.requirements ?? []),
      {
        id: "berth_reported",
        kind: "report",
        predicates: ["answer:berth", "berth_from_vessel"],
        fields: ["berth"],
      },
    ],
  });
  const task = withBerth(jobTaskWithRequirements());
  const bank = requirementBank([task]);

  it("the exam without the berth's read passes G2 (order id resolved) and fails on the berth's data flow", async () => {
    expect(isRecordRef(task.grader.answer.find((f) => f.field === "order_id")?.expected)).toBe(true);
    const golden = await trial(bank, task, goldenAgentFactory);
    expect(golden.grade.passed).toBe(true);
    const exam = triadExams(bank, task, golden.grade).find(
      (e) => e.name === "sabotage:canary_without_call:berth",
    );
    const r = await trial(bank, task, exam?.agent as AgentFactory);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g2_passed).toBe(true);
    expect(r.grade.g1.filter((p) => !p.passed).map((p) => p.id)).toEqual(["berth_from_vessel"]);
  });

  it("the triad passes the task, and rejects its grader once the berth's data flow is gone", async () => {
    expect((await triadGate(bank, [task])).failures).toEqual([]);
    // Without the labour check, only the card holds the berth: the exam without the read passes.
    // With the reference left in the card, it failed on order_id and this hole went unseen.
    const blind = {
      ...task,
      grader: { ...task.grader, g1: task.grader.g1.filter((p) => p.id !== "berth_from_vessel") },
    };
    const report = await triadGate(requirementBank([blind]), [blind]);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:canary_without_call:berth");
  });
});

describe("grader triad on a default-bank chain whose card holds a record reference", () => {
  const bank = bankFromContent(defaultBankContent());
  // A chain with a graded record reference, and a field read by GET calls alone whose value no
  // later call sends (skipping the read leaves the world's records as the golden leaves them).
  const readOnly = (task: Task, field: string) => {
    const binding = answerBindings(task)[field];
    const capturing = task.golden.filter((s) => binding !== undefined && capturesOf(s).includes(binding));
    return (
      capturing.length > 0 &&
      capturing.every((s) => s.op === "execute" && s.request.method === "GET") &&
      task.golden.every(
        (s) =>
          !Object.values(placeholdersOf(s))
            .flat()
            .includes(binding as string),
      ) &&
      task.grader.g1.some((p) => p.kind === "data_flow" && p.answer_field === field)
    );
  };
  const found = bank.tasks.flatMap((task) => {
    if (task.kind !== "chain") return [];
    const refs = task.grader.answer.filter(
      (f) => isRecordRef(f.expected) && isGradedSegment(task, f.segment),
    );
    const field = task.grader.answer.find(
      (f) => !isRecordRef(f.expected) && isGradedSegment(task, f.segment) && readOnly(task, f.field),
    )?.field;
    return refs.length > 0 && field ? [{ task, field, refs: refs.map((f) => f.field) }] : [];
  })[0];

  it("the exam without the read types in the references resolved, passes G2 and fails on the field's data flow", async () => {
    if (!found) throw new Error("no default-bank chain with a record reference and a read-only field");
    const { task, field, refs } = found;
    const golden = await trial(bank, task, goldenAgentFactory);
    expect(golden.grade.passed).toBe(true);
    const exam = triadExams(bank, task, golden.grade).find(
      (e) => e.name === `sabotage:canary_without_call:${field}`,
    );
    const r = await trial(bank, task, exam?.agent as AgentFactory);
    const card = extractAnswerCard(finalAssistantText(r.messages));
    for (const ref of refs) {
      const value = card.success ? card.data[ref] : undefined;
      expect(isRecordRef(value)).toBe(false);
      expect(value).toEqual(golden.grade.g2.find((f) => f.field === ref)?.expected);
    }
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g2_passed).toBe(true);
    const failed = r.grade.g1.filter((p) => !p.passed && !p.not_evaluated).map((p) => p.id);
    const flows = task.grader.g1
      .filter((p) => p.kind === "data_flow" && p.answer_field === field)
      .map((p) => p.id);
    expect(failed.some((id) => flows.includes(id))).toBe(true);
  });
});
