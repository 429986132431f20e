import { describe, expect, it } from "vitest";
import { bankWith, CHAIN, selectiveChain, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import type { Bank } from "../bank/bank.js";
import { bankFromContent } from "../bank/bank.js";
import { chainReplayFindings } from "./chain-replay.js";
import { type RunOptions, sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * Which negative replays the chain gate reads past their verdict (issue 21: mutation testing): a
 * skip's later segments are read in full only where they can change the findings (a selective
 * chain's skip must break a later segment; a chain that may get the nominal-coupling note needs one
 * skip that does); every other replay is graded fail-fast, its verdict alone read.
 */
async function findings(bank: Bank) {
  const shared = sharedTrials(bank);
  const runs: Array<{ agent: string; failFast: boolean | undefined }> = [];
  const runner: TrialRunner = {
    run: (task, agent, epoch, options?: RunOptions) => {
      if (agent.name.startsWith("replay-")) runs.push({ agent: agent.name, failFast: options?.failFast });
      return shared.run(task, agent, epoch, options);
    },
    release: (task) => shared.release(task),
  };
  const out = await chainReplayFindings(bank, taskOf(bank, CHAIN), runner);
  return { ...out, runs };
}

const skips = (runs: Array<{ agent: string; failFast: boolean | undefined }>) =>
  runs.filter((r) => r.agent.startsWith("replay-skip_segment:"));

describe("chain replays read past their verdict", () => {
  it("only fail-fast for a chain declaring no coupling: no finding reads a later segment", async () => {
    const { failures, notes, runs } = await findings(bankWith(CHAIN, (t) => ({ ...t, coupling: "none" })));
    expect(failures).toEqual([]);
    expect(notes).toEqual([]);
    expect(skips(runs).length).toBeGreaterThan(0);
    for (const r of runs) expect(r.failFast, r.agent).toBe(true);
  });

  it("in full for a chain that may be noted nominal, skip by skip until one breaks a later segment", async () => {
    // The skeleton chain's skips break no later segment (segment 3 re-reads what it needs): each is read.
    const { runs } = await findings(bankFromContent(skeletonContent()));
    expect(skips(runs).length).toBeGreaterThan(0);
    for (const r of skips(runs)) expect(r.failFast, r.agent).toBe(false);
    for (const r of runs.filter((x) => !x.agent.startsWith("replay-skip_segment:")))
      expect(r.failFast).toBe(true);
  });

  it("in full for a selective chain's skip, which must break a later graded segment", async () => {
    // Graded [1, 3]: segment 3 re-derives what it needs, so the skip of 1 breaks nothing (a finding
    // the full grade of the skip shows, segment by segment).
    const { failures, runs } = await findings(bankWith(CHAIN, selectiveChain));
    expect(failures.map((f) => f.check)).toEqual(["skip_segment:1"]);
    expect(skips(runs)).toEqual([{ agent: "replay-skip_segment:1", failFast: false }]);
  });
});
