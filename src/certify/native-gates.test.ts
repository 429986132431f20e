import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  CHAIN_NEGATIVE_REPLAYS,
  CHAIN_SEGMENTS,
  canaryTypedIn,
  decoyBlindGrader,
  examKinds,
  idIn,
  SUB01,
  SUB02,
  SUB03,
  selectiveChain,
  skeletonIn,
  storeUnchecked,
  taskOf,
  wrongSegmentBlind,
} from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { chainSegments } from "./certify-kit.js";
import { chainReplayGate, negativeReplays } from "./chain-replay.js";
import { discoverabilityGate, sentLiterals } from "./discoverability.js";
import { exploitAuditGate } from "./exploit-audit.js";
import { leakGate } from "./leak.js";
import { triadGate } from "./triad.js";

/** A golden step with every occurrence of `from` in its request replaced by `to`. */
function swapIn(step: GoldenStep, from: string, to: string): GoldenStep {
  return JSON.parse(JSON.stringify(step).replaceAll(from, to)) as GoldenStep;
}

/** The task with golden step `index` (0-based) rewritten. */
function withStep(task: Task, index: number, edit: (s: GoldenStep) => GoldenStep): Task {
  return { ...task, golden: task.golden.map((s, i) => (i === index ? edit(s) : s)) };
}

describe("GraphQL and MCP literals", () => {
  it("splits a GraphQL request into the world's words it uses, leaving the agent's own names out", () => {
    const literals = sentLiterals({
      protocol: "graphql",
      query:
        'query Q($v0: String!) { r: getVessel(vessel_id: $v0) m: listVessels(first: 2, region: "north") { nodes } }',
      variables: { v0: "V-204", input: { priority: "high" } },
      headers: { Authorization: "Bearer tk_1" },
    });
    expect(literals.map((l) => `${l.where}=${l.value}`)).toEqual([
      "graphql field=getVessel",
      "graphql argument=vessel_id",
      "graphql field=listVessels",
      "graphql argument=first",
      "graphql value=2",
      "graphql argument=region",
      "graphql value=north",
      "graphql field=nodes",
      "variable value=V-204",
      "variable field=priority",
      "variable value=high",
      "header name=Authorization",
      "header value=Bearer",
      "header value=tk_1",
    ]);
  });

  it("splits an MCP call into its tool, argument names and values", () => {
    const literals = sentLiterals({
      protocol: "mcp",
      tool: "create_order",
      arguments: { vessel_id: "V-204", body: { priority: "high", urgent: true } },
    });
    expect(literals.map((l) => `${l.where}=${l.value}`)).toEqual([
      "tool name=create_order",
      "tool argument=vessel_id",
      "argument value=V-204",
      "tool argument=body",
      "body field=priority",
      "argument value=high",
      "body field=urgent",
    ]);
  });
});

describe.each(["graphql", "mcp"] as const)("gates over %s golden steps (execute_native)", (protocol) => {
  const bank = bankFromContent(skeletonIn(protocol));
  const id = (rest: string) => idIn(protocol, rest);
  /** What the discoverability gate reports of SUB01 with its second golden step (the read) rewritten. */
  const stepTwoFailure = async (edit: (s: GoldenStep) => GoldenStep) => {
    const broken = bankWith(SUB01, (t) => withStep(t, 1, edit), protocol);
    return (await discoverabilityGate(broken, [taskOf(broken, id(SUB01))])).first_failure;
  };

  it("passes the skeleton bank's variant through every gate, every kind of exam exercised", async () => {
    expect(bank.tasks.every((t) => t.golden.every((s) => s.op !== "execute"))).toBe(true);
    expect((await triadGate(bank, bank.tasks)).first_failure).toBeNull();
    expect((await discoverabilityGate(bank, bank.tasks)).first_failure).toBeNull();
    expect((await leakGate(bank, bank.tasks)).first_failure).toBeNull();
    expect(await chainReplayGate(bank, bank.tasks)).toMatchObject({ checked: 1, failed: 0 });
    const audit = await exploitAuditGate(bank, bank.tasks);
    expect(audit.first_failure).toBeNull();
    for (const name of ["decoy-reader", "brute-force-ids", "store-without-use", "wrong-response-value"])
      expect(audit.attacked?.[name]).toBeGreaterThan(0);
    const kinds = examKinds(bank);
    for (const kind of [
      "sabotage:decoy_route",
      "sabotage:canary_without_call",
      "sabotage:store_skipped",
      "sabotage:stale_token",
    ])
      expect(kinds).toContain(kind);
  });

  it("triad: rejects a grader the decoy field/tool also satisfies", async () => {
    const broken = bankWith(SUB02, decoyBlindGrader, protocol);
    const report = await triadGate(broken, [taskOf(broken, id(SUB02))]);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:decoy_route@3");
  });

  it("triad: rejects a grader that lets the canary be typed in without the call", async () => {
    const broken = bankWith(SUB02, canaryTypedIn, protocol);
    const report = await triadGate(broken, [taskOf(broken, id(SUB02))]);
    expect(report.failures.map((f) => f.check)).toContain("sabotage:canary_without_call:berth");
  });

  it("triad: rejects a grader that does not check the store the ticket demands", async () => {
    const broken = bankWith(SUB03, storeUnchecked, protocol);
    const report = await triadGate(broken, [taskOf(broken, id(SUB03))]);
    expect(report.failures.map((f) => f.check)).toEqual(["sabotage:store_skipped@4"]);
  });

  it("discoverability: reports an id no ticket, spec or earlier response shows, sent as an argument", async () => {
    // V-412 exists, but nothing the agent can see names it.
    const failure = await stepTwoFailure((s) => swapIn(s, "V-204", "V-412"));
    const where = protocol === "graphql" ? "variable value" : "argument value";
    expect(failure).toMatch(new RegExp(`golden step 2 \\(${protocol} .*\\) sends ${where} "V-412"`));
  });

  it("discoverability: reports a field or tool the schema does not have", async () => {
    // The skeleton's route ids are camelCase, so the GraphQL field and the MCP tool share the name.
    const failure = await stepTwoFailure((s) => swapIn(s, "getVessel", "getVesselInternal"));
    const where = protocol === "graphql" ? "graphql field" : "tool name";
    expect(failure).toMatch(new RegExp(`sends ${where} "getVesselInternal"`));
  });

  it("discoverability: reports an argument the schema or tool list never names", async () => {
    const failure = await stepTwoFailure((s) => {
      if (s.op !== "execute_native") return s;
      const r = s.request;
      return r.protocol === "graphql"
        ? {
            ...s,
            request: {
              ...r,
              query: r.query.replace("(vessel_id: $v0)", '(vessel_id: $v0, fleet_tenant: "north-7")'),
            },
          }
        : { ...s, request: { ...r, arguments: { ...r.arguments, fleet_tenant: "north-7" } } };
    });
    const where = protocol === "graphql" ? "graphql argument" : "tool argument";
    expect(failure).toMatch(new RegExp(`golden step 2 \\(${protocol} .*\\) sends ${where} "fleet_tenant"`));
  });

  it("discoverability: reports an undiscoverable header on a native call", async () => {
    const failure = await stepTwoFailure((s) =>
      s.op === "execute_native"
        ? { ...s, request: { ...s.request, headers: { ...s.request.headers, "X-Fleet-Tenant": "north-7" } } }
        : s,
    );
    expect(failure).toMatch(/golden step 2 .* sends header name "X-Fleet-Tenant"/);
  });

  it("leak: rejects a ticket that already states the answer", async () => {
    const broken = bankWith(
      SUB02,
      (t) => ({ ...t, ticket: `${t.ticket}\n(It last called at Gdansk.)` }),
      protocol,
    );
    const report = await leakGate(broken, [taskOf(broken, id(SUB02))]);
    expect(report.first_failure).toMatch(/last_port_call \("Gdansk"\) already sits in the ticket/);
  });

  it("chain replay: finds the same segments and negative replays as the REST chain", () => {
    const chain = taskOf(bank, id(CHAIN));
    const segments = chainSegments(chain);
    if (!segments.success) throw new Error(segments.error);
    expect(segments.data.map((s) => [s.position, s.start, s.end])).toEqual(CHAIN_SEGMENTS);
    expect(negativeReplays(bank, chain, segments.data).map((r) => r.name)).toEqual(CHAIN_NEGATIVE_REPLAYS);
  });

  it("chain replay: rejects a native chain whose later segment does not depend on the earlier one", async () => {
    const broken = bankWith(CHAIN, selectiveChain, protocol);
    const report = await chainReplayGate(broken, [taskOf(broken, id(CHAIN))]);
    expect(report.failures.map((f) => f.check)).toEqual(["skip_segment:1"]);
  });

  it("chain replay: rejects a native chain whose grader ignores a wrong-segment value", async () => {
    const broken = bankWith(CHAIN, wrongSegmentBlind, protocol);
    const report = await chainReplayGate(broken, [taskOf(broken, id(CHAIN))]);
    expect(report.failures.map((f) => f.check)).toContain("wrong_segment_value:3");
  });

  it("exploit audit: the decoy reader solves a task only a decoy-blind grader admits", async () => {
    const broken = bankWith(SUB02, decoyBlindGrader, protocol);
    const report = await exploitAuditGate(broken, [taskOf(broken, id(SUB02))]);
    expect(report.exploits?.["decoy-reader"]).toBe(1);
  });
});
