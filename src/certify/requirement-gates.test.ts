import { describe, expect, it } from "vitest";
import {
  CHANNEL_TASK,
  channelTask,
  channelTaskWithRequirements,
  JOB_TASK,
  jobTaskWithRequirements,
  keyOnlyWriteCheck,
  positionalJobTask,
  REQUIREMENT_WORLD,
  requirementBank,
} from "../../test/support/requirement-banks.js";
import { taskOf } from "../../test/support/test-banks.js";
import { certifyBank, failedTaskIds } from "./certify-bank.js";
import { goldenMutants } from "./golden-mutants.js";
import { legitimateVariants } from "./legitimate-variants.js";
import { legitimateVariantFindings, requirementMutantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

describe("requirement mutants", () => {
  it("derives the issue's operators from a golden: another value, a sibling record, a step or wait dropped, a create repeated", () => {
    const bank = requirementBank([channelTask()]);
    const names = goldenMutants(REQUIREMENT_WORLD, taskOf(bank, CHANNEL_TASK)).map((m) => m.name);
    expect(names).toEqual(["other_value@2:firmware_channel", "sibling_target@2", "drop_step@2"]);
    const job = goldenMutants(REQUIREMENT_WORLD, positionalJobTask()).map((m) => m.name);
    // The job is submitted, polled and confirmed once more; the poll's wait is dropped.
    expect(job).toContain("repeat@2");
    expect(job).toContain("drop_wait@3");
  });

  it("are all killed by a grader that holds the value written and the record written", async () => {
    const bank = requirementBank([channelTask()]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures).toEqual([]);
    expect(r.count).toEqual({ generated: 3, killed: 3 });
  });

  it("survive a key-only write check, naming the step and the value it let through", async () => {
    const bank = requirementBank([keyOnlyWriteCheck(channelTask())]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures.map((f) => f.check)).toEqual(["survived:other_value"]);
    expect(r.failures[0]?.message).toBe(
      "mutant other_value@2:firmware_channel passes: the grader does not hold golden step 2 (PATCH /v3/vessels/V-412)",
    );
    expect(r.count).toEqual({ generated: 3, killed: 2 });
  });
});

describe("requirement mutants, per requirement", () => {
  it("break each requirement alone and are killed naming it", async () => {
    const bank = requirementBank([channelTaskWithRequirements(), jobTaskWithRequirements()]);
    const channel = taskOf(bank, CHANNEL_TASK);
    expect(goldenMutants(REQUIREMENT_WORLD, channel).map((m) => m.name)).toEqual([
      "channel_set:other_value@2:firmware_channel",
      "on_v412:sibling_target@2",
      "berth_reported:wrong_card:berth",
    ]);
    const r = await requirementMutantFindings(bank, channel, sharedTrials(bank));
    expect(r).toEqual({ failures: [], count: { generated: 3, killed: 3 } });
    // The job is submitted, polled and confirmed twice: the call count names one_order.
    const job = taskOf(bank, JOB_TASK);
    expect(goldenMutants(REQUIREMENT_WORLD, job).map((m) => m.name)).toEqual([
      "one_order:repeat@2",
      "order_reported:wrong_card:order_id",
    ]);
    expect(await requirementMutantFindings(bank, job, sharedTrials(bank))).toEqual({
      failures: [],
      count: { generated: 2, killed: 2 },
    });
  });

  it("fail a requirement that no golden step can break: the gate cannot show it is held", async () => {
    // The PATCH has no decoy sibling in this world, so nothing breaks "stay canonical".
    const t = channelTaskWithRequirements();
    const stay = { id: "stay_canonical", kind: "stay_canonical" as const, predicates: ["berth_from_update"] };
    const bank = requirementBank([{ ...t, requirements: [...(t.requirements ?? []), stay] }]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures).toEqual([
      {
        task_id: CHANNEL_TASK,
        check: "no_mutant:stay_canonical",
        message:
          "requirement stay_canonical (stay_canonical) offers no golden step to break: the gate cannot show it is held",
      },
    ]);
    expect(r.count).toEqual({ generated: 3, killed: 3 });
  });

  it("survive a key-only write check, naming the requirement it lets through", async () => {
    const bank = requirementBank([channelTaskWithRequirements(keyOnlyWriteCheck(channelTask()))]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures.map((f) => f.message)).toEqual([
      "mutant channel_set:other_value@2:firmware_channel passes: the grader does not hold requirement channel_set",
    ]);
  });

  it("are not killed by a failure that names another requirement", async () => {
    // A grader without the write check: the PATCH aimed at V-311 fails only the card (V-311's
    // berth), which holds berth_reported, not on_v412.
    const bank = requirementBank([
      channelTaskWithRequirements({
        ...keyOnlyWriteCheck(channelTask()),
        grader: {
          ...channelTask().grader,
          g1: keyOnlyWriteCheck(channelTask()).grader.g1.filter((p) => p.id !== "channel_written"),
        },
      }),
    ]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures.map((f) => f.check)).toEqual(["survived:other_value", "survived:sibling_target"]);
    expect(r.failures[1]?.message).toMatch(
      /^mutant on_v412:sibling_target@2 fails without naming requirement on_v412: .*berth/,
    );
  });
});

describe("requirement mutants of derived requirements (value flows, canonical routes)", () => {
  /** The channel task with the berth's flow and the v3-only rule stated as requirements. */
  function flowTask() {
    const t = channelTaskWithRequirements();
    const noV2 = { kind: "forbid" as const, id: "stay_on_v3", explain: "", url_pattern: "^/v2/" };
    return {
      ...t,
      grader: { ...t.grader, constraints: [noV2] },
      requirements: [
        ...(t.requirements ?? []).filter((r) => r.kind !== "report"),
        { id: "berth_carried", kind: "value_flow" as const, predicates: ["berth_from_update"] },
        { id: "report", kind: "report" as const, predicates: ["answer:berth"], fields: ["berth"] },
        { id: "stay_canonical", kind: "stay_canonical" as const, predicates: ["stay_on_v3"] },
      ],
    };
  }

  it("break a value flow (the card field wrong) and the canonical routes (a call to the deprecated family), naming each", async () => {
    const bank = requirementBank([flowTask()]);
    const task = taskOf(bank, CHANNEL_TASK);
    expect(goldenMutants(REQUIREMENT_WORLD, task).map((m) => m.name)).toEqual([
      "channel_set:other_value@2:firmware_channel",
      "on_v412:sibling_target@2",
      "berth_carried:wrong_card:berth",
      "report:wrong_card:berth",
      "stay_canonical:forbidden_call:stay_on_v3",
    ]);
    const r = await requirementMutantFindings(bank, task, sharedTrials(bank));
    expect(r).toEqual({ failures: [], count: { generated: 5, killed: 5 } });
  });

  it("cannot show a flow no data flow holds, nor a rule the grader does not check: no mutant, a failure each", async () => {
    // The flow names the write check only: no value is traced, so no step carries it.
    const t = flowTask();
    const weak = {
      ...t,
      grader: { ...t.grader, constraints: [] },
      requirements: (t.requirements ?? []).map((r) =>
        r.id === "berth_carried" ? { ...r, predicates: ["channel_written"] } : r,
      ),
    };
    const bank = requirementBank([weak]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    // Without the constraint, no route is forbidden: the gate cannot show stay_canonical is held.
    expect(r.failures.map((f) => f.check).sort()).toEqual([
      "no_mutant:stay_canonical",
      "no_mutant:value_flow",
    ]);
  });
});

describe("legitimate variants", () => {
  it("derives what a careful agent may do differently: a failed attempt, extra reads", () => {
    const names = legitimateVariants(REQUIREMENT_WORLD, channelTask()).map((v) => v.name);
    expect(names).toEqual(["failed_attempt@2", "extra_reads"]);
    const job = legitimateVariants(REQUIREMENT_WORLD, positionalJobTask()).map((v) => v.name);
    expect(job).toEqual(["failed_attempt@2", "abandoned_job@2", "failed_attempt@4"]);
  });

  it("all pass a grader that names records by what the ticket asks", async () => {
    const bank = requirementBank([channelTask(), jobTaskWithRequirements()]);
    expect(await legitimateVariantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank))).toEqual([]);
    // The abandoned submit mints an order id first; the order expected is the one confirmed for V-204.
    expect(await legitimateVariantFindings(bank, taskOf(bank, JOB_TASK), sharedTrials(bank))).toEqual([]);
  });

  it("catch a grader that expects the Nth id minted: an abandoned submit before the real one moves it", async () => {
    const bank = requirementBank([positionalJobTask()]);
    const failures = await legitimateVariantFindings(bank, taskOf(bank, JOB_TASK), sharedTrials(bank));
    expect(failures.map((f) => f.check)).toEqual(["false_fail:abandoned_job"]);
    expect(failures[0]?.message).toMatch(/^legitimate variant abandoned_job@2 fails: .*order_id/);
  });
});

describe("the two gates in certification", () => {
  it("report under gates.requirement_mutants and gates.legitimate_variants, both hard", async () => {
    const bank = requirementBank([keyOnlyWriteCheck(channelTask()), positionalJobTask()]);
    const gates = ["requirement_mutants", "legitimate_variants"] as const;
    const report = await certifyBank(bank, { gates: [...gates] });
    expect(report.gates.requirement_mutants).toMatchObject({ checked: 2, failed: 2, hard: true });
    expect(report.gates.requirement_mutants?.first_failure).toMatch(/^req-channel: mutant other_value@2/);
    expect(report.gates.legitimate_variants).toMatchObject({
      checked: 2,
      passed: 1,
      failed: 1,
      hard: true,
    });
    // The key-only write check and the positional job grader let mutants through: both tasks fail
    // certification on the hard gate alone.
    expect(report.ok).toBe(false);
    expect([...failedTaskIds(report)].sort()).toEqual([JOB_TASK, CHANNEL_TASK].sort());

    const hard = await certifyBank(bank, { gates: [...gates], hardGates: [...gates] });
    expect(hard.gates.legitimate_variants?.hard).toBe(true);
    expect([...failedTaskIds(hard)].sort()).toEqual([JOB_TASK, CHANNEL_TASK].sort());
  });
});
