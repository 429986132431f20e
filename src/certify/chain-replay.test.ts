import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  CHAIN_NEGATIVE_REPLAYS,
  CHAIN_SEGMENTS,
  selectiveChain,
  skeletonContent,
  taskOf,
  wrongSegmentBlind,
} from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import { chainSegments } from "./certify-kit.js";
import { chainReplayGate, negativeReplays } from "./chain-replay.js";

describe("chain replays", () => {
  const bank = bankFromContent(skeletonContent());
  const chain = taskOf(bank, CHAIN);

  it("locates each segment of the chain golden by where its answer values are captured", () => {
    const segments = chainSegments(chain);
    expect(segments.success && segments.data.map((s) => [s.position, s.start, s.end])).toEqual(
      CHAIN_SEGMENTS,
    );
  });

  it("passes the skeleton chain: golden replay passes, every negative replay fails", async () => {
    const segments = chainSegments(chain);
    if (!segments.success) throw new Error(segments.error);
    expect(negativeReplays(bank, chain, segments.data).map((r) => r.name)).toEqual(CHAIN_NEGATIVE_REPLAYS);
    const report = await chainReplayGate(bank, bank.tasks);
    expect(report).toMatchObject({ checked: 1, passed: 1, failed: 0 });
    // Segment 3 re-reads the firmware itself: full mode is sound, but the coupling is nominal.
    expect(report.notes.join("\n")).toMatch(/coupling "value" is nominal/);
  });

  it("rejects a chain whose later segment does not depend on the earlier one it claims to consume", async () => {
    // Graded selectively as if segment 3 consumed segment 1; it re-derives everything itself.
    const broken = bankWith(CHAIN, selectiveChain);
    const report = await chainReplayGate(broken, [taskOf(broken, CHAIN)]);
    expect(report).toMatchObject({ checked: 1, passed: 0, failed: 1 });
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
    const broken = bankWith(CHAIN, wrongSegmentBlind);
    const report = await chainReplayGate(broken, [taskOf(broken, CHAIN)]);
    const failure = report.failures.find((f) => f.check === "wrong_segment_value:3");
    expect(failure?.message).toBe(
      "negative replay wrong_segment_value:3 passes: the chain does not depend on it",
    );
  });
});
