import { describe, expect, it } from "vitest";
import type { GraderSpec } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { extractAnswerCard } from "./answer-card.js";
import { gradeTrial } from "./grade-trial.js";

/**
 * Answer fields graded by the kind their grader prepares once (a scalar's spec, a canary minted per
 * trial, a record read from the final state, a list or object holding canaries), each grade the
 * field's own: its keys in the stored order, its reason set for that trial only.
 */
const card = (o: Record<string, unknown>) => `\`\`\`json\n${JSON.stringify(o)}\n\`\`\``;
const run = { $record: { resource: "runs", where: { sample: "S-1" } }, field: "run_id" };
const tags = ["A", { $canary: "tag", format: "T-{code}" }];
const grader = {
  answer: [
    { field: "run_id", comparator: "string", expected: run, explain: "" },
    { field: "tags", comparator: "set", expected: tags, explain: "" },
    { field: "code", comparator: "string", expected: { $canary: "code" }, explain: "" },
  ],
  g1: [],
  constraints: [],
  checkpoints: [],
} as unknown as GraderSpec;
const records = { runs: [{ sample: "S-1", run_id: "RUN-1" }] };
/** The grade of a trial of `grader` answering `answer`, its final records `finalRecords`. */
const graded = (answer: Record<string, unknown>, finalRecords = records, trialSeed = "seed-a") =>
  gradeTrial({ grader, trialSeed, events: [], finalMessage: card(answer), finalRecords });

describe("answer fields by their prepared kind", () => {
  it("a list holding a canary and a lone canary are minted for each trial's seed", () => {
    for (const seed of ["seed-a", "seed-b"]) {
      const tag = mintCanary(seed, tags[1] as { $canary: string; format: string });
      const code = mintCanary(seed, { $canary: "code" });
      const g = graded({ run_id: "RUN-1", tags: ["a", tag], code }, records, seed);
      expect(g.g2).toEqual([
        { field: "run_id", comparator: "string", expected: "RUN-1", got: "RUN-1", passed: true },
        { field: "tags", comparator: "set", expected: ["A", tag], got: ["a", tag], passed: true },
        { field: "code", comparator: "string", expected: code, got: code, passed: true },
      ]);
      expect(g.passed).toBe(true);
    }
    expect(mintCanary("seed-a", { $canary: "code" })).not.toBe(mintCanary("seed-b", { $canary: "code" }));
  });

  it("an unresolved record fails even when the card's null equals the unknown (null) value; keys in the stored order", () => {
    const g = graded({ run_id: null }, { runs: [] });
    const field = g.g2[0];
    expect(field).toEqual({
      field: "run_id",
      comparator: "string",
      expected: null,
      got: null,
      passed: false,
      reason:
        "expected the run_id of the runs record with sample=S-1: no such record at the end of the trial",
    });
    expect(Object.keys(field ?? {})).toEqual(["field", "comparator", "expected", "got", "passed", "reason"]);
  });

  it("a wrong value names the record after the comparator's reason; a passing one has no reason key", () => {
    const wrong = graded({ run_id: "RUN-2" });
    expect(wrong.g2[0]?.reason).toBe(
      "'RUN-2' != expected 'RUN-1' (expected the run_id of the runs record with sample=S-1)",
    );
    expect(Object.keys(wrong.g2[0] ?? {})).toEqual([
      "field",
      "comparator",
      "expected",
      "got",
      "passed",
      "reason",
    ]);
    const right = graded({ run_id: "RUN-1" });
    expect(Object.keys(right.g2[0] ?? {})).toEqual(["field", "comparator", "expected", "got", "passed"]);
  });

  it("a grade's keys: chain_mode only for a chain, after the failure reason and before the segments", () => {
    const chain = {
      ...grader,
      chain_mode: "full",
      answer: grader.answer.map((f, i) => ({ ...f, segment: i + 1 })),
    } as unknown as GraderSpec;
    const g = gradeTrial({
      grader: chain,
      trialSeed: "seed-a",
      events: [],
      finalMessage: "",
      finalRecords: records,
    });
    const keys = Object.keys(g);
    expect(keys.slice(keys.indexOf("failure_reason"))).toEqual(["failure_reason", "chain_mode", "segments"]);
    const solo = gradeTrial({
      grader,
      trialSeed: "seed-a",
      events: [],
      finalMessage: "",
      finalRecords: records,
    });
    expect(Object.keys(solo).at(-1)).toBe("failure_reason");
    expect("chain_mode" in solo).toBe(false);
  });
});

describe("the answer card of a message with one fence or none", () => {
  it("one block is the card, or its own error, whatever it holds", () => {
    expect(extractAnswerCard('x\n```json\n{"other": 1}\n```', ["run_id"])).toEqual({
      success: true,
      data: { other: 1 },
    });
    const broken = extractAnswerCard('```json\n{"run_id": 1,}\n```', ["run_id"]);
    expect(broken.success).toBe(false);
    expect(broken.success ? "" : broken.error.message).toMatch(/^the last ```json block is not valid JSON: /);
  });

  it("of several blocks none holding a declared field, the last is the card, or its own error", () => {
    const block = (body: string) => `\`\`\`json\n${body}\n\`\`\``;
    const three = [block('{"a": 1}'), block('{"b": 2}'), block('{"c": 3}')].join("\n");
    expect(extractAnswerCard(three, ["run_id"])).toEqual({ success: true, data: { c: 3 } });
    const broken = [block('{"a": 1}'), block('{"c": 3,}')].join("\n");
    const got = extractAnswerCard(broken, ["run_id"]);
    expect(got.success ? "" : got.error.message).toMatch(/^the last ```json block is not valid JSON: /);
  });

  it("a fence opened and never closed, or only named in prose, is no card", () => {
    for (const text of ["```json\n{}", "I would write ```json here", ""])
      expect(extractAnswerCard(text, ["run_id"])).toEqual({
        success: false,
        error: { code: "no-json-block", message: "the final message has no ```json fenced block" },
      });
  });
});
