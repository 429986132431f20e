import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import type { G1Predicate, GoldenStep, Task } from "../../bank/task-schema.js";
import { worldOf } from "../../certify/certify-kit.js";
import { legitimateVariants } from "../../certify/legitimate-variants.js";
import { legitimateVariantFindings } from "../../certify/requirement-gates.js";
import { sharedTrials } from "../../certify/trial-tree.js";
import { defaultBankContent } from "../default-bank.js";

// Issue 15, legitimate variants: the other-route variant moves a record's update onto the record's
// own update sub-route (its settings: the version read, a 409 when another writer overtook it, the
// re-read and the resend), and a create onto the parent's nested create in chains too. The gate
// must reject a grader that knows the record's own update route only.

const bank = bankFromContent(defaultBankContent());
type Execute = Extract<GoldenStep, { op: "execute" }>;
const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";
const toSettings = (steps: readonly GoldenStep[]) =>
  steps.some((s) => isExecute(s) && s.request.method !== "GET" && /\/settings$/.test(s.request.url));

/** A solo task whose grader checks the value an update of a record's own route writes. */
const task = bank.tasks.find(
  (t) =>
    t.kind === "solo" &&
    t.grader.g1.some((p) => p.kind === "call" && p.sent !== undefined && /\/settings/.test(p.url_pattern)) &&
    legitimateVariants(worldOf(bank, t), t).some((v) => v.kind === "other_route" && toSettings(v.steps)),
);
const variant = task
  ? legitimateVariants(worldOf(bank, task), task).find((v) => v.kind === "other_route" && toSettings(v.steps))
  : undefined;

/** The task with its write checks narrowed back to the record's own update route. */
function ownRouteOnly(t: Task): Task {
  const g1 = t.grader.g1.map((p): G1Predicate => {
    if (p.kind !== "call" || !p.url_pattern.startsWith("^(?:")) return p;
    const own = p.url_pattern.slice(4).split("|")[0];
    return { ...p, url_pattern: `^${own}$` };
  });
  return { ...t, grader: { ...t.grader, g1 } };
}

describe("legitimate variants: an update written through the record's settings route", () => {
  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(variant).toBeDefined();
  });

  it("the variant reads the version, is overtaken once, re-reads and resends, and passes", async () => {
    if (!task || !variant) throw new Error("no settings variant");
    const methods = variant.steps
      .filter((s): s is Execute => isExecute(s) && /\/settings$/.test(s.request.url))
      .map((s) => s.request.method === "GET");
    expect(methods).toEqual([true, false, true, false]);
    expect(await legitimateVariantFindings(bank, task, sharedTrials(bank))).toEqual([]);
  });

  it("the gate fails a grader that knows the record's own update route only", async () => {
    if (!task) throw new Error("no settings variant");
    const narrowed = ownRouteOnly(task);
    const nb = { ...bank, tasks: bank.tasks.map((t) => (t.id === task.id ? narrowed : t)) };
    const failures = await legitimateVariantFindings(nb, narrowed, sharedTrials(nb));
    expect(failures.map((f) => f.check)).toContain("false_fail:other_route");
    expect(failures.find((f) => f.check === "false_fail:other_route")?.message).toMatch(
      /other_route@\d+ fails: .*no (PUT|PATCH) to/,
    );
  });
});
