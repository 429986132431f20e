import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import type { G1Predicate, Task } from "../../bank/task-schema.js";
import { playAndAnswer, scripted, trial } from "../../certify/certify-kit.js";
import { defaultBankContent } from "../default-bank.js";

// A chain with two refresh-renewal segments: each asks for a refresh grant at each of its own
// pauses (`renewed_at_each_pause`, a call count with a minimum). The log has no segment marks, so
// the second segment's count was met by the first segment's refreshes: a second sweep renewed by
// minting with the client credentials passed. No such chain occurs in the default bank (nor in
// twelve other seeds): the storyline deals the template once per world. The test gives a default
// chain that holds one renewal segment a second one, as its grader would state it, and plays the
// golden, which renews by refresh for the first segment only.

const bank = bankFromContent(defaultBankContent());
const isRenewal = (p: G1Predicate) => p.kind === "call_count" && p.id === "renewed_at_each_pause";

/** A chain with one renewal segment, and another graded segment to give the second renewal to. */
function twoRenewals(): { chain: Task; second: number; first: number } | null {
  for (const t of bank.tasks) {
    if (t.kind !== "chain") continue;
    const renewals = t.grader.g1.filter(isRenewal);
    if (renewals.length !== 1) continue;
    const first = renewals[0]?.segment;
    const graded = t.grader.chain_mode === "selective" ? (t.graded_segments ?? []) : t.positions;
    const second = graded.filter((s) => s !== first).at(-1);
    if (first === undefined || second === undefined || second < first) continue;
    const g1 = [...t.grader.g1, { ...(renewals[0] as G1Predicate), segment: second }];
    return { chain: { ...t, grader: { ...t.grader, g1 } }, second, first };
  }
  return null;
}

describe("a chain with two refresh-renewal segments", () => {
  const found = twoRenewals();

  it("the chain this test needs exists in the default bank", () => {
    expect(found).not.toBeNull();
  });

  it("the golden renewing for the first segment only fails the second segment's renewal count", async () => {
    if (!found) throw new Error("no chain with a refresh-renewal segment");
    const { chain, second, first } = found;
    const original = bank.tasks.find((t) => t.id === chain.id) as Task;
    const agent = scripted(bank, "golden", async (session) => {
      await playAndAnswer(session, chain, chain.golden);
    });
    // The control: the chain as generated passes its golden.
    const control = await trial(bank, original, agent);
    expect(control.grade.failure_reason).toBe("");
    const r = await trial(bank, chain, agent);
    const refreshes = r.events.filter(
      (e) =>
        e.type === "exchange" &&
        e.status === 200 &&
        (e.request_body as Record<string, unknown> | null)?.grant_type === "refresh_token",
    ).length;
    const renewal = chain.grader.g1.find((p) => isRenewal(p) && p.segment === first);
    const min = renewal?.kind === "call_count" ? (renewal.min ?? 0) : 0;
    // Honest: the golden's refreshes meet one segment's count, not two.
    expect(refreshes).toBeGreaterThanOrEqual(min);
    expect(refreshes).toBeLessThan(2 * min);
    const results = r.grade.g1.filter((g) => g.id === "renewed_at_each_pause");
    expect(results.map((g) => [g.segment, g.passed])).toEqual([
      [first, true],
      [second, false],
    ]);
    expect(r.grade.passed).toBe(false);
    expect(results[1]?.reason).toMatch(
      new RegExp(`allows at least ${2 * min} for segment ${second} and the segments before it`),
    );
  });
});
