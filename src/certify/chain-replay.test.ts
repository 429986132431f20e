import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { chainSegments } from "./certify-kit.js";
import { chainReplayGate, negativeReplays } from "./chain-replay.js";
import { bankWith, CHAIN, skeletonContent, taskOf } from "./test-banks.js";

describe("chain replays", () => {
  const bank = bankFromContent(skeletonContent());
  const chain = taskOf(bank, CHAIN);

  it("locates each segment of the chain golden by where its answer values are captured", () => {
    const segments = chainSegments(chain);
    expect(segments.success && segments.data.map((s) => [s.position, s.start, s.end])).toEqual([
      [1, 0, 2],
      [2, 2, 5],
      [3, 5, 10],
    ]);
  });

  it("passes the skeleton chain: golden replay passes, every negative replay fails", async () => {
    const segments = chainSegments(chain);
    if (!segments.success) throw new Error(segments.error);
    expect(negativeReplays(bank, chain, segments.data).map((r) => r.name)).toEqual([
      "skip_segment:1",
      "skip_segment:2",
      "wrong_segment_value:3",
      "decoy@2",
      "decoy@5",
      "decoy@7",
    ]);
    const report = await chainReplayGate(bank, bank.tasks);
    expect(report).toMatchObject({ checked: 1, passed: 1, failed: 0 });
    // Segment 3 re-reads the firmware itself: full mode is sound, but the coupling is nominal.
    expect(report.notes.join("\n")).toMatch(/coupling "value" is nominal/);
  });

  it("rejects a chain whose later segment does not depend on the earlier one it claims to consume", async () => {
    // Graded selectively as if segment 3 consumed segment 1; it re-derives everything itself.
    const broken = bankWith(CHAIN, (t) => ({
      ...t,
      grader: { ...t.grader, chain_mode: "selective" },
      graded_segments: [1, 3],
    }));
    const report = await chainReplayGate(broken, [taskOf(broken, CHAIN)]);
    expect(report.failures.map((f) => f.check)).toEqual(["skip_segment:1"]);
    expect(report.first_failure).toMatch(/segment 1 skipped every later graded segment still passes/);
  });

  it("rejects a chain whose segments cannot be located", async () => {
    // Segment 2's berth and port are never captured: where segment 2 ends cannot be told.
    const broken = bankWith(CHAIN, (t) => ({
      ...t,
      golden: t.golden.map((s) => (s.op === "execute" && "berth" in s.capture ? { ...s, capture: {} } : s)),
    }));
    const report = await chainReplayGate(broken, [taskOf(broken, CHAIN)]);
    expect(report.failures.map((f) => f.check)).toEqual(["golden_replay", "segments"]);
    expect(report.failures[1]?.message).toMatch(/never captures the answer values of segment 2/);
  });

  it("rejects a chain whose grader ignores a wrong-segment value", async () => {
    const broken = bankWith(CHAIN, (t) => ({
      ...t,
      grader: { ...t.grader, g1: t.grader.g1.filter((p) => p.id !== "firmware_carried_into_order") },
    }));
    const report = await chainReplayGate(broken, [taskOf(broken, CHAIN)]);
    expect(report.failures.map((f) => f.check)).toContain("wrong_segment_value:3");
  });
});
