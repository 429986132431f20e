import { describe, expect, it } from "vitest";
import {
  CHANNEL_TASK,
  channelTask,
  channelTaskWithRequirements,
  requirementBank,
} from "../../test/support/requirement-banks.js";
import { taskOf } from "../../test/support/test-banks.js";
import type { Task } from "../bank/task-schema.js";
import { legitimateVariantFindings, requirementMutantFindings } from "./requirement-gates.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * The channel task whose golden first sends the PATCH with a channel the API refuses (422), then
 * the right one: a deliberately failed first attempt, which neither gate may vary.
 */
function withRefusedFirstAttempt(): Task {
  const t = channelTask();
  const [mint, patch, ...rest] = t.golden;
  if (mint === undefined || patch?.op !== "execute")
    throw new Error("the channel task's step 2 is its PATCH");
  const refused = {
    ...patch,
    request: { ...patch.request, body: { firmware_channel: "maritime-nightly" } },
    capture: {},
  };
  return { ...t, golden: [mint, refused, patch, ...rest] };
}

/** A runner that records the name of every agent it plays. */
function recording(runner: TrialRunner): { runner: TrialRunner; agents: string[] } {
  const agents: string[] = [];
  return {
    agents,
    runner: {
      run: (task, agent, epoch, options) => {
        agents.push(agent.name);
        return runner.run(task, agent, epoch, options);
      },
      release: (task) => runner.release(task),
    },
  };
}

describe("the requirement gates and a golden step that fails in the golden run", () => {
  it("mutate only the golden's calls that succeed: the refused first attempt (step 2) is no requirement", async () => {
    const bank = requirementBank([withRefusedFirstAttempt()]);
    const { runner, agents } = recording(sharedTrials(bank));
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), runner);
    expect(agents).toEqual(["golden", "mutant-other_value@3:firmware_channel", "mutant-sibling_target@3"]);
    expect(r).toEqual({ failures: [], count: { generated: 2, killed: 2 } });
  });

  it("vary only the golden's calls that succeed: no failed attempt is added before the refused one", async () => {
    const bank = requirementBank([withRefusedFirstAttempt()]);
    const { runner, agents } = recording(sharedTrials(bank));
    expect(await legitimateVariantFindings(bank, taskOf(bank, CHANNEL_TASK), runner)).toEqual([]);
    expect(agents).toEqual(["golden", "variant-failed_attempt@3", "variant-extra_reads"]);
  });
});

describe("the requirement gate's failure messages", () => {
  it("name a surviving store step's variable: a grader that never checks the store lets its drop through", async () => {
    const t = channelTask();
    const store = { op: "store" as const, name: "berth_note", scope: "local" as const, from: "berth" };
    const task: Task = { ...t, golden: [...t.golden.slice(0, 2), store, ...t.golden.slice(2)] };
    const bank = requirementBank([task]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r.failures).toEqual([
      {
        task_id: CHANNEL_TASK,
        check: "survived:drop_step",
        message: "mutant drop_step@3 passes: the grader does not hold golden step 3 (store berth_note)",
      },
    ]);
  });

  it("pair a requirement with its mutants by segment too: a chain-wide mutant does not cover a segment's requirement of the same id", async () => {
    // on_v412 holds chain-wide (its mutant retargets the PATCH), and again in segment 2 on a
    // berths route the golden never calls: that one has no step to break.
    const t = channelTaskWithRequirements();
    const onBerth = {
      id: "on_v412",
      kind: "exact_target" as const,
      predicates: ["channel_written"],
      call: { method: "PATCH", url_pattern: "^/v3/berths/[^/]+$" },
      target: "V-412",
      siblings: ["V-311"],
      segment: 2,
    };
    const chain: Task = {
      ...t,
      kind: "chain",
      positions: [2],
      requirements: [...(t.requirements ?? []), onBerth],
    };
    const bank = requirementBank([chain]);
    const r = await requirementMutantFindings(bank, taskOf(bank, CHANNEL_TASK), sharedTrials(bank));
    expect(r).toEqual({
      failures: [
        {
          task_id: CHANNEL_TASK,
          check: "no_mutant:exact_target",
          message:
            "requirement on_v412 of segment 2 (exact_target) offers no golden step to break: the gate cannot show it is held",
        },
      ],
      count: { generated: 3, killed: 3 },
    });
  });
});
