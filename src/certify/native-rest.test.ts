import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { convertStep } from "../world/protocol-step.js";
import { restOf } from "./native-rest.js";

describe("restOf: a GraphQL/MCP golden step as the REST step it was converted from", () => {
  const bank = bankFromContent(defaultBankContent());
  const world = bank.worlds[0];
  if (!world) throw new Error("no world");
  const steps = bank.tasks
    .filter((t) => t.world === world.id && t.kind === "solo")
    .flatMap((t) => t.golden)
    .filter((s): s is Extract<GoldenStep, { op: "execute" }> => s.op === "execute");
  // Content-Type is the carrier's business in GraphQL/MCP: the converted step does not keep it.
  const bare = (s: Extract<GoldenStep, { op: "execute" }>) => {
    const headers = Object.fromEntries(
      Object.entries(s.request.headers ?? {}).filter(([k]) => k.toLowerCase() !== "content-type"),
    );
    const { headers: _h, ...request } = s.request;
    return { ...s, request: Object.keys(headers).length ? { ...request, headers } : request };
  };

  for (const protocol of ["graphql", "mcp"] as const)
    it(`inverts every ${protocol} conversion of one world's solo goldens`, () => {
      expect(steps.length).toBeGreaterThan(50);
      for (const step of steps) {
        const native = convertStep(world, protocol, step, "test");
        if (typeof native === "string") throw new Error(native);
        const rest = restOf(world, native);
        expect(rest, JSON.stringify(step)).not.toBeNull();
        expect(convertStep(world, protocol, rest as GoldenStep, "test")).toEqual(native);
        if (!step.request.url.includes("%")) expect(rest).toEqual(bare(step));
      }
    });

  it("refuses a native step that no conversion produces (an unknown tool, an edited query)", () => {
    expect(
      restOf(world, {
        op: "execute_native",
        request: { protocol: "mcp", tool: "no_such_tool" },
        capture: {},
      }),
    ).toBeNull();
    const step = steps.find((s) => s.request.method === "GET") as GoldenStep;
    const native = convertStep(world, "graphql", step, "test") as Extract<
      GoldenStep,
      { op: "execute_native" }
    >;
    if (native.request.protocol !== "graphql") throw new Error("not graphql");
    const edited = { ...native, request: { ...native.request, query: `${native.request.query} # edited` } };
    expect(restOf(world, edited)).toBeNull();
  });
});
