import { describe, expect, it } from "vitest";
import { CHAIN, idIn, SUB01, SUB02, skeletonContent } from "../../test/support/test-banks.js";
import type { BankContent } from "../bank/bank.js";
import { GATE_VERSIONS } from "../certify/certify-bank.js";
import { GATE_NAMES } from "../certify/certify-schema.js";
import { generateCertifiedBank } from "./certified-bank.js";
import { certifyVariants, type VariantBanks } from "./certify-variants.js";
import { withProtocolVariants } from "./protocol-variant-replay.js";

const ONE_THREAD = { workers: 1 };

describe("certifying protocol variants", () => {
  it("admits every variant of the skeleton bank and records the gates in the variant bank", async () => {
    const banks = await withProtocolVariants(skeletonContent(), ["graphql", "mcp"], true);
    const v = await certifyVariants(banks, ONE_THREAD);
    expect(v.report.ok).toBe(true);
    expect(v.dropped).toEqual([]);
    expect(v.variants?.tasks).toHaveLength(8);
    const triad = v.variants?.gates?.find((g) => g.name === "triad");
    expect(triad).toMatchObject({ checked: 8, passed: 8 });
    expect(v.variants?.gates?.map((g) => g.name)).toContain("protocol_variant_replay");
  });

  it("drops a variant task that fails a gate, with the chain covering it, and says why", async () => {
    const banks = await withProtocolVariants(skeletonContent(), ["mcp"], true);
    const leaked = idIn("mcp", SUB02);
    const variants = banks.variants;
    if (!variants) throw new Error("no variant bank");
    const broken = {
      ...banks,
      variants: {
        ...variants,
        tasks: variants.tasks.map((t) =>
          t.id === leaked ? { ...t, ticket: `${t.ticket}\n(It last called at Gdansk.)` } : t,
        ),
      },
    };
    const v = await certifyVariants(broken, ONE_THREAD);
    expect(v.dropped.map((d) => d.id).sort()).toEqual([idIn("mcp", CHAIN), leaked].sort());
    expect(v.dropped.find((d) => d.id === leaked)?.reason).toMatch(/failed certification \(leak: .*Gdansk/);
    expect(v.variants?.tasks.map((t) => t.id)).toContain(idIn("mcp", SUB01));
    expect(v.variants?.gates?.find((g) => g.name === "leak")).toMatchObject({ checked: 4, passed: 3 });
  });

  it("certifies only the variant tasks of a REST bank with variants added, counting them into its gates", async () => {
    const rest = skeletonContent();
    const gates = (["triad", "solvability", "discoverability", "leak", "exploit_audit"] as const).map(
      (name) => ({
        name,
        version: GATE_VERSIONS[name],
        checked: 4,
        passed: 4,
      }),
    );
    const banks = await withProtocolVariants({ ...rest, gates }, ["graphql"], false);
    const v = await certifyVariants(banks, ONE_THREAD);
    expect(v.report.gates.triad?.checked).toBe(4);
    expect(v.rest.tasks).toHaveLength(8);
    expect(v.rest.gates?.find((g) => g.name === "triad")).toMatchObject({ checked: 8, passed: 8 });
    expect(v.rest.gates?.find((g) => g.name === "chain_replay")).toMatchObject({ checked: 1, passed: 1 });
  });

  // As `apiflow generate --protocols` does: the REST bank is certified first, then translated.
  // All 13 worlds (each auth scheme, archetype and error style), two positions each.
  let certified: Promise<{
    rest: BankContent;
    banks: VariantBanks;
    v: Awaited<ReturnType<typeof certifyVariants>>;
  }> | null = null;
  const everyWorld = () => {
    certified ??= (async () => {
      const generated = await generateCertifiedBank({ worlds: 13, positions: 2 });
      if (!generated.success) throw new Error(generated.error.message);
      const rest = generated.data.content;
      const banks = await withProtocolVariants(rest, ["graphql", "mcp"], true);
      return { rest, banks, v: await certifyVariants(banks, ONE_THREAD) };
    })();
    return certified;
  };

  it("certifies the GraphQL and MCP variants of every world, dropping none", async () => {
    const { rest, banks, v } = await everyWorld();
    // Every REST golden translates and replays: the ledger-balance task's GraphQL variant reads the
    // balance its listing derives (the connection carries it), as MCP's does.
    expect(banks.dropped).toEqual([]);
    const tasks = v.variants?.tasks ?? [];
    expect(new Set(v.variants?.worlds.map((w) => w.id)).size).toBe(26);
    expect(new Set(tasks.map((t) => t.world)).size).toBe(26);
    expect(v.report.gates.triad?.checked).toBe(2 * rest.tasks.length - banks.dropped.length);
    expect(tasks.every((t) => t.golden.every((s) => s.op !== "execute"))).toBe(true);
    // A wrong-verb error-recovery task's variant demands recovery too: the blind agent retries
    // the client's verb as the operation it would name, which GraphQL and MCP refuse as REST
    // answers 405 (it was dropped while the blind retry had no call to make). Nothing fails.
    expect(v.dropped).toEqual([]);
    expect(v.report.gates.axis_necessity?.failures).toEqual([]);
    for (const gate of GATE_NAMES.filter((g) => g !== "triad"))
      expect(v.report.gates[gate]?.failures, gate).toEqual([]);
    const audit = v.report.gates.exploit_audit;
    expect(audit?.attacked?.["brute-force-ids"]).toBe(2 * rest.tasks.length - banks.dropped.length);
    expect(audit?.attacked?.["decoy-reader"]).toBeGreaterThan(0);
  }, 900_000);

  // The sabotage skips the GraphQL/MCP listing calls that serve a field's value as it skips REST's
  // (grid-substations' chain read a numeric field a listing page also served).
  it("fails the canary-without-call sabotage of every GraphQL/MCP chain", async () => {
    const { v } = await everyWorld();
    expect(v.report.gates.triad?.failures).toEqual([]);
  }, 900_000);
});
