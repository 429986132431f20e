import { describe, expect, it } from "vitest";
import type { GoldenStep } from "../bank/task-schema.js";
import { repeated } from "./golden-edits.js";

/**
 * Issue 21 (area certify-golden-edits, session 12): a GraphQL/MCP step repeated by a repeat mutant
 * carries the REST headers as they are, its idempotency key too (i16-variants). Its copy must send
 * a key of its own, or the variant world replays the first answer and the repeat writes nothing.
 */
type Native = Extract<GoldenStep, { op: "execute_native" }>;
const keyed = (request: Native["request"]): Native => ({
  op: "execute_native",
  request,
  capture: { job: "job_id" },
});
const headers = { Authorization: "Bearer {{token}}", "Idempotency-Key": "k-1" };

describe("repeated: a GraphQL or MCP step's idempotency key", () => {
  it.each([
    ["mcp", keyed({ protocol: "mcp", tool: "createMaintenanceOrder", arguments: { body: {} }, headers })],
    [
      "graphql",
      keyed({
        protocol: "graphql",
        query: "mutation($v0: JSON) { r: createMaintenanceOrder(input: $v0) { status body } }",
        variables: { v0: {} },
        headers,
      }),
    ],
  ] as const)("%s: the copy sends the key with the suffix, its other headers as they are", (_p, step) => {
    const [again] = repeated([step]) as Native[];
    expect(again?.request.headers).toEqual({
      Authorization: "Bearer {{token}}",
      "Idempotency-Key": "k-1__again",
    });
    expect(again?.capture).toEqual({ job__again: "job_id" });
    // The step itself is left as it is.
    expect(step.request.headers).toEqual(headers);
  });

  it("a native step without the header gets none", () => {
    const plain = keyed({
      protocol: "mcp",
      tool: "getMaintenanceOrder",
      arguments: {},
      headers: { Authorization: "Bearer t" },
    });
    expect((repeated([plain])[0] as Native).request.headers).toEqual({ Authorization: "Bearer t" });
  });
});
