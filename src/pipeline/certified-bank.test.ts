import { describe, expect, it } from "vitest";
import { blankAgentFactory, goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Axis } from "../bank/task-schema.js";
import { certifyBank } from "../certify/certify-bank.js";
import { certificationLines } from "../generate/datasheet.js";
import { generateBank } from "../generate/generate-bank.js";
import { attachRequirements } from "../generate/requirements.js";
import { TEMPLATES } from "../generate/storyline.js";
import type { SubtaskTemplate } from "../generate/subtask-template.js";
import type { AgentFactory } from "../trial/agent.js";
import { generateCertifiedBank } from "./certified-bank.js";

/** A template whose grader expects a value no response carries: its answer key cannot pass. */
function broken(t: SubtaskTemplate): SubtaskTemplate {
  return {
    ...t,
    build(ctx) {
      const sub = t.build(ctx);
      const [first, ...rest] = sub.grader.answer;
      if (!first) throw new Error(`${t.id} has no answer field to break`);
      return {
        ...sub,
        grader: { ...sub.grader, answer: [{ ...first, expected: "not-what-the-api-says" }, ...rest] },
      };
    },
  };
}

function breakingWith(
  edit: (t: SubtaskTemplate) => SubtaskTemplate,
  ids: (t: SubtaskTemplate) => boolean,
): Record<Axis, readonly SubtaskTemplate[]> {
  return Object.fromEntries(
    Object.entries(TEMPLATES).map(([axis, list]) => [axis, list.map((t) => (ids(t) ? edit(t) : t))]),
  ) as unknown as Record<Axis, readonly SubtaskTemplate[]>;
}
const breaking = (ids: (t: SubtaskTemplate) => boolean) => breakingWith(broken, ids);

// One world, seven positions: every axis once, so breaking position 3's template breaks only it.
const SHAPE = { worlds: 1, positions: 7 } as const;
const plainTemplates: string[] = [];
const plain = generateBank({
  ...SHAPE,
  inspect: (_b, story) => plainTemplates.push(...story.subtasks.map((s) => s.template)),
});
if (!plain.success) throw new Error(plain.error.message);
const P = 3;
const target = plainTemplates[P - 1] as string;
const axis = target.split(".")[0] as Axis;
const certify = {
  gates: ["triad", "solvability", "discoverability", "leak", "chain_replay"] as const,
  attempts: 3,
};

describe("generateCertifiedBank (issue 8: regenerate or truncate, never pad)", () => {
  it("the broken template really fails certification where it is drawn", async () => {
    const r = generateBank({ ...SHAPE, templates: breaking((t) => t.id === target) });
    if (!r.success) throw new Error(r.error.message);
    const report = await certifyBank(r.data, { ...certify, gates: ["triad"] });
    expect(report.gates.triad?.failures.map((f) => f.task_id)).toContain(`${r.data.worlds[0]?.id}-sub0${P}`);
  }, 120_000);

  it("re-draws a failing position from the seed, rebuilds the world forward and keeps every task", async () => {
    const run = () =>
      generateCertifiedBank({ ...SHAPE, templates: breaking((t) => t.id === target), certify });
    const r = await run();
    if (!r.success) throw new Error(r.error.message);
    const { content, report, log } = r.data;
    expect(log.regenerated).toHaveLength(1);
    expect(log.regenerated[0]).toMatchObject({ position: P, attempt: 1, from: target });
    expect(log.regenerated[0]?.to.startsWith(`${axis}.`)).toBe(true);
    expect(log.regenerated[0]?.to).not.toBe(target);
    expect(log.regenerated[0]?.reason).toMatch(/^triad\//);
    expect(log.dropped).toEqual([]);
    expect(report.ok).toBe(true);
    expect(content.tasks.map((t) => t.id)).toEqual(plain.data.tasks.map((t) => t.id));
    // Positions before the re-drawn one are built exactly as before; the re-drawn one is not.
    const solo = (tasks: typeof content.tasks, k: number) =>
      tasks.find((t) => t.kind === "solo" && t.positions[0] === k);
    for (let k = 1; k < P; k++) expect(solo(content.tasks, k)).toEqual(solo(plain.data.tasks, k));
    expect(solo(content.tasks, P)?.ticket).not.toBe(solo(plain.data.tasks, P)?.ticket);
    expect(certificationLines(log)[0]).toContain(`position ${P} (attempt 1): ${target} -> `);
    // Deterministic: the same seed gives the same bank, re-draws included.
    const again = await run();
    expect(again.success && again.data.content).toEqual(content);
  }, 300_000);

  it("drops a position that keeps failing and truncates its world's chains to the longest certified prefix", async () => {
    const r = await generateCertifiedBank({
      ...SHAPE,
      templates: breaking((t) => t.axis === axis),
      certify,
      attempts: 2,
    });
    if (!r.success) throw new Error(r.error.message);
    const { content, report, log } = r.data;
    const world = plain.data.worlds[0]?.id as string;
    expect(log.regenerated.map((g) => g.attempt)).toEqual([1, 2]);
    expect(log.dropped.map((d) => d.task)).toContain(`${world}-sub0${P}`);
    expect(log.dropped.find((d) => d.task === `${world}-sub0${P}`)?.reason).toMatch(
      /still failing after 2 re-draw/,
    );
    expect(log.truncated).toEqual([expect.objectContaining({ world, longest: P - 1, was: SHAPE.positions })]);
    const chains = content.tasks.filter((t) => t.kind === "chain").map((t) => t.positions.length);
    expect(chains).toEqual(Array.from({ length: P - 2 }, (_, i) => i + 2));
    // Nothing uncertified is left in: every failing task of the final report was taken out.
    const failing = new Set(Object.values(report.gates).flatMap((g) => g.failures.map((f) => f.task_id)));
    expect(failing.size).toBeGreaterThan(0);
    expect(content.tasks.filter((t) => failing.has(t.id))).toEqual([]);
    expect(content.tasks.filter((t) => t.kind === "solo")).toHaveLength(SHAPE.positions - 1);
  }, 300_000);
});

/** A template whose grader holds only the card: a call check any request meets stands for its labour. */
function cardOnly(t: SubtaskTemplate): SubtaskTemplate {
  return {
    ...t,
    build(ctx) {
      const sub = t.build(ctx);
      const any = {
        kind: "call" as const,
        id: "any_call",
        explain: "",
        url_pattern: ".*",
        body_has_keys: [],
      };
      // Its requirements are the ones derived from that grader (a call, the card's fields), and
      // its ticket and chain step state none of the template's (the sentence check would refuse
      // them, unheld, before any gate ran): its story only.
      const held = attachRequirements([], { g1: [any], answer: sub.grader.answer, constraints: [] });
      const grader = { ...sub.grader, g1: held.g1, answer: held.answer, constraints: held.constraints };
      const story = sub.story ?? [];
      const briefStory = sub.briefStory ?? [];
      return {
        ...sub,
        grader,
        requirements: held.requirements,
        ticket: story.join(" "),
        story,
        brief: briefStory.join(" "),
        briefStory,
      };
    },
  };
}

describe("generateCertifiedBank with issue 15's gates", () => {
  const multistep = plainTemplates.findIndex((id) => id.startsWith("multistep.")) + 1;
  const templates = Object.fromEntries(
    Object.entries(TEMPLATES).map(([a, list]) => [
      a,
      list.map((t) => (t.id === plainTemplates[multistep - 1] ? cardOnly(t) : t)),
    ]),
  ) as unknown as Record<Axis, readonly SubtaskTemplate[]>;
  const gates = ["requirement_mutants"] as const;

  it("re-draws a position whose requirements its mutants cannot show held (the gate is hard)", async () => {
    const hard = await generateCertifiedBank({ ...SHAPE, templates, certify: { gates: [...gates] } });
    if (!hard.success) throw new Error(hard.error.message);
    const redrawn = hard.data.log.regenerated.find((g) => g.position === multistep);
    // A call check any request meets: either a mutant breaking the labour survives it, or (as the
    // mutants now see) no golden step can break "any call" at all; both refuse the grader.
    expect(redrawn?.reason).toMatch(/^requirement_mutants\/(survived|no_mutant):/);
  }, 300_000);
});

/** A story sentence the template adds to its chain step only: the mark the chain-only oracle looks for. */
const CHAIN_MARK = "The night shift flagged this one.";

/** A template whose solo task is unchanged and whose chain step carries `CHAIN_MARK` in its story. */
function markedInChains(t: SubtaskTemplate): SubtaskTemplate {
  return {
    ...t,
    build(ctx) {
      const sub = t.build(ctx);
      return {
        ...sub,
        briefStory: [...(sub.briefStory ?? []), CHAIN_MARK],
        brief: `${sub.brief} ${CHAIN_MARK}`,
      };
    },
  };
}

/** The golden agent, but blank on a chain holding a marked step: its chains fail, its solo task passes. */
const chainOnlyOracle: AgentFactory = {
  name: "golden-but-marked-chains",
  forTask: (task, context) =>
    task.kind === "chain" && (task.story ?? []).some((s) => s.includes(CHAIN_MARK))
      ? blankAgentFactory.forTask(task, context)
      : goldenAgentFactory.forTask(task, context),
};

describe("generateCertifiedBank: a chain that fails while each of its segments passes alone", () => {
  const N = 5;
  const marked = plainTemplates[N - 1] as string;
  const templates = breakingWith(markedInChains, (t) => t.id === marked);
  const gates = { gates: ["solvability"] as const, oracle: chainOnlyOracle, attempts: 3, minPasses: 1 };

  it("the marked template fails in chains only, where it is drawn", async () => {
    const r = generateBank({ ...SHAPE, templates });
    if (!r.success) throw new Error(r.error.message);
    const report = await certifyBank(r.data, gates);
    const failing = report.gates.solvability?.failures.map((f) => f.task_id) ?? [];
    const chains = r.data.tasks.filter((t) => t.kind === "chain");
    expect(failing.sort()).toEqual(
      chains
        .filter((t) => t.positions.length >= N)
        .map((t) => t.id)
        .sort(),
    );
  }, 120_000);

  it("re-draws position N of the shortest failing chain 1toN instead of cutting every chain from N on", async () => {
    const r = await generateCertifiedBank({ ...SHAPE, templates, certify: gates });
    if (!r.success) throw new Error(r.error.message);
    const { content, report, log } = r.data;
    expect(log.regenerated).toHaveLength(1);
    expect(log.regenerated[0]).toMatchObject({ position: N, attempt: 1, from: marked });
    expect(log.regenerated[0]?.to).not.toBe(marked);
    expect(log.regenerated[0]?.reason).toMatch(new RegExp(`-chain-1to0${N}: solvability/`));
    expect(log.truncated).toEqual([]);
    expect(log.dropped).toEqual([]);
    expect(report.ok).toBe(true);
    // The same shape as the plain bank: every solo task and every chain up to the full length.
    expect(content.tasks.map((t) => t.id)).toEqual(plain.data.tasks.map((t) => t.id));
  }, 300_000);
});
