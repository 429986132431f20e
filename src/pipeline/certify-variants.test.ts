import { describe, expect, it } from "vitest";
import { CHAIN, idIn, SUB01, SUB02, skeletonContent } from "../../test/support/test-banks.js";
import { GATE_NAMES } from "../certify/certify-schema.js";
import { generateCertifiedBank } from "./certified-bank.js";
import { certifyVariants } from "./certify-variants.js";
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
    const gates = ["triad", "solvability", "discoverability", "leak", "exploit_audit"].map((name) => ({
      name,
      version: "1.0.0",
      checked: 4,
      passed: 4,
    }));
    const banks = await withProtocolVariants({ ...rest, gates }, ["graphql"], false);
    const v = await certifyVariants(banks, ONE_THREAD);
    expect(v.report.gates.triad?.checked).toBe(4);
    expect(v.rest.tasks).toHaveLength(8);
    expect(v.rest.gates?.find((g) => g.name === "triad")).toMatchObject({ checked: 8, passed: 8 });
    expect(v.rest.gates?.find((g) => g.name === "chain_replay")).toMatchObject({ checked: 1, passed: 1 });
  });

  it("passes the GraphQL and MCP variants of a small generated bank through every gate", async () => {
    // As `apiflow generate --protocols` does: the REST bank is certified first, then translated.
    const generated = await generateCertifiedBank({ worlds: 2, positions: 4 });
    if (!generated.success) throw new Error(generated.error.message);
    const rest = generated.data.content;
    const banks = await withProtocolVariants(rest, ["graphql", "mcp"], true);
    const v = await certifyVariants(banks, ONE_THREAD);
    const failures = Object.entries(v.report.gates).map(([name, g]) => [
      name,
      g.hard ? g.first_failure : null,
    ]);
    expect(failures).toEqual(GATE_NAMES.map((name) => [name, null]));
    expect(v.dropped).toEqual(banks.dropped);
    const tasks = v.variants?.tasks ?? [];
    expect(v.report.gates.triad?.checked).toBe(tasks.length);
    expect(tasks.length).toBeGreaterThan(rest.tasks.length);
    expect(tasks.every((t) => t.golden.every((s) => s.op !== "execute"))).toBe(true);
    const audit = v.report.gates.exploit_audit;
    expect(audit?.attacked?.["brute-force-ids"]).toBe(tasks.length);
    expect(audit?.attacked?.["decoy-reader"]).toBeGreaterThan(0);
  }, 300_000);
});
