import { describe, expect, it } from "vitest";
import { skeletonBankContent } from "../generate/skeleton-bank.js";
import { PROTOCOL_VARIANT_GATE, protocolVariants, withProtocolVariants } from "./protocol-variant-replay.js";

describe("withProtocolVariants (apiflow generate --protocols)", () => {
  const content = skeletonBankContent();

  it("adds a GraphQL and an MCP copy of every world and task, each replayed (golden passes, blank fails)", async () => {
    const { rest, variants, dropped } = await withProtocolVariants(content, ["graphql", "mcp"], false);
    expect(dropped).toEqual([]);
    expect(variants).toBeNull();
    const ids = content.worlds.map((w) => w.id);
    expect(rest.worlds.map((w) => w.id)).toEqual([
      ...ids,
      ...ids.map((id) => `${id}-graphql`),
      ...ids.map((id) => `${id}-mcp`),
    ]);
    expect(rest.tasks.slice(0, content.tasks.length)).toEqual(content.tasks);
    expect(rest.tasks).toHaveLength(content.tasks.length * 3);
    expect(rest.gates?.at(-1)).toEqual({
      ...PROTOCOL_VARIANT_GATE,
      checked: content.tasks.length * 2,
      passed: content.tasks.length * 2,
    });
  }, 60_000);

  it("or writes them as a bank of their own, leaving the REST bank as it was", async () => {
    const { rest, variants } = await withProtocolVariants(content, ["mcp"], true);
    expect(rest).toBe(content);
    expect(variants?.name).toBe(`${content.name}-protocols`);
    expect(variants?.worlds.map((w) => w.protocol)).toEqual(content.worlds.map(() => "mcp"));
    expect(variants?.tasks).toHaveLength(content.tasks.length);
  }, 60_000);

  it("drops a variant task whose golden fails, saying why", async () => {
    const [first, ...others] = content.tasks;
    if (!first) throw new Error("no task");
    const broken = { ...first, golden: first.golden.filter((s) => s.op !== "answer") };
    const v = await protocolVariants({ ...content, tasks: [broken, ...others] }, ["graphql"]);
    expect(v.dropped).toEqual([
      {
        id: `${first.world}-graphql-${first.id.slice(first.world.length + 1)}`,
        reason: expect.stringMatching(/^the golden fails: /),
      },
    ]);
    expect(v.gate).toMatchObject({ checked: content.tasks.length, passed: content.tasks.length - 1 });
  }, 60_000);
});
