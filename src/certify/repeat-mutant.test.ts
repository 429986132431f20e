import { describe, expect, it } from "vitest";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { worldOf } from "./certify-kit.js";
import { goldenExchanges } from "./golden-edits.js";
import { goldenMutants } from "./golden-mutants.js";
import { requirementMutantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * A chain on a refresh-rotation world whose last segment (a partial write) must commit one
 * contact pass: its repeat mutant re-mints the session's token before the second create.
 */
describe("the repeat mutant in a chain on a refresh-rotation world", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  // The shortest such chain whose last segment commits once (which world holds one is the seed's deal).
  const rotation = new Set(
    content.worlds.filter((w) => w.auth.scheme === "refresh_rotation").map((w) => w.id),
  );
  const task = content.tasks
    .filter(
      (t) =>
        t.kind === "chain" &&
        rotation.has(t.world) &&
        t.positions.length >= 3 &&
        (t.requirements ?? []).some((r) => r.id === "committed_once" && r.segment === t.positions.length),
    )
    .sort((a, b) => a.positions.length - b.positions.length)[0];
  if (!task) throw new Error("no refresh-rotation chain ends in a commit-once segment");

  it("re-mints with the newest refresh token, not the vault's one rotation already spent", async () => {
    const runner = sharedTrials(bank);
    const exchanges = goldenExchanges(task, (await runner.run(task, goldenAgentFactory)).events);
    const mutant = goldenMutants(
      worldOf(bank, task),
      task,
      exchanges.map((e) => e?.status),
      exchanges,
    ).find((m) => m.requirement === "committed_once" && m.operator === "repeat");
    if (!mutant) throw new Error("no repeat mutant of committed_once");
    const steps = mutant.steps("seed");
    // The inserted mint sits right before the repeated create (the golden is one step shorter).
    const mint = steps[mutant.step];
    expect(mint?.op === "execute" && mint.request.url).toBe(worldOf(bank, task).auth.token_path);
    const body = mint?.op === "execute" ? (mint.request.body as Record<string, unknown>) : {};
    expect(body.grant_type).toBe("refresh_token");
    expect(body.refresh_token).not.toBe("{{refresh_token}}");
    expect(body.refresh_token).toBe("{{chain_rt}}");
  });

  it("is killed, naming committed_once (it survived when the mint replayed the spent token)", async () => {
    const r = await requirementMutantFindings(bank, task, sharedTrials(bank));
    expect(r.failures).toEqual([]);
    expect(r.count.killed).toBe(r.count.generated);
  });
});
