import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  CHAIN_NEGATIVE_REPLAYS,
  SUB01,
  selectiveChain,
  skeletonContent,
  taskOf,
} from "../../test/support/test-banks.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { chainSegments } from "./certify-kit.js";
import { chainReplayFindings, chainReplayGate, negativeReplays } from "./chain-replay.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * What each negative replay of the skeleton chain plays, step for step: the gate's verdict only
 * says the grader failed it, which a replay that breaks more than its one dependency would too.
 */

function replaysOf(bank: Bank) {
  const chain = taskOf(bank, CHAIN);
  const segments = chainSegments(chain);
  if (!segments.success) throw new Error(segments.error);
  return { chain, replays: negativeReplays(bank, chain, segments.data) };
}

/** The golden with step `at` (0-based) sent to `url` instead, or with its body edited. */
function withStep(
  golden: readonly GoldenStep[],
  at: number,
  edit: (s: GoldenStep & { op: "execute" }) => GoldenStep,
) {
  return golden.map((s, i) => (i === at && s.op === "execute" ? edit(s) : s));
}

describe("chain replays: the steps of each negative replay", () => {
  it("full mode: each earlier segment skipped whole, segment 3's firmware swapped for segment 2's berth, each decoy-able read sent to the decoy", () => {
    const { chain, replays } = replaysOf(bankFromContent(skeletonContent()));
    const g = chain.golden;
    const url = (s: GoldenStep & { op: "execute" }, u: string) => ({
      ...s,
      request: { ...s.request, url: u },
    });
    expect(replays).toEqual([
      { name: "skip_segment:1", steps: g.slice(2) },
      { name: "skip_segment:2", steps: [...g.slice(0, 2), ...g.slice(5)] },
      {
        name: "wrong_segment_value:3",
        steps: withStep(g, 7, (s) => ({
          ...s,
          request: { ...s.request, body: { ...(s.request.body as object), firmware_build: "{{berth}}" } },
        })),
      },
      { name: "decoy@2", steps: withStep(g, 1, (s) => url(s, "/v2/vessels/V-204")) },
      { name: "decoy@5", steps: withStep(g, 4, (s) => url(s, "/v2/vessels/V-311")) },
      { name: "decoy@7", steps: withStep(g, 6, (s) => url(s, "/v2/vessels/V-204")) },
    ]);
  });

  it("selective mode: only graded segments are skipped, swapped or decoyed, and a skip must break a later segment", () => {
    const { replays } = replaysOf(bankWith(CHAIN, selectiveChain));
    expect(replays.map((r) => [r.name, r.laterMustFail])).toEqual([
      ["skip_segment:1", 1],
      ["wrong_segment_value:3", undefined],
      ["decoy@2", undefined],
      ["decoy@7", undefined],
    ]);
  });
});

describe("chain replays: notes and findings", () => {
  it("no nominal-coupling note for a chain declaring no coupling, nor for a selective one (its skip is a failure instead)", async () => {
    const none = bankWith(CHAIN, (t) => ({ ...t, coupling: "none" }));
    expect(await chainReplayGate(none, none.tasks)).toMatchObject({ failed: 0, notes: [] });
    const selective = bankWith(CHAIN, selectiveChain);
    expect((await chainReplayGate(selective, selective.tasks)).notes).toEqual([]);
    const full = bankFromContent(skeletonContent());
    expect((await chainReplayGate(full, full.tasks)).notes).toEqual([
      `${CHAIN}: coupling "value" is nominal — skipping any earlier segment leaves every later segment passing (full mode still fails the skip)`,
    ]);
  });

  it("a solo task has no chain replay", async () => {
    const bank = bankFromContent(skeletonContent());
    expect(await chainReplayFindings(bank, taskOf(bank, SUB01), sharedTrials(bank))).toEqual({
      failures: [],
      notes: [],
    });
  });

  it("a chain whose golden fails its grader says so, with the grader's reason", async () => {
    const broken = bankWith(CHAIN, (t: Task) => ({
      ...t,
      grader: {
        ...t.grader,
        answer: t.grader.answer.map((f) => (f.field === "berth" ? { ...f, expected: "B-0" } : f)),
      },
    }));
    const found = await chainReplayFindings(broken, taskOf(broken, CHAIN), sharedTrials(broken));
    expect(found.failures[0]).toMatchObject({ task_id: CHAIN, check: "golden_replay" });
    expect(found.failures[0]?.message).toMatch(/^golden replay fails: .*berth/);
  });
});

describe("chain replays: where the wrong segment's value is found", () => {
  const bank = bankFromContent(skeletonContent());
  const chain = taskOf(bank, CHAIN);
  const read = (url: string, capture: Record<string, string>): GoldenStep => ({
    op: "execute",
    request: { method: "GET", url },
    capture,
  });
  const order = (firmware: string): GoldenStep => ({
    op: "execute",
    request: { method: "POST", url: "/v3/maintenance-orders", body: { firmware_build: `{{${firmware}}}` } },
    capture: {},
  });
  const mint = chain.golden[0] as GoldenStep;
  /** Segment 1 is the golden's first step alone; segment 2 the rest. */
  const segments = [
    { position: 1, start: 0, end: 1 },
    { position: 2, start: 1, end: 4 },
  ];
  const swapOf = (golden: GoldenStep[]) =>
    negativeReplays(bank, { ...chain, golden }, segments).find((r) => r.name === "wrong_segment_value:2");

  it("a value captured by the chain's very first step is found as the one segment 2 sends", () => {
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      mint,
      read("/v3/vessels/V-311", { berth: "berth" }),
      order("firmware"),
    ];
    // The credentials the mint sends come from the vault: no segment produced them, nothing to swap.
    expect(swapOf(golden)?.steps).toEqual([...golden.slice(0, 3), order("berth")]);
  });

  it("the chain's very first step is the other segment a value is swapped with", () => {
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      mint,
      read("/v3/vessels/V-311", { berth: "berth" }),
      order("berth"),
    ];
    expect(swapOf(golden)?.steps).toEqual([...golden.slice(0, 3), order("firmware")]);
  });

  it("a chain graded selectively without its graded segments named is graded in full: no skip must break a later segment", () => {
    const noList = bankWith(CHAIN, (t) => ({ ...t, grader: { ...t.grader, chain_mode: "selective" } }));
    const task = taskOf(noList, CHAIN);
    const split = chainSegments(task);
    if (!split.success) throw new Error(split.error);
    expect(negativeReplays(noList, task, split.data).map((r) => r.laterMustFail)).toEqual(
      CHAIN_NEGATIVE_REPLAYS.map(() => undefined),
    );
  });
});

describe("chain replays: a chain whose later segment uses an earlier one's value", () => {
  it("gets no nominal-coupling note: skipping segment 1 fails segment 3, which orders with its firmware", async () => {
    // Segment 3 no longer re-reads V-204: its order carries the firmware segment 1 read.
    const coupled = bankWith(CHAIN, (t) => ({ ...t, golden: t.golden.filter((_, i) => i !== 6) }));
    const report = await chainReplayGate(coupled, coupled.tasks);
    expect(report).toMatchObject({ checked: 1, failed: 0, notes: [] });
  });
});
