import { describe, expect, it } from "vitest";
import { bankWith, SUB01, taskOf } from "../../test/support/test-banks.js";
import type { Task } from "../bank/task-schema.js";
import { triadExams } from "./triad.js";

/**
 * Which answer fields get a canary_without_call exam: only a field whose value a golden call
 * captures (skipping the call is the sabotage). A field answered from the vault, or one the
 * golden's answer does not bind, has no call to skip.
 */
describe("grader triad: the canary exam needs a call that captures the field's value", () => {
  const examsOf = (edit: (t: Task) => Task) => {
    const bank = bankWith(SUB01, edit);
    return triadExams(bank, taskOf(bank, SUB01)).map((e) => e.name);
  };
  const answerWith = (t: Task, fields: (f: Record<string, string>) => Record<string, string>): Task => ({
    ...t,
    golden: t.golden.map((s) => (s.op === "answer" ? { ...s, fields: fields(s.fields) } : s)),
  });

  it("a field answered from a vault value no call captures gets none", () => {
    const names = examsOf((t) => answerWith(t, (f) => ({ ...f, firmware_channel: "client_id" })));
    expect(names).toContain("sabotage:canary_without_call:firmware_build");
    expect(names).not.toContain("sabotage:canary_without_call:firmware_channel");
  });

  it("a field the golden's answer does not bind gets none", () => {
    const names = examsOf((t) =>
      answerWith(t, (f) => {
        const { firmware_channel: _gone, ...rest } = f;
        return rest;
      }),
    );
    expect(names).toContain("sabotage:canary_without_call:firmware_build");
    expect(names).not.toContain("sabotage:canary_without_call:firmware_channel");
  });
});
