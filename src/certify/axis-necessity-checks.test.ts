import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  idIn,
  SUB01,
  SUB02,
  SUB03,
  skeletonContent,
  skeletonIn,
  type TestProtocol,
  taskOf,
} from "../../test/support/test-banks.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { axisBlindVariant, axisNecessityFindings } from "./axis-necessity.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * The axis-necessity gate's verdicts on the skeleton's harbour world (auth, discovery and
 * statefulness subtasks, their chain, and their GraphQL and MCP variants), a task built to fail
 * each: axis-necessity.test.ts checks the gate on the default bank, whose build and replays take
 * too long to run for every mutant of `npm run mutate certify-axis-necessity`.
 */

const findings = async (bank: Bank, id: string) =>
  (await axisNecessityFindings(bank, taskOf(bank, id), sharedTrials(bank))).failures;

/** A ticket whose client held a fresh token: never re-minting is what the golden does. */
const freshClient = (t: Task): Task => ({
  ...t,
  premises: (t.premises ?? []).map((p) => (p.kind === "call" ? { ...p, token: "fresh" as const } : p)),
});
/** The skeleton in `p` with the canonical routes listed first: the first documented read is the right one. */
const canonicalFirst = (p: TestProtocol): Bank => {
  const content = skeletonIn(p);
  return bankFromContent({
    ...content,
    worlds: content.worlds.map((w) => ({
      ...w,
      routes: [
        ...w.routes.filter((r) => r.status === "canonical"),
        ...w.routes.filter((r) => r.status !== "canonical"),
      ],
    })),
  });
};
/** A grader that never looks at the kept variable. */
const storeBlind = (t: Task): Task => ({
  ...t,
  requirements: [],
  grader: {
    ...t.grader,
    g1: t.grader.g1
      .filter((p) => p.kind !== "workspace_value")
      .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
  },
});

describe("axis necessity on the harbour world: the skeleton's tasks need their axis", () => {
  it.each(["rest", "graphql", "mcp"] as const)("every task in %s, the chain too, fails blind", async (p) => {
    const bank = bankFromContent(skeletonIn(p));
    for (const t of bank.tasks) expect(await findings(bank, t.id), t.id).toEqual([]);
  });
});

describe("axis necessity: a task built to fail the gate, per axis and protocol", () => {
  const cases: Array<[TestProtocol, string, (t: Task) => Task, string, string]> = [];
  for (const p of ["rest", "graphql", "mcp"] as const) {
    cases.push([
      p,
      SUB01,
      freshClient,
      "auth",
      "an agent blind to auth plays the golden unchanged: the task does not need the skill",
    ]);
    cases.push([
      p,
      SUB03,
      storeBlind,
      "statefulness",
      "an agent blind to statefulness passes (local variable maintenance_order_id not kept)",
    ]);
  }
  it.each(cases)("%s %s", async (p, id, edit, axis, message) => {
    const bank = bankWith(id, edit, p);
    expect(await findings(bank, idIn(p, id))).toEqual([
      { task_id: idIn(p, id), check: `axis_blind:${axis}`, message },
    ]);
  });

  it.each(["rest", "graphql", "mcp"] as const)(
    "%s harbor-telemetry-sub02 in a world listing its right route first",
    async (p) => {
      expect(await findings(canonicalFirst(p), idIn(p, SUB02))).toEqual([
        {
          task_id: idIn(p, SUB02),
          check: "axis_blind:discovery",
          message: "an agent blind to discovery plays the golden unchanged: the task does not need the skill",
        },
      ]);
    },
  );

  it("a golden that fails its own grader is left to the triad: no finding here", async () => {
    const bank = bankWith(SUB03, (t) =>
      storeBlind({
        ...t,
        grader: { ...t.grader, answer: t.grader.answer.map((f) => ({ ...f, expected: "not-this" })) },
      }),
    );
    expect(await findings(bank, SUB03)).toEqual([]);
  });

  it("a GraphQL or MCP golden step with no REST form cannot be blinded", async () => {
    const bank = bankWith(
      SUB01,
      (t) => ({
        ...t,
        golden: t.golden.map((s) =>
          s.op === "execute_native" && s.request.protocol === "mcp"
            ? { ...s, request: { ...s.request, tool: "no_such_tool" } }
            : s,
        ),
      }),
      "mcp",
    );
    expect(await findings(bank, idIn("mcp", SUB01))).toEqual([
      {
        task_id: idIn("mcp", SUB01),
        check: "axis_blind:unmapped",
        message: "a mcp golden step has no REST form to blind",
      },
    ]);
  });
});

describe("axis necessity: the blind variant of the harbour chain", () => {
  /** The golden run's exchange per send step, as the gate gives it to axisBlindVariant. */
  async function seenOf(bank: Bank, task: Task): Promise<Map<number, ExchangeEvent>> {
    const golden = await sharedTrials(bank).run(task, goldenAgentFactory);
    const exchanges = golden.events.filter((e): e is ExchangeEvent => e.type === "exchange");
    const sends = task.golden.flatMap((s, i) => (s.op === "execute" ? [i] : []));
    return new Map(sends.map((i, n) => [i, exchanges[n] as ExchangeEvent]));
  }

  it("blinds each segment to its own axis, in segment order, and renames what later steps read", async () => {
    const bank = bankFromContent(skeletonContent());
    const chain = taskOf(bank, CHAIN);
    const variant = axisBlindVariant(bank, chain, await seenOf(bank, chain));
    if (!variant.success) throw new Error(variant.error);
    expect(variant.what).toEqual([
      "segment 1 (auth): the vault's access_token kept, 1 mint(s) dropped",
      "segment 2 (discovery): GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}",
      "segment 3 (statefulness): GET /v3/vessels/V-204 not read again",
      "segment 3 (statefulness): local variable maintenance_order_id not kept",
    ]);
    const urls = variant.steps.map((s) => (s.op === "execute" ? s.request.url : s.op));
    expect(urls).toEqual([
      "/v3/vessels/V-204",
      "read_spec",
      "/v3/oauth/token",
      "/v2/vessels/V-311",
      "/v3/oauth/token",
      "/v3/maintenance-orders",
      "/v3/maintenance-orders/{{order}}",
      "answer",
    ]);
  });

  it("a solo task's variant names what the blind agent did, unprefixed", async () => {
    const bank = bankFromContent(skeletonContent());
    const whats: string[][] = [];
    for (const id of [SUB01, SUB02, SUB03]) {
      const t = taskOf(bank, id);
      const v = axisBlindVariant(bank, t, await seenOf(bank, t));
      whats.push(v.success ? v.what : [v.error]);
    }
    expect(whats).toEqual([
      ["the vault's access_token kept, 1 mint(s) dropped"],
      ["GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}"],
      ["local variable maintenance_order_id not kept"],
    ]);
  });

  it("a chain segment whose blind call the protocol cannot carry stays golden; the others are blinded", async () => {
    const bank = bankFromContent(skeletonContent());
    const chain = taskOf(bank, CHAIN);
    const v2 = (steps: readonly GoldenStep[]) =>
      steps.some((s) => s.op === "execute" && s.request.url.startsWith("/v2/")) ? "no /v2 here" : null;
    const variant = axisBlindVariant(bank, chain, await seenOf(bank, chain), v2);
    if (!variant.success) throw new Error(variant.error);
    expect(variant.what).toEqual([
      "segment 1 (auth): the vault's access_token kept, 1 mint(s) dropped",
      "segment 2 (discovery) not blinded: no /v2 here",
      "segment 3 (statefulness): GET /v3/vessels/V-204 not read again",
      "segment 3 (statefulness): local variable maintenance_order_id not kept",
    ]);
    expect(variant.steps.some((s) => s.op === "execute" && s.request.url.startsWith("/v2/"))).toBe(false);
  });
});

describe("axis necessity: the blind variant's segments, without a trial", () => {
  const bank = bankFromContent(skeletonContent());
  const chain = taskOf(bank, CHAIN);

  it("a chain whose golden never captures a segment's answer values cannot be split", () => {
    const broken = {
      ...chain,
      golden: chain.golden.map((s) =>
        s.op === "answer" ? { ...s, fields: { ...s.fields, firmware_build: "never_captured" } } : s,
      ),
    };
    expect(axisBlindVariant(bank, broken, new Map())).toEqual({
      success: false,
      error: "the golden never captures the answer values of segment 1",
    });
  });

  it("a chain's segment is blind to its solo subtask's axis; without one in the bank, to the chain's first", () => {
    const alone = bankFromContent({ ...skeletonContent(), tasks: [structuredClone(chain)] });
    const v = axisBlindVariant(alone, taskOf(alone, CHAIN), new Map());
    expect(v.success && v.what).toEqual([
      "segment 2 (auth): 1 re-mint(s) dropped",
      "segment 3 (auth): 1 re-mint(s) dropped",
    ]);
  });

  it("a solo golden without an answer step is blinded to its end", () => {
    const sub03 = taskOf(bank, SUB03);
    const unanswered = { ...sub03, golden: sub03.golden.filter((s) => s.op !== "answer") };
    const v = axisBlindVariant(bank, unanswered, new Map());
    if (!v.success) throw new Error(v.error);
    expect(v.what).toEqual(["local variable maintenance_order_id not kept"]);
    expect(v.steps).toEqual(unanswered.golden.filter((s) => s.op !== "store"));
  });
});
