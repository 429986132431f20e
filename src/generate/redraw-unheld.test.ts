import { describe, expect, it } from "vitest";
import type { Axis } from "../bank/task-schema.js";
import { generateBank } from "./generate-bank.js";
import { requirementFindings } from "./requirements.js";
import { TEMPLATES } from "./storyline.js";
import type { SubtaskTemplate } from "./subtask-template.js";

// Issue 15's Done-when: `apiflow generate` re-draws any position whose requirements cannot be
// graded, instead of stopping the whole bank on it.

const DEMAND = "You must also archive every other record of the collection.";

/** A template whose ticket demands something no predicate of its grader holds. */
function unbacked(t: SubtaskTemplate): SubtaskTemplate {
  return {
    ...t,
    build(ctx) {
      const sub = t.build(ctx);
      return { ...sub, ticket: `${sub.ticket} ${DEMAND}` };
    },
  };
}

function replacing(which: (t: SubtaskTemplate) => boolean): Record<Axis, readonly SubtaskTemplate[]> {
  return Object.fromEntries(
    Object.entries(TEMPLATES).map(([axis, list]) => [axis, list.map((t) => (which(t) ? unbacked(t) : t))]),
  ) as unknown as Record<Axis, readonly SubtaskTemplate[]>;
}

// One world, seven positions: every axis once.
const SHAPE = { worlds: 1, positions: 7 } as const;
const drawn: string[] = [];
const plain = generateBank({
  ...SHAPE,
  inspect: (_b, story) => drawn.push(...story.subtasks.map((s) => s.template)),
});
if (!plain.success) throw new Error(plain.error.message);
const P = 4;
const target = drawn[P - 1] as string;

describe("generateBank re-draws a position whose requirements cannot be graded", () => {
  it("the broken template's task is refused by the sentence check (the control)", () => {
    const task = plain.data.tasks.find((t) => t.kind === "solo" && t.positions[0] === P);
    if (!task) throw new Error("no task at the position");
    const broken = { ...task, ticket: `${task.ticket} ${DEMAND}` };
    expect(requirementFindings(broken)).toContain(`"${DEMAND}" states a requirement no predicate holds`);
  });

  it("draws another template of the axis there, says so, and every task of the bank is held", () => {
    const redraws: Array<{ position: number; from: string; reason: string }> = [];
    const templates: string[] = [];
    const r = generateBank({
      ...SHAPE,
      templates: replacing((t) => t.id === target),
      onRedraw: ({ position, from, reason }) => redraws.push({ position, from, reason }),
      inspect: (_b, story) => templates.push(...story.subtasks.map((s) => s.template)),
    });
    if (!r.success) throw new Error(r.error.message);
    expect(redraws).toEqual([
      { position: P, from: target, reason: `"${DEMAND}" states a requirement no predicate holds` },
    ]);
    expect(templates[P - 1]).not.toBe(target);
    expect(templates[P - 1]?.split(".")[0]).toBe(target.split(".")[0]);
    for (const t of r.data.tasks) expect(requirementFindings(t), t.id).toEqual([]);
    expect(r.data.tasks.length).toBe(plain.data.tasks.length);
  });

  it("stops with requirements_unheld when no template of the axis can be graded", () => {
    const axis = target.split(".")[0];
    const r = generateBank({ ...SHAPE, templates: replacing((t) => t.axis === axis) });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.code).toBe("requirements_unheld");
    expect(r.error.message).toContain(DEMAND);
    expect(r.error.message).toMatch(/after \d re-draw\(s\) of position \d/);
  });
});
