import { describe, expect, it } from "vitest";
import type { GraderSpec } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { gradeTrial } from "./grade-trial.js";

/**
 * Fields whose expected value is resolved per trial, a record of the final state or a canary,
 * and tolerances on every path (issue 21: mutation testing).
 */
const SEED = "seed-resolved";
const ref = {
  $record: { resource: "runs", where: { sample: "S-1" }, role: "the run of S-1" },
  field: "count",
};
const grader = {
  answer: [
    { field: "count", comparator: "numeric", expected: ref, explain: "", tolerance: 0.5 },
    { field: "code", comparator: "string", expected: { $canary: "code" }, explain: "" },
    { field: "total", comparator: "numeric", expected: 100, explain: "", tolerance: 2 },
  ],
  g1: [],
  constraints: [],
  checkpoints: [],
} as unknown as GraderSpec;
const records = { runs: [{ sample: "S-1", count: 10 }] };
const card = (o: Record<string, unknown>) => `\`\`\`json\n${JSON.stringify(o)}\n\`\`\``;
const code = mintCanary(SEED, { $canary: "code" });

describe("gradeTrial: resolved fields", () => {
  it("a record's value within the field's own tolerance passes, with no reason; so does a scalar's", () => {
    const g = gradeTrial({
      grader,
      trialSeed: SEED,
      events: [],
      finalMessage: card({ count: 10.3, code, total: 101.5 }),
      finalRecords: records,
    });
    expect(g.g2).toEqual([
      { field: "count", comparator: "numeric", expected: 10, got: 10.3, passed: true },
      { field: "code", comparator: "string", expected: code, got: code, passed: true },
      { field: "total", comparator: "numeric", expected: 100, got: 101.5, passed: true },
    ]);
  });

  it("a wrong value names the record meant; a wrong canary does not", () => {
    const g = gradeTrial({
      grader,
      trialSeed: SEED,
      events: [],
      finalMessage: card({ count: 12, code: "x", total: 100 }),
      finalRecords: records,
    });
    expect(g.g2.map((f) => f.reason)).toEqual([
      "12.0 != 10.0 (tol ±0.5) (expected the count of the run of S-1)",
      `'x' != expected '${code}'`,
      undefined,
    ]);
  });

  it("without the final records a record field fails, saying why, with no expected value", () => {
    const g = gradeTrial({ grader, trialSeed: SEED, events: [], finalMessage: card({ count: 10 }) });
    expect(g.g2[0]).toEqual({
      field: "count",
      comparator: "numeric",
      expected: null,
      got: 10,
      passed: false,
      reason: "expected the count of the run of S-1 is unknown: the world's final records were not kept",
    });
  });
});
