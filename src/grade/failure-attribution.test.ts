import { describe, expect, it } from "vitest";
import { fieldFromJobRead, jobReadEvents } from "../../test/support/job-read.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { gradeTrial } from "./grade-trial.js";

// Class 6 of issue 20: a card problem is a delivery failure, not a labour one.

const grader: GraderSpec = {
  answer: [
    { field: "status", comparator: "string", expected: "queued", explain: "" },
    { field: "eta", comparator: "numeric", expected: 4, explain: "" },
  ],
  g1: [fieldFromJobRead("status"), fieldFromJobRead("eta")],
  constraints: [],
  checkpoints: [],
};

const grade = (read: boolean, finalMessage: string) =>
  gradeTrial({
    grader,
    trialSeed: "s",
    events: jobReadEvents(read ? { status: "queued", eta: 4 } : undefined),
    finalMessage,
  });

const CARD = '```json\n{"status": "queued", "eta": 4}\n```';

describe("failure attribution", () => {
  it("the work done and the card unreadable (a trailing comma, an explanatory json block after it): a delivery failure", () => {
    const broken = '```json\n{"status": "queued", "eta": 4,}\n```';
    const g = grade(true, `${broken}\nThe API answered:\n\`\`\`json\n["queued", 4]\n\`\`\``);
    expect(g.card_found).toBe(false);
    expect([g.g1_passed, g.g2_passed, g.passed]).toEqual([true, false, false]);
    expect(g.g1.every((r) => r.not_evaluated === true && !r.passed)).toBe(true);
    expect(g.failure_reason).toMatch(/failed: G2 answer; first failure: no readable answer card/);
    expect(g.predicates_total).toBe(2);
  });

  it("the work done and the card followed by an explanatory json block: the card is graded, a pass", () => {
    const g = grade(true, `${CARD}\nThe API answered:\n\`\`\`json\n["queued", 4]\n\`\`\``);
    expect([g.card_found, g.g1_passed, g.g2_passed, g.passed]).toEqual([true, true, true, true]);
  });

  it("the work done and a card without one field: that predicate is not evaluated, the other passes", () => {
    const g = grade(true, '```json\n{"status": "queued"}\n```');
    expect([g.g1_passed, g.g2_passed]).toEqual([true, false]);
    expect(g.g1.map((r) => [r.id, r.passed, r.not_evaluated ?? false])).toEqual([
      ["status_from_read", true, false],
      ["eta_from_read", false, true],
    ]);
  });

  it("no work and no card: the labour part fails as labour (both groups)", () => {
    const g = grade(false, "I could not finish.");
    expect([g.g1_passed, g.g2_passed]).toEqual([false, false]);
    expect(g.g1.some((r) => r.not_evaluated)).toBe(false);
  });

  it("a card with a value the API never returned still fails G1's provenance", () => {
    const g = grade(true, '```json\n{"status": "done", "eta": 4}\n```');
    expect([g.g1_passed, g.g2_passed]).toEqual([false, false]);
  });
});
