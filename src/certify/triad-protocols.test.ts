import { describe, expect, it } from "vitest";
import { CHAIN, idIn, skeletonContent, skeletonIn, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { AgentFactory } from "../trial/agent.js";
import { trial } from "./certify-kit.js";
import { triadExams, triadGate } from "./triad.js";

/**
 * The triad on the skeleton's GraphQL and MCP variants: a native call is "the same request" as
 * another only when the whole request is (query and variables, or tool and arguments), so the
 * canary exam drops exactly the calls that reveal the value, as it does over REST.
 */
describe("grader triad over GraphQL and MCP", () => {
  const callsOf = async (protocol: "rest" | "graphql" | "mcp") => {
    const bank = bankFromContent(protocol === "rest" ? skeletonContent() : skeletonIn(protocol));
    const chain = taskOf(bank, idIn(protocol, CHAIN));
    const exam = triadExams(bank, chain).find(
      (e) => e.name === "sabotage:canary_without_call:firmware_build",
    );
    const r = await trial(bank, chain, exam?.agent as AgentFactory);
    return r.events.flatMap((e) => (e.type === "exchange" ? [`${e.method} ${e.url}`] : []));
  };

  it.each(["graphql", "mcp"] as const)(
    "%s: the canary exam skips the calls the REST exam skips, and only those",
    async (p) => {
      // (The REST play goes on to send the create with the value unresolved; the native plays stop
      // there: the calls before it are the point.)
      const rest = await callsOf("rest");
      const native = await callsOf(p);
      for (const calls of [rest, native]) {
        expect(calls).toContain("GET /v3/vessels/V-311");
        expect(calls).not.toContain("GET /v3/vessels/V-204");
        expect(calls.filter((c) => /^GET \/v3\/vessels(\?.*)?$/.test(c))).toEqual([]);
      }
      expect(native).toEqual(rest.slice(0, native.length));
    },
  );

  it.each(["graphql", "mcp"] as const)("%s: every skeleton task passes the triad", async (p) => {
    const bank = bankFromContent(skeletonIn(p));
    expect(await triadGate(bank, bank.tasks)).toMatchObject({ checked: 4, passed: 4, failed: 0 });
  });
});
