import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { playAndAnswer, scripted, trial, worldOf } from "./certify-kit.js";
import { legitimateVariants } from "./legitimate-variants.js";

// Issue 15 item 3: the record a ticket asks for is the one the decisive action was applied to.
// A duplicate job submitted with the very same values, followed until it awaits confirmation and
// never confirmed, is not it and does not make the expectation ambiguous; confirming the wrong
// one (the duplicate, carrying another value) fails, naming the record the grader meant.

const bank = bankFromContent(defaultBankContent());
type Execute = Extract<GoldenStep, { op: "execute" }>;
const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";

/** A solo task whose golden submits an async job that waits for a confirmation. */
const task = bank.tasks.find(
  (t) =>
    t.kind === "solo" &&
    t.golden.some((s) => isExecute(s) && /\/confirm$/.test(s.request.url)) &&
    legitimateVariants(worldOf(bank, t), t).some((v) => v.kind === "abandoned_job"),
);

function play(t: Task, steps: readonly GoldenStep[], name: string) {
  return trial(
    bank,
    t,
    scripted(bank, name, async (session) => {
      await playAndAnswer(session, t, steps);
    }),
  );
}

/** The abandoned_job variant's steps, and the binding its duplicate submit captured the job id into. */
function abandoned(t: Task) {
  const variant = legitimateVariants(worldOf(bank, t), t).find((v) => v.kind === "abandoned_job");
  if (!variant) throw new Error("no abandoned_job variant");
  const at = variant.steps.findIndex((s) => isExecute(s) && Object.values(s.capture).includes("job_id"));
  const submit = variant.steps[at] as Execute;
  const binding = Object.keys(submit.capture)[0] as string;
  return { steps: variant.steps, at, submit, binding, job: binding.replace(/__abandoned$/, "") };
}

describe("an abandoned duplicate job carrying the same values", () => {
  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("is followed until it awaits confirmation, never confirmed, and the run passes", async () => {
    if (!task) throw new Error("no confirmed async job task");
    const { steps, submit, binding } = abandoned(task);
    expect(binding).toMatch(/__abandoned$/);
    // The duplicate sends exactly the golden's body: the same values as the job confirmed.
    const golden = task.golden.find((s) => isExecute(s) && Object.values(s.capture).includes("job_id"));
    expect(submit.request.body).toEqual((golden as Execute).request.body);
    const r = await play(task, steps, "abandoned-duplicate");
    const jobs = r.events.flatMap((e) =>
      e.type === "exchange" && e.status === 202
        ? [String((e.response_body as { job_id: string }).job_id)]
        : [],
    );
    expect(jobs).toHaveLength(2);
    const polls = r.events.flatMap((e) =>
      e.type === "exchange" && e.method === "GET" && e.url.endsWith(`/${jobs[0]}`)
        ? [(e.response_body as { status: string }).status]
        : [],
    );
    expect(polls.at(-1)).toBe("awaiting_confirmation");
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });

  it("confirming the wrong one (the duplicate, with a value typed by hand) fails, naming the record meant", async () => {
    if (!task) throw new Error("no confirmed async job task");
    const { steps, at, submit, binding, job } = abandoned(task);
    const body = submit.request.body as Record<string, JsonValue>;
    const copied = Object.keys(body).find(
      (k) => typeof body[k] === "string" && String(body[k]).includes("{{"),
    );
    if (!copied) throw new Error("the submit copies no value");
    const wrong = steps.map((s, i): GoldenStep => {
      if (i === at)
        return { ...submit, request: { ...submit.request, body: { ...body, [copied]: "TYPED-0000" } } };
      if (isExecute(s) && /\/confirm$/.test(s.request.url))
        return {
          ...s,
          request: { ...s.request, url: s.request.url.replace(`{{${job}}}`, `{{${binding}}}`) },
        };
      return s;
    });
    const r = await play(task, wrong, "confirmed-the-wrong-one");
    expect(r.grade.passed).toBe(false);
    const meant = task.grader.answer.find(
      (f) => typeof f.expected === "object" && f.expected !== null && "$record" in f.expected,
    );
    const role = (meant?.expected as { $record: { role: string } } | undefined)?.$record.role ?? "";
    expect(role).not.toBe("");
    // The card reports the duplicate's id: the field fails, saying which record was meant.
    const idField = r.grade.g2.find((f) => !f.passed && f.reason?.includes(role));
    expect(idField?.reason).toMatch(/no such record at the end of the trial/);
    // And the end state (exactly one such record) names it too.
    expect(r.grade.failure_reason).toContain(role.replace(/^the /, ""));
  });

  it("confirming both (two records, both committed) fails: the count, and no record is the one meant", async () => {
    if (!task) throw new Error("no confirmed async job task");
    const { steps, binding, job } = abandoned(task);
    const confirm = steps.find((s) => isExecute(s) && /\/confirm$/.test(s.request.url)) as Execute;
    const both = [
      ...steps.slice(0, -1),
      {
        ...confirm,
        request: { ...confirm.request, url: confirm.request.url.replace(`{{${job}}}`, `{{${binding}}}`) },
        capture: {},
      },
      steps.at(-1) as GoldenStep,
    ];
    const r = await play(task, both, "confirmed-both");
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g2.some((f) => /2 records match at the end of the trial/.test(f.reason ?? ""))).toBe(true);
    expect(r.grade.g1.some((p) => p.kind === "end_state" && !p.passed)).toBe(true);
  });
});
