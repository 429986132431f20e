import { describe, expect, it } from "vitest";
import { defaultVariant } from "../../test/support/default-variant-bank.js";
import type { Premise } from "../bank/premise-schema.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import type { VariantProtocol } from "../generate/protocol-variants.js";
import { axisNecessityFindings } from "./axis-necessity.js";
import { playAndAnswer, scripted, worldOf } from "./certify-kit.js";
import { refusedVerbCall } from "./native-rest.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * The wrong-verb error-recovery tasks in GraphQL and MCP (issue 16's variant certification). The
 * client's call is an update sent with the verb its route does not take (REST answers `405
 * method_not_allowed`). GraphQL and MCP have no verbs, so the error-recovery-blind agent's plain
 * retry used to have no call to make and the gate dropped every such variant. It now retries as a
 * client copying the wrong verb would: the operation that verb would name (`put_zone`), which the
 * variant refuses (MCP `unknown_tool`, a GraphQL validation error), as REST refuses the verb.
 */
const content = defaultBankContent();
type CallPremise = Extract<Premise, { kind: "call" }>;
const wrongVerb = (t: Task): CallPremise | undefined =>
  (t.premises ?? []).find((p): p is CallPremise => p.kind === "call" && p.error === "method_not_allowed");
const original = content.tasks.find(
  (t) => t.kind === "solo" && t.axes[0] === "error_recovery" && wrongVerb(t) !== undefined,
);
if (!original) throw new Error("the default bank has no wrong-verb error-recovery task");

const variant = (protocol: VariantProtocol, edit?: (t: Task) => Task) =>
  defaultVariant(original as Task, protocol, edit);

const clientStep = (p: CallPremise): GoldenStep => ({
  op: "execute",
  request: { method: p.method, url: p.url, ...(p.body ? { body: p.body } : {}) },
  capture: {},
});

describe.each(["graphql", "mcp"] as const)("a wrong-verb error-recovery task in %s", (protocol) => {
  it("needs its axis: the agent retrying the client's verb fails", async () => {
    const { bank, task } = variant(protocol);
    expect((await axisNecessityFindings(bank, task, sharedTrials(bank))).failures).toEqual([]);
  }, 120_000);

  it("the blind retry is the operation the wrong verb names, and the variant refuses it", async () => {
    const { bank, task } = variant(protocol);
    const premise = wrongVerb(task) as CallPremise;
    const call = refusedVerbCall(worldOf(bank, task), protocol, clientStep(premise));
    if (!call) throw new Error("no refused call");
    const verb = premise.method.toLowerCase();
    const r = call.request;
    if (r.protocol === "mcp") expect(r.tool).toMatch(new RegExp(`^${verb}_`));
    else expect(r.query).toMatch(new RegExp(`r: ${verb}[A-Z]`));
    const agent = scripted(bank, "wrong-verb", async (session) => {
      await playAndAnswer(session, task, [call, { op: "answer", fields: {} }]);
    });
    const trial = await sharedTrials(bank).run(task, agent, 1);
    // The refusal is the protocol's own (no operation of that name): no route served the call
    // (GraphQL logs its refused request as a 400 at POST /graphql, MCP logs nothing).
    const served = trial.events.flatMap((e) =>
      e.type === "exchange" ? [`${e.method} ${e.url} ${e.status}`] : [],
    );
    expect(served).toEqual(protocol === "mcp" ? [] : ["POST /graphql 400"]);
    const answer = JSON.stringify(trial.messages.find((m) => m.role === "tool" && m.function === "execute"));
    expect(answer).toMatch(protocol === "mcp" ? /unknown_tool/ : /Cannot query field/);
  }, 120_000);

  it("rejects a task built to fail it: the client's quoted call is the update itself", async () => {
    const rightVerb = (t: Task): Task => ({
      ...t,
      premises: (t.premises ?? []).map((p) =>
        p.kind === "call" && p.error === "method_not_allowed"
          ? { ...p, method: p.method === "PUT" ? "PATCH" : "PUT" }
          : p,
      ),
    });
    const { bank, task } = variant(protocol, rightVerb);
    const premise = wrongVerb(task) as CallPremise;
    expect((await axisNecessityFindings(bank, task, sharedTrials(bank))).failures).toEqual([
      {
        task_id: task.id,
        check: "axis_blind:error_recovery",
        message: `an agent blind to error_recovery passes (${premise.method} ${premise.url} sent as the client sent it (1×))`,
      },
    ]);
  }, 120_000);
});

describe("refusedVerbCall", () => {
  const world = content.worlds.find((w) => w.id === original.world);
  if (!world) throw new Error("no world");
  const premise = wrongVerb(original) as CallPremise;

  it.each(["graphql", "mcp"] as const)(
    "%s: none for a verb the path takes, or a path no route serves",
    (p) => {
      const other = premise.method === "PUT" ? "PATCH" : "PUT";
      expect(refusedVerbCall(world, p, clientStep({ ...premise, method: other }))).toBeNull();
      expect(refusedVerbCall(world, p, clientStep({ ...premise, url: "/no/such/route" }))).toBeNull();
      expect(refusedVerbCall(world, p, clientStep(premise))).not.toBeNull();
    },
  );
});
