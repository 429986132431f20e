import { describe, expect, it } from "vitest";
import { bankWith, idIn, SUB03, taskOf } from "../../test/support/test-banks.js";
import type { Task } from "../bank/task-schema.js";
import { axisNecessityFindings } from "./axis-necessity.js";
import { sharedTrials } from "./trial-tree.js";

/**
 * Issue 21 (area certify-axis-necessity, session 12): the error-recovery-blind agent's wrong verb in
 * a GraphQL or MCP variant, on the skeleton's harbour world (variant-wrong-verb.test.ts checks it
 * on the default bank, too slow to run for every mutant). Harbour's sub03 is made an
 * error-recovery task whose client sent its create with a verb no route of the path takes (`PUT
 * /v3/maintenance-orders`, 405 in REST). Converted, that call has no field or tool; the blind
 * agent retries it as the operation the verb would name (`refusedVerbCall`), which the variant
 * refuses: the blind agent fails and the gate holds, as in REST. Were the wrong verb left
 * unconverted, the gate would find the variant spares the agent the skill.
 */

const clientSent =
  (method: string) =>
  (t: Task): Task => ({
    ...t,
    axes: ["error_recovery"],
    premises: [
      {
        kind: "call",
        method,
        url: "/v3/maintenance-orders",
        // The golden's own create, but for its verb.
        body: { vessel_id: "V-204", priority: "high", firmware_build: "{{firmware}}" },
        token: "fresh",
        status: 405,
        error: "method_not_allowed",
      },
    ],
  });
const findings = async (p: "rest" | "graphql" | "mcp", method: string) => {
  const bank = bankWith(SUB03, clientSent(method), p);
  return (await axisNecessityFindings(bank, taskOf(bank, idIn(p, SUB03)), sharedTrials(bank))).failures;
};

describe("axis necessity: the client's wrong verb, retried blind in each protocol", () => {
  it.each(["rest", "graphql", "mcp"] as const)(
    "%s: the blind retry is refused, so the task needs its axis",
    async (p) => {
      expect(await findings(p, "PUT")).toEqual([]);
    },
  );

  it.each(["rest", "graphql", "mcp"] as const)(
    "%s: a client whose quoted call is the create itself makes no blind agent fail (the gate's control)",
    async (p) => {
      expect(await findings(p, "POST")).toEqual([
        {
          task_id: idIn(p, SUB03),
          check: "axis_blind:error_recovery",
          message:
            "an agent blind to error_recovery passes (POST /v3/maintenance-orders sent as the client sent it (1×))",
        },
      ]);
    },
  );
});
