import { describe, expect, it } from "vitest";
import { positionalJobTask, REQUIREMENT_WORLD as W } from "../../test/support/requirement-banks.js";
import { CHAIN, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Requirement, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { forbiddenUrl, requirementMutants } from "./golden-mutants.js";

/**
 * Issue 21 (area certify-golden-mutants-forbidden): what the stay_canonical tests of
 * golden-mutants-operators.test.ts leave open. Where the forbidden call goes when the answer is
 * the first step, whose headers it takes when calls follow the answer, a
 * call the protocol cannot ask, the order of the routes tried, and which chain segment a step
 * belongs to at the segments' edges.
 */

type Execute = Extract<GoldenStep, { op: "execute" }>;
const job = positionalJobTask();
const mint = job.golden[0] as Execute;
const answer: GoldenStep = { op: "answer", fields: { order_id: "token" } };
const read = (url: string, headers: Record<string, string>): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers },
  capture: {},
});
const h1 = { Authorization: "Bearer {{token}}", "X-Trace": "one" };
const h2 = { Authorization: "Bearer {{token}}", "X-Trace": "two" };
const stay: Requirement = { id: "s", kind: "stay_canonical", predicates: ["v2"] };
const forbidV2 = { kind: "forbid" as const, id: "v2", explain: "", url_pattern: "^/v2/" };

function stayTask(golden: GoldenStep[], url_pattern = "^/v2/"): Task {
  return {
    ...job,
    golden,
    requirements: [stay],
    grader: { ...job.grader, constraints: [{ ...forbidV2, url_pattern }] },
  };
}
const mutantsOf = (t: Task, world: World = W) => requirementMutants(world, t, t.requirements ?? []);

describe("stay_canonical: the answer's place and the headers taken", () => {
  it("an answer as the first step: the forbidden call goes before it, with no headers", () => {
    const golden = [answer, read("/v3/vessels/V-204", h1)];
    const [m, ...rest] = mutantsOf(stayTask(golden));
    expect(rest).toEqual([]);
    expect(m?.step).toBe(1);
    expect(m?.steps("s")).toEqual([
      { op: "execute", request: { method: "GET", url: "/v2/vessels/V-204", headers: {} }, capture: {} },
      ...golden,
    ]);
  });

  it("a call after the answer lends no headers: the last call before it does", () => {
    const golden = [mint, read("/v3/vessels/V-204", h1), answer, read("/v3/vessels/V-311", h2)];
    const [m] = mutantsOf(stayTask(golden));
    expect(m?.step).toBe(3);
    expect((m?.steps("s")[2] as Execute | undefined)?.request.headers).toEqual(h1);
  });
});

describe("stay_canonical: a call the protocol cannot ask (the MCP and GraphQL calls: golden-mutants-operators.test.ts)", () => {
  it("a forbidden URL no route takes back (a seeded id with a slash) makes no mutant in GraphQL or MCP", () => {
    const vessels = W.resources.vessels as World["resources"][string];
    const slashed = (protocol: "graphql" | "mcp" | "rest"): World => ({
      ...W,
      protocol,
      resources: {
        ...W.resources,
        vessels: { ...vessels, records: [{ ...vessels.records[0], vessel_id: "V/9" }, ...vessels.records] },
      },
    });
    const t = stayTask([mint, read("/v3/vessels/V-204", h1), answer], "^/v2/vessels/V/9$");
    expect(mutantsOf(t, slashed("graphql"))).toEqual([]);
    expect(mutantsOf(t, slashed("mcp"))).toEqual([]);
    // The REST world sends it as it is.
    const [m] = mutantsOf(t, slashed("rest"));
    expect((m?.steps("s")[2] as Execute | undefined)?.request.url).toBe("/v2/vessels/V/9");
  });
});

describe("forbiddenUrl: the routes tried in the world's order, reads first", () => {
  it("of several reads, the world's first; of several writes, likewise", () => {
    expect(forbiddenUrl(W, "^/v3/vessels", undefined)).toEqual({ method: "GET", path: "/v3/vessels" });
    expect(forbiddenUrl(W, "^/v3/(maintenance-orders|jobs/[^/]+/confirm)$", undefined)).toEqual({
      method: "POST",
      path: "/v3/maintenance-orders",
    });
  });

  it("a parameter of no resource at all (no id field, not the route's last) is X-1", () => {
    const getVessel = W.routes.find((r) => r.id === "getVessel") as World["routes"][number];
    const world: World = {
      ...W,
      routes: [...W.routes, { ...getVessel, id: "widget", path: "/v3/widgets/{widget_id}/items" }],
    };
    expect(forbiddenUrl(world, "^/v3/widgets/", undefined)).toEqual({
      method: "GET",
      path: "/v3/widgets/X-1/items",
    });
  });
});

describe("a chain step's segment, at the segments' edges", () => {
  // The skeleton's chain: segment 1 is steps 0-1, segment 2 steps 2-4, segment 3 steps 5-9, the
  // answer at 10; each segment begins with a token mint (steps 0, 3 and 5).
  const skeleton = bankFromContent(skeletonContent());
  const chain = taskOf(skeleton, CHAIN);
  const world = skeleton.worlds[0] as World;
  const count = (call: { method: string; url_pattern: string }): Requirement => ({
    id: "n",
    kind: "call_count",
    predicates: ["p"],
    call,
    min: 1,
    segment: 3,
  });

  it("the first step of the last segment is its own, the first steps of earlier ones are not", () => {
    const [m, ...rest] = requirementMutants(world, chain, [
      count({ method: "POST", url_pattern: "^/v3/oauth/token$" }),
    ]);
    expect(rest).toEqual([]);
    expect(m).toMatchObject({ name: "n:drop_step@6", step: 6, segment: 3 });
  });

  it("a step of the middle segment is not the last segment's", () => {
    expect(
      requirementMutants(world, chain, [count({ method: "GET", url_pattern: "^/v3/vessels/V-311$" })]),
    ).toEqual([]);
  });

  it("a step past the answer belongs to the last segment", () => {
    const after = read("/v3/vessels/V-311", { Authorization: "Bearer {{token}}" });
    const [m] = requirementMutants(world, { ...chain, golden: [...chain.golden, after] }, [
      count({ method: "GET", url_pattern: "^/v3/vessels/V-311$" }),
    ]);
    expect(m).toMatchObject({ name: "n:drop_step@12", step: 12, segment: 3 });
  });
});
