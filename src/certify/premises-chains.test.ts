import { describe, expect, it } from "vitest";
import { defaultBank as bank } from "../../test/support/default-bank-replay.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Premise } from "../bank/premise-schema.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { chainSegments } from "./certify-kit.js";
import { premiseFindings } from "./premises.js";
import { freshTrials } from "./trial-tree.js";

/**
 * A chain's signed-read step says the signer's nonce counter "stands at N", as its solo task does:
 * the chain carries the claim as a `nonce_counter` premise of that segment, the world is seeded
 * with it, and the premises gate checks it as the segment starts (after the chain's earlier
 * segments). Found by property: the shortest default-bank chain holding a signed read.
 */
const signs = (s: GoldenStep) => s.op === "execute" && s.request.sign !== undefined;
const chain = bank.tasks
  .filter((t) => t.kind === "chain" && t.golden.some(signs))
  .sort((a, b) => a.positions.length - b.positions.length)[0] as Task;
const counter = chain?.premises?.find((p) => p.kind === "nonce_counter") as
  | Extract<Premise, { kind: "nonce_counter" }>
  | undefined;

describe("a chain's nonce counter is a premise, checked on the world", () => {
  it("the chain carries its signed segment's counter, and the claim holds (the golden passes)", async () => {
    expect(chain).toBeDefined();
    const solo = bank.tasks.find(
      (t) => t.kind === "solo" && t.world === chain.world && t.positions[0] === counter?.segment,
    );
    expect(solo?.premises).toContainEqual({
      kind: "nonce_counter",
      url: counter?.url,
      stands_at: counter?.stands_at,
    });
    expect(chain.ticket).toContain(`stands at ${counter?.stands_at}`);
    expect(await premiseFindings(bank, chain)).toEqual([]);
    expect((await freshTrials(bank).run(chain, goldenAgentFactory)).grade.passed).toBe(true);
  }, 120_000);

  it("rejects a chain whose step claims the counter but carries no premise (the chains before)", async () => {
    const findings = await premiseFindings(bank, { ...chain, premises: undefined });
    expect(findings.map((f) => f.check)).toEqual(["nonce_counter:not_carried"]);
  }, 120_000);

  it("rejects a false claim: an earlier segment already signed past the counter", async () => {
    if (!counter?.segment) throw new Error("no counter");
    const segments = chainSegments(chain);
    if (!segments.success) throw new Error(segments.error);
    const before = segments.data.findIndex((s) => s.position === counter.segment) - 1;
    const at = segments.data[before]?.start ?? 0;
    const read = chain.golden.find(signs) as Extract<GoldenStep, { op: "execute" }>;
    // The same signed read, sent with a higher nonce as the segment before starts.
    const ahead: GoldenStep = {
      ...read,
      request: {
        ...read.request,
        headers: { ...read.request.headers, "X-Nonce": String(counter.stands_at + 5) },
      },
      capture: {},
    };
    const golden = [...chain.golden.slice(0, at), ahead, ...chain.golden.slice(at)];
    const findings = await premiseFindings(bank, { ...chain, golden });
    expect(findings.map((f) => f.check)).toContain("nonce_counter:next_refused");
  }, 120_000);

  it("rejects a counter the ticket does not state", async () => {
    if (!counter) throw new Error("no counter");
    const premises = [{ ...counter, stands_at: counter.stands_at + 3 }];
    const findings = await premiseFindings(bank, { ...chain, premises });
    expect(findings.map((f) => f.check)).toContain("nonce_counter:unquoted");
  }, 120_000);
});
