import { describe, expect, it } from "vitest";
import type { TrialGrade } from "../grade/grade-schema.js";
import type { GoldenMutant } from "./golden-mutants.js";
import { failedNames, kills } from "./requirement-gates.js";

/** A failed grade holding the given results (the rest empty). */
function grade(parts: Partial<Pick<TrialGrade, "g1" | "g2" | "constraints" | "passed">>): TrialGrade {
  return {
    grader_version: "test",
    passed: parts.passed ?? false,
    g1_passed: false,
    g2_passed: false,
    card_found: true,
    g1: parts.g1 ?? [],
    g2: parts.g2 ?? [],
    constraints: parts.constraints ?? [],
    checkpoints: [],
    predicates_passed: 0,
    predicates_total: 1,
    partial_score: 0,
    failure_reason: "failed",
  };
}

const g1 = (
  id: string,
  passed: boolean,
  extra: { requirement?: string; segment?: number; not_evaluated?: true } = {},
) => ({
  id,
  kind: "call" as const,
  passed,
  explain: "",
  ...extra,
});

const field = (name: string, passed: boolean) => ({
  field: name,
  comparator: "numeric" as const,
  expected: 1,
  got: passed ? 1 : 2,
  passed,
});

const constraint = (
  id: string,
  violated: boolean,
  extra: { requirement?: string; segment?: number } = {},
) => ({
  id,
  kind: "forbid" as const,
  violated,
  detail: "GET /v2/x",
  explain: "",
  ...extra,
});

function mutant(extra: Partial<GoldenMutant> = {}): GoldenMutant {
  return { name: "m", operator: "drop_step", step: 1, steps: () => [], ...extra };
}

describe("failedNames: what a failing grade names", () => {
  it("names failed predicates and their requirements, per segment when they have one; not passed or unevaluated ones", () => {
    const names = failedNames(
      grade({
        g1: [
          g1("a", false, { requirement: "ra" }),
          g1("b", false, { requirement: "rb", segment: 2 }),
          g1("c", true, { requirement: "rc" }),
          g1("d", false, { requirement: "rd", not_evaluated: true }),
          g1("e", false),
        ],
      }),
    );
    expect([...names].sort()).toEqual(["a", "b@2", "e", "ra", "rb@2"]);
  });

  it("names failed card fields as answer:<field>, and violated constraints with their requirement whatever the segment", () => {
    const names = failedNames(
      grade({
        g2: [field("berth", false), field("status", true)],
        constraints: [
          constraint("no_v2", true, { requirement: "stay", segment: 3 }),
          constraint("no_v1", false, { requirement: "other" }),
          constraint("no_del", true),
        ],
      }),
    );
    expect([...names].sort()).toEqual(["answer:berth", "no_del", "no_v2", "stay"]);
  });
});

describe("kills: a failing grade that names the mutant's requirement", () => {
  it("a passing grade kills nothing; a failing one kills a mutant with no requirement", () => {
    expect(kills(grade({ passed: true, g1: [g1("a", false)] }), mutant())).toBe(false);
    expect(kills(grade({ g1: [g1("a", false)] }), mutant())).toBe(true);
  });

  it("without a segment: the requirement failed alone or in any segment", () => {
    const m = mutant({ requirement: "r" });
    expect(kills(grade({ g1: [g1("a", false, { requirement: "r" })] }), m)).toBe(true);
    expect(kills(grade({ g1: [g1("a", false, { requirement: "r", segment: 2 })] }), m)).toBe(true);
    expect(kills(grade({ g1: [g1("a", false, { requirement: "other" })] }), m)).toBe(false);
    // A prefix is not the name: "r2@1" does not name "r".
    expect(kills(grade({ g1: [g1("a", false, { requirement: "r2", segment: 1 })] }), m)).toBe(false);
  });

  it("with a segment: the requirement failed in that segment, or named without one (a constraint)", () => {
    const m = mutant({ requirement: "r", segment: 2 });
    expect(kills(grade({ g1: [g1("a", false, { requirement: "r", segment: 2 })] }), m)).toBe(true);
    expect(kills(grade({ g1: [g1("a", false, { requirement: "r", segment: 1 })] }), m)).toBe(false);
    expect(kills(grade({ constraints: [constraint("c", true, { requirement: "r", segment: 1 })] }), m)).toBe(
      true,
    );
  });

  it("also by one of the mutant's other names (a card field holding the requirement)", () => {
    const m = mutant({ requirement: "r", names: ["answer:berth"] });
    expect(kills(grade({ g2: [field("berth", false)] }), m)).toBe(true);
    expect(kills(grade({ g2: [field("status", false)] }), m)).toBe(false);
    expect(kills(grade({ g2: [field("status", false)] }), mutant({ requirement: "r" }))).toBe(false);
  });
});
