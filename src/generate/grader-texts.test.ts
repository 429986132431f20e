import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "./default-bank.js";

/**
 * Every text of a task's grader and requirements that a reader sees (`apiflow explain`, the HTML
 * viewer, a failure reason) and that still holds a golden placeholder (`{{p15_id0}}`): a name only
 * the generator knew, shown as if it were part of the API. By where it is in the task.
 */
function placeholderTexts(task: Task): string[] {
  const out: string[] = [];
  const check = (where: string, text: string | undefined) => {
    if (text?.includes("{{")) out.push(`${where}: ${text}`);
  };
  const { grader } = task;
  for (const a of grader.answer) check(`answer.${a.field}`, a.explain);
  for (const p of grader.g1) check(`g1.${p.id}`, p.explain);
  for (const c of grader.constraints) check(`constraints.${c.id}`, c.explain);
  for (const c of grader.checkpoints ?? []) check(`checkpoints.${c.id}`, c.explain);
  for (const r of task.requirements ?? []) {
    check(`requirements.${r.id}.sentence`, r.sentence);
    check(`requirements.${r.id}.brief`, r.brief);
  }
  return out;
}

describe("grader texts name no golden placeholder (agent audit 18)", () => {
  const bank = bankFromContent(defaultBankContent());

  it("the audit's case: a provenance read from a widened path says so in the API's words", () => {
    const task = bank.tasks.find((t) => t.id === "harbor-telemetry-sub15") as Task;
    const berth = task.grader.g1.find((p) => p.id === "berth_provenance");
    expect(berth?.explain).toBe("The berth must come from the GET /v3/vessels/{…} response.");
    // The explain tells what the pattern holds: any one segment where the golden had its placeholder.
    expect(berth?.kind === "data_flow" && berth.from_response_url_pattern).toBe(
      "^/v3/vessels/[^/?]+(\\?.*)?$",
    );
  });

  it.each(["apiflow-1", "hunter-7"])("no task of the bank of seed %s shows one", (seed) => {
    const tasks = seed === "apiflow-1" ? bank.tasks : bankFromContent(defaultBankContent(seed)).tasks;
    const found = tasks.flatMap((t) => placeholderTexts(t).map((p) => `${t.id} ${p}`));
    expect(found).toEqual([]);
    // The widened provenance predicates are among those checked, not missing from the bank.
    const widened = tasks.flatMap((t) => t.grader.g1.filter((p) => p.explain.includes("{…}")));
    expect(widened.length).toBeGreaterThan(100);
  });

  it("the check finds a placeholder in each kind of text it reads", () => {
    const task = bank.tasks.find((t) => t.id === "harbor-telemetry-sub15") as Task;
    const doctored: Task = {
      ...task,
      grader: {
        ...task.grader,
        answer: task.grader.answer.map((a, i) => (i === 0 ? { ...a, explain: "from {{p15_id0}}" } : a)),
        g1: task.grader.g1.map((p) =>
          p.id === "berth_provenance" ? { ...p, explain: "GET /v3/vessels/{{p15_id0}}" } : p,
        ),
        constraints: task.grader.constraints.map((c, i) => (i === 0 ? { ...c, explain: "{{x}}" } : c)),
      },
      requirements: (task.requirements ?? []).map((r, i) =>
        i === 0 ? { ...r, brief: "read {{p15_id0}}" } : r,
      ),
    };
    expect(placeholderTexts(doctored).map((p) => p.split(":")[0])).toEqual([
      "answer.firmware_build",
      "g1.berth_provenance",
      "constraints.no_deprecated_family",
      "requirements.whole_collection.brief",
    ]);
    expect(placeholderTexts(task)).toEqual([]);
  });
});
