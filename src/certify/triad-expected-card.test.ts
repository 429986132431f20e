import { describe, expect, it } from "vitest";
import { idIn, SUB01, SUB03, skeletonContent, skeletonIn, taskOf } from "../../test/support/test-banks.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import type { TrialGrade } from "../grade/grade-schema.js";
import { resolveCanaries } from "../world/canary.js";
import { playedName } from "./certify-kit.js";
import { expectedCard, triadExams, triadFindings } from "./triad.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * Issue 21 (area certify-triad): the canary exam's expected card, field by field; its GraphQL
 * steps (two different GraphQL calls are two calls); and the answer key played once per task.
 */

const order = {
  $record: { resource: "maintenance-orders", where: { vessel_id: "V-204" } },
  field: "order_id",
};
const task = (): Task => {
  const t = taskOf(bankFromContent(skeletonContent()), SUB03);
  return {
    ...t,
    grader: {
      ...t.grader,
      answer: t.grader.answer.map((f) => (f.field === "order_id" ? { ...f, expected: order as never } : f)),
    },
  };
};
const grade = (g2: Array<{ field: string; expected: unknown }>) => ({ g2 }) as unknown as TrialGrade;

describe("expectedCard: the card the canary exam types in", () => {
  it("a record reference: as the answer key's grade resolved that field; a canary: resolved for the seed", () => {
    const t = task();
    const status = t.grader.answer.find((f) => f.field === "status");
    const card = expectedCard(
      t,
      "seed-1",
      grade([
        { field: "status", expected: "not-this" },
        { field: "order_id", expected: "MO-42" },
      ]),
    );
    expect(card.order_id).toBe("MO-42");
    expect(card.status).toEqual(resolveCanaries(status?.expected as never, "seed-1"));
    expect(Object.keys(card)).toEqual(t.grader.answer.map((f) => f.field));
  });

  it("a record reference the grade did not grade, or no grade at all: the reference as written", () => {
    const t = task();
    expect(expectedCard(t, "s", grade([{ field: "status", expected: "MO-9" }])).order_id).toEqual(order);
    expect(expectedCard(t, "s").order_id).toEqual(order);
  });
});

describe("the canary exam of a GraphQL task", () => {
  it("skips the call capturing the field's value, not the token mint (another GraphQL call)", () => {
    const bank = bankFromContent(skeletonIn("graphql"));
    const t = taskOf(bank, idIn("graphql", SUB01));
    const exam = triadExams(bank, t).find((e) => e.name === "sabotage:canary_without_call:firmware_build");
    expect(exam?.sameAs).toBe(playedName([t.golden[0], t.golden[2]] as Task["golden"], "expected card"));
  });
});

describe("triadFindings", () => {
  it("plays the answer key once: its trial is the answer_key exam's", async () => {
    const bank = bankFromContent(skeletonContent());
    const t = taskOf(bank, SUB01);
    const inner = sharedTrials(bank);
    let golden = 0;
    const runner: TrialRunner = {
      run: (task, agent, epoch, options) => {
        if (agent === goldenAgentFactory) golden++;
        return inner.run(task, agent, epoch, options);
      },
      release: (task) => inner.release(task),
    };
    expect(await triadFindings(bank, t, runner)).toEqual([]);
    expect(golden).toBe(1);
  });
});
