import { describe, expect, it } from "vitest";
import {
  channelTask,
  positionalJobTask,
  REQUIREMENT_WORLD as W,
} from "../../test/support/requirement-banks.js";
import { idIn, SUB03, skeletonIn, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route } from "../bank/world-schema.js";
import type { ExchangeEvent, TrialEvent } from "../world/event-log.js";
import {
  capturesUsedLater,
  countsCalls,
  dependsOn,
  failedInGolden,
  goldenExchanges,
  goldenStatuses,
  hasSegment,
  headerName,
  type NativeStep,
  type RestStep,
  repeated,
  resourceOfId,
  resourceOfParam,
  retargeted,
  seededIds,
  stepFacts,
  variedSteps,
  withBodyValue,
  withoutCaptures,
  withoutHeader,
} from "./golden-edits.js";

/**
 * What the requirement-mutant and legitimate-variant gates read off a golden, and the edits they
 * make, on the requirement world's job task (mint, submit, poll, confirm, answer) (issue 21:
 * mutation testing of golden-edits.ts).
 */

const job = positionalJobTask();

function exchange(
  seq: number,
  method: string,
  url: string,
  status: number,
  body: ExchangeEvent["request_body"] = null,
) {
  return {
    type: "exchange" as const,
    seq,
    protocol: "rest" as const,
    method,
    url,
    request_headers: {},
    request_body: body,
    status,
    response_headers: {},
    response_body: {},
  };
}

/** The golden run's log of the job task: four exchanges, a variable write between them. */
const goldenLog: TrialEvent[] = [
  exchange(0, "POST", "/v3/oauth/token", 200),
  exchange(1, "POST", "/v3/maintenance-orders", 202, { vessel_id: "V-204", priority: "high" }),
  { type: "variable_write", seq: 2, scope: "local", name: "job", value: "J-1" },
  exchange(3, "GET", "/v3/jobs/J-1", 200),
  exchange(4, "POST", "/v3/jobs/J-1/confirm", 429),
];

describe("the golden run's exchanges, one per send step", () => {
  it("line up with the send steps; the answer gets none", () => {
    const got = goldenExchanges(job, goldenLog);
    expect(got.map((e) => e?.url)).toEqual([
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/jobs/J-1",
      "/v3/jobs/J-1/confirm",
      undefined,
    ]);
    expect(goldenStatuses(job, goldenLog)).toEqual([200, 202, 200, 429, undefined]);
  });

  it("none when the log has more or fewer exchanges than the golden sends", () => {
    expect(goldenExchanges(job, goldenLog.slice(0, 4))).toEqual([]);
    expect(goldenExchanges(job, [...goldenLog, exchange(5, "GET", "/v3/jobs/J-1", 200)])).toEqual([]);
    expect(goldenStatuses(job, [])).toEqual([]);
  });
});

describe("stepFacts", () => {
  const facts = stepFacts(W, job, goldenStatuses(job, goldenLog), goldenExchanges(job, goldenLog));

  it("the mint is the token step: no route, no write", () => {
    expect(facts[0]).toMatchObject({ index: 0, token: true, write: false, route: null, captures: ["token"] });
    expect(facts[0]?.uses).toEqual(["client_id", "client_secret"]);
  });

  it("a POST to a route writes; a GET does not; the path parameter is read as written", () => {
    expect(facts[1]).toMatchObject({
      token: false,
      write: true,
      path: "/v3/maintenance-orders",
      status: 202,
    });
    expect(facts[1]?.route?.id).toBe("createMaintenanceOrder");
    expect(facts[1]?.sentMethod).toBe("POST");
    expect(facts[1]?.sentBody).toEqual({ vessel_id: "V-204", priority: "high" });
    expect(facts[2]).toMatchObject({ write: false, params: { job_id: "{{job}}" }, sentUrl: "/v3/jobs/J-1" });
    expect(facts[2]?.route?.id).toBe("getOrderJob");
    expect(facts[2]?.uses).toEqual(["job", "token"]);
    expect(facts[2]?.sentBody).toBeUndefined();
  });

  it("the answer sends nothing and uses nothing", () => {
    expect(facts[4]).toMatchObject({
      rest: null,
      send: null,
      route: null,
      token: false,
      write: false,
      path: "",
    });
    expect(facts[4]?.uses).toEqual([]);
    expect(facts[4]?.status).toBeUndefined();
  });

  it("a status given for a step wins over the log's; without either it is unknown", () => {
    const given = stepFacts(W, job, [undefined, 201], goldenExchanges(job, goldenLog));
    expect(given[1]?.status).toBe(201);
    expect(given[3]?.status).toBe(429);
    expect(stepFacts(W, job)[1]?.status).toBeUndefined();
    expect(stepFacts(W, job)[1]?.sentUrl).toBeUndefined();
  });

  it("a stored binding is what the store step uses; the query is not part of the path", () => {
    const task: Task = {
      ...job,
      golden: [
        {
          op: "execute",
          request: { method: "GET", url: "/v3/vessels?page=2" },
          capture: { v: "vessels.0.vessel_id" },
        },
        { op: "store", from: "v", scope: "local", name: "vessel" },
      ],
    };
    const f = stepFacts(W, task);
    expect(f[0]?.path).toBe("/v3/vessels");
    expect(f[0]?.route?.id).toBe("listVessels");
    expect(f[1]?.uses).toEqual(["v"]);
  });
});

describe("stepFacts of GraphQL and MCP steps", () => {
  /** The skeleton's statefulness subtask in `protocol`, and its golden run's log as the world logs it. */
  function sub03(protocol: "graphql" | "mcp") {
    const bank = bankFromContent(skeletonIn(protocol));
    const task = taskOf(bank, idIn(protocol, SUB03));
    const log: TrialEvent[] = [
      exchange(0, "POST", "/v3/oauth/token", 200),
      exchange(1, "GET", "/v3/vessels/V-204", 200),
      exchange(2, "POST", "/v3/maintenance-orders", 201, { vessel_id: "V-204", priority: "high" }),
      exchange(3, "GET", "/v3/maintenance-orders/MO-1", 200),
    ];
    return stepFacts(bank.worlds[0] as typeof W, task, [], goldenExchanges(task, log));
  }

  it.each(["graphql", "mcp"] as const)(
    "%s: the field or tool is the route; its id argument the path parameter",
    (p) => {
      const [mint, read, create, store, readBack] = sub03(p);
      expect(mint).toMatchObject({ token: true, route: null, write: false, params: {}, rest: null });
      expect(mint?.send).toBe(mint?.step);
      expect(read).toMatchObject({ token: false, write: false, params: { vessel_id: "V-204" } });
      expect(read?.route?.id).toBe("getVessel");
      expect(read?.path).toBe("/v3/vessels/V-204");
      expect(create).toMatchObject({ token: false, write: true, params: {}, path: "/v3/maintenance-orders" });
      expect(create?.route?.id).toBe("createMaintenanceOrder");
      expect(create?.sentBody).toEqual({ vessel_id: "V-204", priority: "high" });
      expect(store).toMatchObject({ send: null, path: "", uses: ["order"] });
      // The parameter as written, placeholder unresolved (as a REST step's).
      expect(readBack?.params).toEqual({ order_id: "{{order}}" });
      expect(readBack?.uses).toContain("order");
    },
  );

  it("a step whose call the log does not show has no path", () => {
    const bank = bankFromContent(skeletonIn("graphql"));
    const task = taskOf(bank, idIn("graphql", SUB03));
    expect(stepFacts(bank.worlds[0] as typeof W, task)[1]?.path).toBe("");
  });
});

describe("failures, dependencies, routes that count their calls", () => {
  const facts = stepFacts(W, job, goldenStatuses(job, goldenLog), goldenExchanges(job, goldenLog));

  it("a step failed in the golden from status 400 on; an unknown status is not a failure", () => {
    const at = (status: number | undefined) =>
      failedInGolden({ ...(facts[1] as (typeof facts)[number]), status });
    expect(at(399)).toBe(false);
    expect(at(400)).toBe(true);
    expect(at(429)).toBe(true);
    expect(at(undefined)).toBe(false);
  });

  it("a step depends on what an earlier one captures; captures used later skip the answer", () => {
    const [mint, submit, poll, confirm, answer] = facts as [
      (typeof facts)[0],
      (typeof facts)[0],
      (typeof facts)[0],
      (typeof facts)[0],
      (typeof facts)[0],
    ];
    expect(dependsOn(poll, submit)).toBe(true);
    expect(dependsOn(submit, poll)).toBe(false);
    expect(dependsOn(confirm, mint)).toBe(true);
    expect(capturesUsedLater(facts, submit)).toBe(true);
    // The confirm's capture is read only by the answer.
    expect(capturesUsedLater(facts, confirm)).toBe(false);
    expect(capturesUsedLater(facts, answer)).toBe(false);
    // Only later steps count (by index): the poll moved before the submit is no later use.
    expect(capturesUsedLater([{ ...poll, index: 0 }, submit], submit)).toBe(false);
    expect(capturesUsedLater([poll, submit], submit)).toBe(true);
  });

  it("a route counts its calls when it throttles, writes partly, fails transiently or races an update", () => {
    const plain = W.routes.find((r) => r.id === "getOrderJob") as Route;
    expect(countsCalls(null)).toBe(false);
    expect(countsCalls(plain)).toBe(false);
    expect(countsCalls({ ...plain, throttle: {} } as Route)).toBe(true);
    expect(countsCalls({ ...plain, partial_write: {} } as Route)).toBe(true);
    expect(countsCalls({ ...plain, transient: {} } as Route)).toBe(true);
    expect(countsCalls({ ...plain, concurrency: { concurrent_update_on_call: 2 } } as Route)).toBe(true);
    expect(countsCalls({ ...plain, concurrency: {} } as Route)).toBe(false);
  });
});

describe("edits of a step", () => {
  const poll = job.golden[2] as RestStep;

  it("a header found and dropped in any case; the others kept", () => {
    expect(headerName(poll, "x-apiflow-wait")).toBe("x-apiflow-wait");
    expect(headerName(poll, "authorization")).toBe("Authorization");
    expect(headerName(poll, "idempotency-key")).toBeUndefined();
    expect(withoutHeader(poll, "authorization").request.headers).toEqual({ "x-apiflow-wait": "2" });
    const bare: RestStep = { ...poll, request: { method: "GET", url: "/x" } };
    expect(headerName(bare, "authorization")).toBeUndefined();
    expect(withoutHeader(bare, "a").request.headers).toEqual({});
  });

  it("repeated: the copies capture under new names, use them, and a literal idempotency key gets the suffix", () => {
    const submit: RestStep = {
      op: "execute",
      request: {
        method: "POST",
        url: "/v3/maintenance-orders",
        headers: { "Idempotency-Key": "k-1" },
        body: {},
      },
      capture: { job: "job_id" },
    };
    const again = repeated([submit, poll, job.golden[4] as GoldenStep]);
    expect(again[0]).toMatchObject({
      capture: { job__again: "job_id" },
      request: { headers: { "Idempotency-Key": "k-1__again" } },
    });
    expect((again[1] as RestStep).request.url).toBe("/v3/jobs/{{job__again}}");
    expect((again[1] as RestStep).request.headers).toEqual(poll.request.headers);
    expect(again[2]).toEqual(job.golden[4]);
    expect((repeated([submit], "_2")[0] as RestStep).capture).toEqual({ job_2: "job_id" });
  });

  it("withoutCaptures empties a send step's captures and leaves other steps as they are", () => {
    expect(withoutCaptures(job.golden[1] as GoldenStep)).toMatchObject({ op: "execute", capture: {} });
    expect(withoutCaptures(job.golden[4] as GoldenStep)).toBe(job.golden[4]);
  });

  it("retargeted replaces one whole path segment and keeps the query; hasSegment sees whole segments only", () => {
    const read: GoldenStep = {
      op: "execute",
      request: { method: "GET", url: "/v3/vessels/V-412?fields=V-412" },
      capture: {},
    };
    expect((retargeted(read, "V-412", "V-311") as RestStep).request.url).toBe(
      "/v3/vessels/V-311?fields=V-412",
    );
    expect((retargeted(read, "V-41", "V-311") as RestStep).request.url).toBe(
      "/v3/vessels/V-412?fields=V-412",
    );
    const noQuery: GoldenStep = {
      op: "execute",
      request: { method: "GET", url: "/v3/vessels/V-412" },
      capture: {},
    };
    expect((retargeted(noQuery, "V-412", "V-311") as RestStep).request.url).toBe("/v3/vessels/V-311");
    expect(retargeted(job.golden[4] as GoldenStep, "V-412", "V-311")).toBe(job.golden[4]);
    expect(hasSegment(read, "V-412")).toBe(true);
    expect(hasSegment(read, "V-41")).toBe(false);
    expect(hasSegment(read, "fields=V-412")).toBe(false);
    expect(hasSegment(job.golden[4] as GoldenStep, "V-412")).toBe(false);
  });

  it("a GraphQL/MCP step: every argument equal to the value replaced, at any depth; the same step when none is", () => {
    const mcp: NativeStep = {
      op: "execute_native",
      request: {
        protocol: "mcp",
        tool: "get_vessel",
        arguments: { vessel_id: "V-412", tags: ["V-412", "x"], n: 1 },
      },
      capture: {},
    };
    const moved = retargeted(mcp, "V-412", "V-311") as NativeStep;
    expect(moved.request).toEqual({
      protocol: "mcp",
      tool: "get_vessel",
      arguments: { vessel_id: "V-311", tags: ["V-311", "x"], n: 1 },
    });
    expect(retargeted(mcp, "V-9", "V-311")).toEqual(mcp);
    expect((retargeted(mcp, "V-9", "V-311") as NativeStep).request).toBe(mcp.request);
    expect(hasSegment(mcp, "V-412")).toBe(true);
    expect(hasSegment(mcp, "x")).toBe(true);
    expect(hasSegment(mcp, "V-9")).toBe(false);
    expect(hasSegment(mcp, "get_vessel")).toBe(true);
  });

  it("withBodyValue: a REST body's top-level key; a GraphQL variable or MCP argument at any depth", () => {
    const submit = job.golden[1] as RestStep;
    expect((withBodyValue(submit, "priority", "low") as RestStep).request.body).toEqual({
      vessel_id: "V-204",
      priority: "low",
    });
    const gql: NativeStep = {
      op: "execute_native",
      request: {
        protocol: "graphql",
        query: "mutation($input: OrderInput!) { createOrder(input: $input) { id } }",
        variables: { input: { priority: "high", items: [{ priority: "high" }] } },
      },
      capture: {},
    };
    expect((withBodyValue(gql, "priority", "low") as NativeStep).request).toMatchObject({
      variables: { input: { priority: "low", items: [{ priority: "low" }] } },
    });
    const bare: NativeStep = {
      op: "execute_native",
      request: { protocol: "graphql", query: "{ a }" },
      capture: {},
    };
    expect((withBodyValue(bare, "priority", "low") as NativeStep).request).toEqual(bare.request);
    const mcp: NativeStep = {
      op: "execute_native",
      request: { protocol: "mcp", tool: "create_order", arguments: { priority: "high", vessel_id: "V-204" } },
      capture: {},
    };
    expect((withBodyValue(mcp, "priority", "low") as NativeStep).request).toEqual({
      protocol: "mcp",
      tool: "create_order",
      arguments: { priority: "low", vessel_id: "V-204" },
    });
    const noArgs: NativeStep = { op: "execute_native", request: { protocol: "mcp", tool: "t" }, capture: {} };
    expect((withBodyValue(noArgs, "priority", "low") as NativeStep).request).toEqual(noArgs.request);
  });
});

describe("the world's records", () => {
  const jobRoute = W.routes.find((r) => r.id === "getOrderJob") as Route;
  const vessel = W.routes.find((r) => r.path === "/v3/vessels/{vessel_id}") as Route;

  it("a path parameter names the resource whose id field it is, or the route's own resource when last", () => {
    expect(resourceOfParam(W, vessel, "vessel_id")).toBe("vessels");
    expect(resourceOfParam(W, jobRoute, "job_id")).toBe("maintenance-orders");
    expect(resourceOfParam(W, { ...jobRoute, path: "/v3/jobs/{job_id}/confirm" }, "job_id")).toBeNull();
    expect(resourceOfParam(W, { ...jobRoute, resource: "nowhere" }, "job_id")).toBeNull();
  });

  it("seeded ids in order, and the resource an id belongs to", () => {
    expect(seededIds(W, "vessels")).toEqual(["V-204", "V-311", "V-412"]);
    expect(seededIds(W, "maintenance-orders")).toEqual([]);
    expect(seededIds(W, "nowhere")).toEqual([]);
    expect(resourceOfId(W, "V-311")).toBe("vessels");
    expect(resourceOfId(W, "V-999")).toBeNull();
    expect(resourceOfId(W, 204)).toBeNull();
  });
});

describe("variedSteps", () => {
  it("a solo task: every step, at its position", () => {
    expect(variedSteps(channelTask())).toEqual({ start: 0, end: 3, position: 1 });
    expect(variedSteps({ ...channelTask(), positions: [4] })).toEqual({ start: 0, end: 3, position: 4 });
  });
});
