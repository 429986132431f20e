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
import type { Task } from "../bank/task-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { axisBlindVariant, axisNecessityFindings } from "./axis-necessity.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * The axis-necessity gate's look-ups and branches on the skeleton's harbour world: which task a
 * segment takes its axis and premises from, where a solo golden's blinded range ends, and each
 * failure's check and message (the blind trial's verdict forced where the message is the point).
 */

/** The golden run's exchange per send step, as the gate gives it to axisBlindVariant. */
async function seenOf(bank: Bank, task: Task): Promise<Map<number, ExchangeEvent>> {
  const golden = await sharedTrials(bank).run(task, goldenAgentFactory);
  const exchanges = golden.events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const sends = task.golden.flatMap((s, i) => (s.op === "execute" ? [i] : []));
  return new Map(sends.map((i, n) => [i, exchanges[n] as ExchangeEvent]));
}

/** The shared runner, except that every trial (the golden's too, with `golden`) is reported passed. */
function blindPasses(bank: Bank, golden = false): TrialRunner {
  const real = sharedTrials(bank);
  return {
    run: async (task, agent, epoch, options) => {
      const r = await real.run(task, agent, epoch, options);
      return agent === goldenAgentFactory && !golden ? r : { ...r, grade: { ...r.grade, passed: true } };
    },
    release: (task) => real.release(task),
  };
}

/** The shared runner, with the golden's last exchange taken out of its log. */
function oneExchangeLost(bank: Bank): TrialRunner {
  const real = sharedTrials(bank);
  return {
    run: async (task, agent, epoch, options) => {
      const r = await real.run(task, agent, epoch, options);
      const last = r.events.findLastIndex((e) => e.type === "exchange");
      return { ...r, events: r.events.filter((_, i) => i !== last) };
    },
    release: (task) => real.release(task),
  };
}

const CHAIN_WHAT = [
  "segment 1 (auth): the vault's access_token kept, 1 mint(s) dropped",
  "segment 2 (discovery): GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}",
  "segment 3 (statefulness): GET /v3/vessels/V-204 not read again",
  "segment 3 (statefulness): local variable maintenance_order_id not kept",
];

describe("axis necessity: a segment's axis and premises are its own solo subtask's", () => {
  const bank = bankFromContent(skeletonContent());
  const chain = taskOf(bank, CHAIN);
  const sub01 = taskOf(bank, SUB01);

  it("a chain's segments skip another chain, another world's solo and another position", async () => {
    const unquoted = { axes: ["statefulness" as const], premises: [] };
    const crowded: Bank = {
      ...bank,
      tasks: [
        { ...chain, id: "decoy-chain", ...unquoted },
        { ...sub01, id: "elsewhere-sub01", world: "elsewhere", ...unquoted },
        { ...sub01, id: "decoy-position-9", positions: [9], ...unquoted },
        ...bank.tasks,
      ],
    };
    const v = axisBlindVariant(crowded, chain, await seenOf(bank, chain));
    expect(v.success && v.what).toEqual(CHAIN_WHAT);
  });

  it("a solo task blinds to its own axis and quotes its own premises, not an earlier twin's", async () => {
    const twinned: Bank = {
      ...bank,
      tasks: [{ ...sub01, id: "twin", axes: ["discovery"], premises: [] }, ...bank.tasks],
    };
    const v = axisBlindVariant(twinned, sub01, await seenOf(bank, sub01));
    expect(v.success && v.what).toEqual(["the vault's access_token kept, 1 mint(s) dropped"]);
  });

  it("a solo golden without an answer step is blinded to its last step", async () => {
    const sub02 = taskOf(bank, SUB02);
    const unanswered = { ...sub02, golden: sub02.golden.filter((s) => s.op !== "answer") };
    const v = axisBlindVariant(bank, unanswered, await seenOf(bank, sub02));
    if (!v.success) throw new Error(v.error);
    expect(v.what).toEqual(["GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}"]);
    expect(v.steps.map((s) => (s.op === "execute" ? s.request.url : s.op))).toEqual([
      "read_spec",
      "/v3/oauth/token",
      "/v2/vessels/V-311",
    ]);
  });

  it("a solo golden whose answer comes first blinds nothing (its range ends at the answer)", () => {
    const sub03 = taskOf(bank, SUB03);
    const answer = sub03.golden.filter((s) => s.op === "answer");
    const answerFirst = { ...sub03, golden: [...answer, ...sub03.golden.filter((s) => s.op !== "answer")] };
    expect(axisBlindVariant(bank, answerFirst, new Map())).toEqual({
      success: true,
      steps: answerFirst.golden,
      what: [],
    });
  });
});

describe("axis necessity: the gate's failures, check and message", () => {
  it("a chain whose blind agent passes is named by all its axes, with what the agent did", async () => {
    const bank = bankFromContent(skeletonContent());
    expect((await axisNecessityFindings(bank, taskOf(bank, CHAIN), blindPasses(bank))).failures).toEqual([
      {
        task_id: CHAIN,
        check: "axis_blind:auth+discovery+statefulness",
        message: `an agent blind to auth+discovery+statefulness passes (${CHAIN_WHAT.join("; ")})`,
      },
    ]);
  });

  it("a golden that fails is the triad's finding, even when the blind agent would pass", async () => {
    const bank = bankWith(SUB03, (t) => ({
      ...t,
      grader: { ...t.grader, answer: t.grader.answer.map((f) => ({ ...f, expected: "not-this" })) },
    }));
    expect((await axisNecessityFindings(bank, taskOf(bank, SUB03), blindPasses(bank))).failures).toEqual([]);
  });

  it.each(["rest", "graphql", "mcp"] as const)(
    "%s: a golden whose log lost an exchange cannot be mapped to its steps",
    async (p: TestProtocol) => {
      const bank = bankFromContent(skeletonIn(p));
      const id = idIn(p, SUB01);
      expect((await axisNecessityFindings(bank, taskOf(bank, id), oneExchangeLost(bank))).failures).toEqual([
        { task_id: id, check: "axis_blind:unmapped", message: "the golden's 2 calls produced 1 exchanges" },
      ]);
    },
  );

  it("a REST golden is not mapped to REST: a stray MCP step there fails on its exchanges, not as unmapped", async () => {
    const bank = bankWith(SUB01, (t) => ({
      ...t,
      golden: [
        {
          op: "execute_native",
          request: { protocol: "mcp", tool: "no_such_tool", arguments: {} },
          capture: {},
        },
        ...t.golden,
      ],
    }));
    expect(
      (await axisNecessityFindings(bank, taskOf(bank, SUB01), blindPasses(bank, true))).failures,
    ).toEqual([
      { task_id: SUB01, check: "axis_blind:unmapped", message: "the golden's 3 calls produced 0 exchanges" },
    ]);
  });

  it("a chain whose golden passes but cannot be split into segments fails as such", async () => {
    const bank = bankWith(CHAIN, (t) => ({
      ...t,
      golden: t.golden.map((s) =>
        s.op === "answer" ? { ...s, fields: { ...s.fields, firmware_build: "never_captured" } } : s,
      ),
    }));
    expect(
      (await axisNecessityFindings(bank, taskOf(bank, CHAIN), blindPasses(bank, true))).failures,
    ).toEqual([
      {
        task_id: CHAIN,
        check: "axis_blind:unsplit",
        message: "the golden never captures the answer values of segment 1",
      },
    ]);
  });
});

/** SUB03 re-axed to schema repair, its ticket quoting a client's PUT to a path no route serves. */
const unroutableClient = (t: Task): Task => ({
  ...t,
  axes: ["schema_repair"],
  premises: [
    {
      kind: "call",
      method: "PUT",
      url: "/v3/maintenance-order",
      token: "fresh",
      status: 404,
      error: "not_found",
      message: "no such route",
    },
  ],
});

describe("axis necessity: a blind call the protocol cannot carry", () => {
  const PUT = "PUT /v3/maintenance-order matches no route of world";

  it.each(["graphql", "mcp"] as const)("%s: a solo task fails, naming the call", async (p) => {
    const bank = bankWith(SUB03, unroutableClient, p);
    const id = idIn(p, SUB03);
    expect((await axisNecessityFindings(bank, taskOf(bank, id), sharedTrials(bank))).failures).toEqual([
      {
        task_id: id,
        check: "axis_blind:schema_repair",
        message: `an agent blind to schema_repair cannot make its call in ${p} (axis-blind step 2: ${PUT} harbor-telemetry-${p}): the variant does not demand the skill`,
      },
    ]);
  });

  it.each(["rest", "graphql", "mcp"] as const)("%s: a chain keeps that segment golden", async (p) => {
    const bank = bankWith(SUB03, unroutableClient, p);
    const id = idIn(p, CHAIN);
    const segment3 =
      p === "rest"
        ? "segment 3 (schema_repair): PUT /v3/maintenance-order sent as the client sent it (1×)"
        : `segment 3 (schema_repair) not blinded: axis-blind step 2: ${PUT} harbor-telemetry-${p}`;
    expect((await axisNecessityFindings(bank, taskOf(bank, id), blindPasses(bank))).failures).toEqual([
      {
        task_id: id,
        check: "axis_blind:auth+discovery+schema_repair",
        message: `an agent blind to auth+discovery+schema_repair passes (${[...CHAIN_WHAT.slice(0, 2), segment3].join("; ")})`,
      },
    ]);
  });
});
