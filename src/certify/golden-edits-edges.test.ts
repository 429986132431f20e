import { describe, expect, it } from "vitest";
import {
  channelTask,
  positionalJobTask,
  REQUIREMENT_WORLD as W,
} from "../../test/support/requirement-banks.js";
import { trialLog } from "../../test/support/trial-log.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import {
  capturesUsedLater,
  goldenExchanges,
  hasSegment,
  type NativeStep,
  type RestStep,
  repeated,
  resourceOfParam,
  retargeted,
  seededIds,
  stepFacts,
  variedSteps,
  withBodyValue,
  withoutCaptures,
} from "./golden-edits.js";

/**
 * Issue 21: what `npm run mutate certify-golden-edits` found unobserved in golden-edits.ts. Each
 * fact is computed inside its test (golden-edits.test.ts computes some in a `describe` body, where
 * a mutant is not active), and the GraphQL/MCP edges are shown: a call that names no single
 * route, a non-string argument, a null value, captures of a GraphQL/MCP step.
 */

const job = positionalJobTask();
const vessel = W.routes.find((r) => r.path === "/v3/vessels/{vessel_id}" && r.method === "GET") as Route;

const read = (url: string, capture: Record<string, string> = {}): RestStep => ({
  op: "execute",
  request: { method: "GET", url },
  capture,
});

const mcp = (
  tool: string,
  args: NativeStep["request"] extends infer R ? (R extends { arguments?: infer A } ? A : never) : never,
  capture: Record<string, string> = {},
): NativeStep => ({
  op: "execute_native",
  request: { protocol: "mcp", tool, arguments: args },
  capture,
});

describe("goldenExchanges and stepFacts, computed in the test", () => {
  it("a step that sends nothing between two sends takes no exchange", () => {
    const store: GoldenStep = { op: "store", name: "kept", scope: "local", from: "v" };
    const task: Task = {
      ...job,
      golden: [read("/v3/vessels/V-204", { v: "berth" }), store, read("/v3/vessels/V-311")],
    };
    const log = trialLog().read("/v3/vessels/V-204", {}).read("/v3/vessels/V-311", {}).events();
    expect(goldenExchanges(task, log)).toEqual([log[0], undefined, log[1]]);
  });

  it("without statuses every step's status is unknown; the mint writes nothing; the answer uses nothing", () => {
    const facts = stepFacts(W, job);
    expect(facts.map((f) => f.status)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(facts[0]).toMatchObject({ token: true, write: false, route: null });
    expect(facts[1]).toMatchObject({ token: false, write: true });
    expect(facts[4]?.uses).toEqual([]);
  });

  it("a GraphQL/MCP call that names no single route has none: an unknown tool, two GraphQL fields", () => {
    const unknown = mcp("no_such_tool", { vessel_id: "V-204" });
    const two: NativeStep = {
      op: "execute_native",
      request: {
        protocol: "graphql",
        query: `{ a: ${vessel.id}(vessel_id: "V-204") { berth } b: ${vessel.id}(vessel_id: "V-311") { berth } }`,
      },
      capture: {},
    };
    for (const step of [unknown, two]) {
      const [f] = stepFacts(W, { ...job, golden: [step] });
      expect(f).toMatchObject({ route: null, params: {}, token: false, write: false });
    }
  });

  it("a GraphQL/MCP path parameter is read only from a string argument", () => {
    const [byString] = stepFacts(W, { ...job, golden: [mcp(vessel.id, { vessel_id: "V-204" })] });
    expect(byString?.params).toEqual({ vessel_id: "V-204" });
    const [byNumber] = stepFacts(W, { ...job, golden: [mcp(vessel.id, { vessel_id: 204 })] });
    expect(byNumber?.route?.id).toBe(vessel.id);
    expect(byNumber?.params).toEqual({});
  });
});

describe("capturesUsedLater", () => {
  it("a step that sends a binding it captures itself is not a later use", () => {
    const task: Task = {
      ...job,
      golden: [read("/v3/jobs/{{job}}", { job: "job_id" }), { op: "answer", fields: {} }],
    };
    const facts = stepFacts(W, task);
    expect(capturesUsedLater(facts, facts[0] as (typeof facts)[number])).toBe(false);
    const later: Task = { ...task, golden: [task.golden[0] as GoldenStep, read("/v3/jobs/{{job}}")] };
    const again = stepFacts(W, later);
    expect(capturesUsedLater(again, again[0] as (typeof again)[number])).toBe(true);
  });
});

describe("edits of a GraphQL/MCP step", () => {
  it("repeated renames its captures; withoutCaptures empties them", () => {
    const step = mcp(vessel.id, { vessel_id: "V-204" }, { berth: "berth" });
    expect(repeated([step])).toEqual([{ ...step, capture: { berth__again: "berth" } }]);
    expect(withoutCaptures(step)).toEqual({ ...step, capture: {} });
  });

  it("an empty argument is a segment equal to the empty string", () => {
    expect(hasSegment(mcp(vessel.id, { vessel_id: "", note: "x" }), "")).toBe(true);
    expect(hasSegment(mcp(vessel.id, { vessel_id: "V-1" }), "")).toBe(false);
  });

  it("a null argument is kept as it is by retargeted and withBodyValue", () => {
    const step = mcp(vessel.id, { vessel_id: "V-204", note: null, tags: [null, "V-204"] });
    expect((retargeted(step, "V-204", "V-311") as NativeStep).request).toEqual({
      protocol: "mcp",
      tool: vessel.id,
      arguments: { vessel_id: "V-311", note: null, tags: [null, "V-311"] },
    });
    expect((withBodyValue(step, "vessel_id", "V-9") as NativeStep).request).toEqual({
      protocol: "mcp",
      tool: vessel.id,
      arguments: { vessel_id: "V-9", note: null, tags: [null, "V-204"] },
    });
  });
});

describe("the world's records", () => {
  it("a parameter that is another resource's id field names that resource, though not the last", () => {
    const nested: Route = {
      ...vessel,
      path: "/v3/vessels/{vessel_id}/orders/{order_id}",
      resource: "maintenance-orders",
    };
    expect(resourceOfParam(W, nested, "vessel_id")).toBe("vessels");
  });

  it("seeded ids are the string ids only", () => {
    const w: World = structuredClone(W);
    w.resources.vessels?.records.push({ vessel_id: 7 as unknown as string, name: "numbered" });
    expect(seededIds(w, "vessels")).toEqual(["V-204", "V-311", "V-412"]);
  });
});

describe("variedSteps of a chain that does not split", () => {
  it("every step, at no position", () => {
    const chain = { ...channelTask(), kind: "chain", positions: [1, 2] } as Task;
    expect(variedSteps(chain)).toEqual({ start: 0, end: chain.golden.length, position: undefined });
  });
});
