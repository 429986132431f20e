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
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { chainSegments } from "./certify-kit.js";
import { chainReplayFindings, chainReplayGate, negativeReplays } from "./chain-replay.js";
import { freshTrials, sharedTrials } from "./trial-tree.js";

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

  it("a solo task is left to the other gates, even when its golden fails", async () => {
    const broken = bankWith(SUB01, (t) => ({ ...t, golden: t.golden.filter((s) => s.op === "answer") }));
    expect(await chainReplayFindings(broken, taskOf(broken, SUB01), sharedTrials(broken))).toEqual({
      failures: [],
      notes: [],
    });
    const solo = taskOf(broken, SUB01);
    expect((await sharedTrials(broken).run(solo, goldenAgentFactory)).grade.passed).toBe(false);
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
  // The order captures its id, as the golden's does: a step's own captures are never swapped in.
  const order = (firmware: string): GoldenStep => ({
    op: "execute",
    request: { method: "POST", url: "/v3/maintenance-orders", body: { firmware_build: `{{${firmware}}}` } },
    capture: { order: "order_id" },
  });
  const mint = chain.golden[0] as GoldenStep;
  /** Segment 1 is the golden's first step alone; segment 2 the rest. */
  const segments = [
    { position: 1, start: 0, end: 1 },
    { position: 2, start: 1, end: 4 },
  ];
  const swapOf = (golden: GoldenStep[]) =>
    negativeReplays(bank, { ...chain, golden }, segments).find((r) => r.name === "wrong_segment_value:2");
  /** The wrong-value replays of `golden` split at `segs`: [name, index of the step changed]. */
  const swapsOf = (golden: GoldenStep[], segs: typeof segments, task: Task = chain) =>
    negativeReplays(bank, { ...task, golden }, segs)
      .filter((r) => r.name.startsWith("wrong_segment_value:"))
      .map((r) => [r.name, r.steps.findIndex((s, i) => s !== golden[i])]);

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

  it("only the segment's first request sending the value is swapped; a later one sending it too is kept", () => {
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      mint,
      read("/v3/vessels/V-311", { berth: "berth" }),
      order("firmware"),
      order("firmware"),
    ];
    const swap = negativeReplays(bank, { ...chain, golden }, [
      { position: 1, start: 0, end: 1 },
      { position: 2, start: 1, end: 5 },
    ]).find((r) => r.name === "wrong_segment_value:2");
    expect(swap?.steps).toEqual([...golden.slice(0, 3), order("berth"), order("firmware")]);
  });

  it("a segment's swap is looked for in its own steps only, not in the next segment's first step", () => {
    // Segment 2 (the mint and the berth read) sends no captured value; segment 3's order does.
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      mint,
      read("/v3/vessels/V-311", { berth: "berth" }),
      order("firmware"),
    ];
    const three = [
      { position: 1, start: 0, end: 1 },
      { position: 2, start: 1, end: 3 },
      { position: 3, start: 3, end: 4 },
    ];
    expect(swapsOf(golden, three)).toEqual([["wrong_segment_value:3", 3]]);
  });

  it("no swap when the only earlier segment holding other values is the value's own origin", () => {
    // Segment 1 read both the firmware and the channel: sending the channel instead tells nothing of
    // which segment the firmware came from. Segment 3 reads the firmware again, but after the order.
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build", channel: "firmware_channel" }),
      { op: "read_spec" } as GoldenStep,
      order("firmware"),
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
    ];
    const three = [
      { position: 1, start: 0, end: 1 },
      { position: 2, start: 1, end: 3 },
      { position: 3, start: 3, end: 4 },
    ];
    expect(swapsOf(golden, three)).toEqual([]);
  });

  it("the value swapped in is another one than the one sent, even where the other segment captured both", () => {
    // Segment 2 reads the firmware itself; segment 1 captured the firmware first, then the channel.
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build", channel: "firmware_channel" }),
      mint,
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      order("firmware"),
    ];
    expect(swapOf(golden)?.steps).toEqual([...golden.slice(0, 3), order("channel")]);
  });

  it("a selective chain's ungraded segment gets no wrong-value replay", () => {
    const golden = [
      read("/v3/vessels/V-204", { firmware: "firmware_build" }),
      mint,
      read("/v3/vessels/V-311", { berth: "berth" }),
      order("firmware"),
    ];
    expect(swapsOf(golden, segments)).toEqual([["wrong_segment_value:2", 3]]);
    const selective: Task = {
      ...chain,
      grader: { ...chain.grader, chain_mode: "selective" },
      graded_segments: [1],
    };
    expect(swapsOf(golden, segments, selective)).toEqual([]);
  });

  it("a chain graded in full that names graded segments is graded in full: every replay, and no skip must break a later segment", () => {
    const named = bankWith(CHAIN, (t) => ({ ...t, graded_segments: [1, 3] }));
    const task = taskOf(named, CHAIN);
    const split = chainSegments(task);
    if (!split.success) throw new Error(split.error);
    expect(negativeReplays(named, task, split.data).map((r) => [r.name, r.laterMustFail])).toEqual(
      CHAIN_NEGATIVE_REPLAYS.map((name) => [name, undefined]),
    );
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

  it("a later segment failing only its labour (G1) counts as broken: no nominal-coupling note", async () => {
    // Segment 3 reports nothing (no answer field): skipping segment 1 fails only its G1 (the order
    // carries no firmware), while its G2 passes.
    const labourOnly = bankWith(CHAIN, (t) => ({
      ...t,
      golden: t.golden.filter((_, i) => i !== 6),
      grader: { ...t.grader, answer: t.grader.answer.filter((f) => f.segment !== 3) },
    }));
    expect(await chainReplayGate(labourOnly, labourOnly.tasks)).toMatchObject({ failed: 0, notes: [] });
  });

  it("only skips decide the note: replays graded in full (fresh trials) that fail a later segment do not drop it", async () => {
    // decoy@7 and wrong_segment_value:3 fail segment 3; a shared runner grades them verdict-only.
    const bank = bankFromContent(skeletonContent());
    const report = await chainReplayGate(bank, bank.tasks, freshTrials(bank));
    expect(report.notes).toEqual([
      `${CHAIN}: coupling "value" is nominal — skipping any earlier segment leaves every later segment passing (full mode still fails the skip)`,
    ]);
  });
});
