import { describe, expect, it } from "vitest";
import { defaultBank as bank } from "../../test/support/default-bank-replay.js";
import type { Bank } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { protocolVariant, type VariantProtocol } from "../generate/protocol-variants.js";
import { fixesShown, hintGradingFindings } from "./hint-grading.js";
import { restOf } from "./native-rest.js";
import { freshTrials, sharedTrials } from "./trial-tree.js";

/**
 * Issue 16 item 4 on the GraphQL/MCP variants: a hard variant task's errors (its quoted calls sent
 * in the variant's protocol, then the golden's run) say what is wrong and name no fix, as its REST
 * original's do; the same tasks served with every hint are rejected, so the check is not vacuous.
 */
const hardRepairs = bank.tasks.filter(
  (t) => t.kind === "solo" && t.difficulty === "hard" && t.axes[0] === "schema_repair",
);
const worlds = [...new Set(hardRepairs.map((t) => t.world))].slice(0, 2);

function variantBank(protocol: VariantProtocol): Bank {
  const out: Bank = { ...bank, worlds: [], tasks: [] };
  for (const id of worlds) {
    const world = bank.worlds.find((w) => w.id === id);
    if (!world) throw new Error(`no world ${id}`);
    const v = protocolVariant(
      world,
      bank.tasks.filter((t) => t.world === id && t.kind === "solo"),
      protocol,
    );
    if (!v.success) throw new Error(v.error.message);
    out.worlds.push(v.data.world);
    out.tasks.push(...v.data.tasks);
  }
  return out;
}

describe.each(["graphql", "mcp"] as const)("hint grading of %s variants", (protocol) => {
  const variants = variantBank(protocol);
  const hard = variants.tasks.filter((t) => t.difficulty === "hard" && t.axes[0] === "schema_repair");

  it("a hard variant's quoted calls and golden errors name no fix", async () => {
    expect(hard.length).toBeGreaterThan(0);
    const runner = sharedTrials(variants);
    for (const task of hard) expect(await hintGradingFindings(variants, task, runner)).toEqual([]);
  }, 300_000);

  it("rejects the same tasks served with every hint: their quoted calls, sent in the protocol, name fixes", async () => {
    const fresh = freshTrials(variants);
    const shown: string[] = [];
    for (const task of hard) {
      const medium: Task = { ...task, difficulty: "medium" };
      for (const f of await fixesShown(variants, medium, fresh))
        shown.push(`${f.status} ${f.fixes.join("; ")}`);
    }
    // The client's broken body is quoted (a 422 or 400), and with every hint its error names the repair.
    expect(shown.some((s) => /^4\d\d .*(names|allowed|expected|hint)/.test(s))).toBe(true);
    // The quoted calls alone (a golden that only mints its token): the variant world, which serves
    // no REST route, answers the client's body with its 422 in the protocol, naming the repair.
    const mints = (t: Task) => {
      const world = variants.worlds.find((w) => w.id === t.world);
      return t.golden.filter((s) => {
        const r = world ? restOf(world, s) : null;
        return s.op === "answer" || (r?.op === "execute" && r.request.url === world?.auth.token_path);
      });
    };
    const quotedOnly = hard.map((t): Task => ({ ...t, difficulty: "medium", golden: mints(t) }));
    const quoted = (await Promise.all(quotedOnly.map((t) => fixesShown(variants, t, fresh)))).flat();
    expect(
      quoted.some((f) => f.status === 422 && f.fixes.some((x) => /^body key (expected|allowed)/.test(x))),
    ).toBe(true);
  }, 300_000);
});
