import { describe, expect, it } from "vitest";
import { defaultVariant } from "../../test/support/default-variant-bank.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import type { VariantProtocol } from "../generate/protocol-variants.js";
import { playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import { goldenExchanges, headerName } from "./golden-edits.js";
import { goldenMutants } from "./golden-mutants.js";
import { failedNames, kills } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * The count requirements of the GraphQL and MCP variants (issue 16's variant certification):
 * `committed_once`, `one_record_written` (a record count) and `only_it_goes` (a call count). A
 * variant's repeat mutant used to break nothing, so the gate reported the requirement unheld: the
 * repeated create kept its idempotency key (the world replayed the first answer), a delete had no
 * sibling to go to (repeated, it found its record gone), and a chain's re-mint replayed a refresh
 * token rotation had spent. The grader counts the variant's operations as REST calls (each is
 * logged as the exchange it stands for); the mutants now repeat as REST's do, and fail naming the
 * requirement.
 */
const content = defaultBankContent();
const COUNTS = ["committed_once", "one_record_written", "only_it_goes"];

/** The variant of `original` in `protocol`, its golden run and its mutants. */
async function variantMutants(original: Task, protocol: VariantProtocol) {
  const { bank, task } = defaultVariant(original, protocol);
  const runner = sharedTrials(bank);
  const golden = await runner.run(task, goldenAgentFactory);
  const exchanges = goldenExchanges(task, golden.events);
  const mutants = goldenMutants(
    worldOf(bank, task),
    task,
    exchanges.map((e) => e?.status),
    exchanges,
  );
  return { bank, task, runner, golden, mutants };
}

const last = (t: Task) => t.positions.length;
const countAtEnd = (t: Task, id: string) =>
  (t.requirements ?? []).some((r) => r.id === id && (t.kind === "solo" || r.segment === last(t)));
const keyed = (t: Task) =>
  t.golden.some((s) => s.op === "execute" && headerName(s, "idempotency-key") !== undefined);
const rotation = new Set(content.worlds.filter((w) => w.auth.scheme === "refresh_rotation").map((w) => w.id));
const first = (what: string, pick: (t: Task) => boolean): Task => {
  const t = content.tasks.filter(pick).sort((a, b) => a.positions.length - b.positions.length)[0];
  if (!t) throw new Error(`the default bank has no ${what}`);
  return t;
};
// Which tasks hold these is the seed's deal: the first of each kind.
const CASES: Array<[string, Task, string]> = [
  [
    "a retried write's idempotency key",
    first("keyed commit-once task", (t) => t.kind === "solo" && countAtEnd(t, "committed_once") && keyed(t)),
    "committed_once",
  ],
  [
    "a delete that must take one record",
    first("delete-once task", (t) => t.kind === "solo" && countAtEnd(t, "only_it_goes")),
    "only_it_goes",
  ],
  [
    "a chain's re-mint under refresh-token rotation",
    first(
      "refresh-rotation chain ending in a one-record job",
      (t) => t.kind === "chain" && rotation.has(t.world) && countAtEnd(t, "one_record_written"),
    ),
    "one_record_written",
  ],
];

describe.each(["graphql", "mcp"] as const)("the repeat mutant of a count requirement in %s", (protocol) => {
  it.each(CASES)(
    "%s: fails naming the requirement; the golden passes",
    async (_what, original, requirement) => {
      const { bank, task, runner, mutants: all, golden } = await variantMutants(original, protocol);
      expect(golden.grade.passed, golden.grade.failure_reason).toBe(true);
      const mutants = all.filter((m) => m.requirement === requirement && COUNTS.includes(requirement));
      expect(mutants.length).toBeGreaterThan(0);
      for (const mutant of mutants) {
        const steps = mutant.steps("seed");
        // The mutant speaks the variant's protocol: every call it adds is a GraphQL or MCP call.
        expect(steps.every((s: GoldenStep) => s.op !== "execute")).toBe(true);
        const agent = scripted(bank, `mutant-${mutant.name}`, async (session, ctx) => {
          await playAndAnswer(session, task, mutant.steps(ctx.trialSeed), mutant.card);
        });
        const r = await runner.run(task, agent);
        expect(r.grade.passed, mutant.name).toBe(false);
        const named = [...failedNames(r.grade)];
        expect(
          named.some((n) => n === requirement || n.startsWith(`${requirement}@`)),
          `${mutant.name}: ${named.join(", ")}`,
        ).toBe(true);
        expect(kills(r.grade, mutant)).toBe(true);
      }
    },
    300_000,
  );

  it("the repeated create of a keyed write carries its own key, so the world writes twice", async () => {
    const [, original] = CASES[0] as [string, Task, string];
    const { mutants } = await variantMutants(original, protocol);
    const mutant = mutants.find((m) => m.requirement === "committed_once");
    const keys = (mutant?.steps("seed") ?? []).flatMap((s) => {
      if (s.op !== "execute_native") return [];
      const h = headerName(s, "idempotency-key");
      return h ? [s.request.headers?.[h]] : [];
    });
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
