import type { BankContent } from "../bank/bank.js";
import { Rng } from "../bank/rng.js";
import type { Subtask, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { type BuiltWorld, buildWorld } from "./build-world.js";
import { composeChain, composeSolo } from "./compose.js";
import { requirementFindings } from "./requirements.js";
import { segmentHints } from "./segment-hints.js";
import type { GenSubtask } from "./story-state.js";
import { buildStoryline, type Redraw, type Storyline, type StorylineOptions } from "./storyline.js";
import { measuredDifficulty, taskFeatures } from "./task-features.js";
import { chainCanonicalSentence, DECOY_CONSTRAINT_IDS } from "./templates/common.js";
import { GOLDEN_BUDGET_SHARE, GOLDEN_TOOL_CALL_BUDGET, overBudget } from "./tool-budget.js";
import { worldLayout } from "./world-layout.js";
import type { WorldTemplate } from "./world-template.js";
import { withVersioning, worldVersioning } from "./world-versioning.js";
import { WORLD_TEMPLATES } from "./worlds/index.js";

export const GENERATOR_VERSION = "0.2.0";

/** A task labelled by the published rule over its measured features, not its template's say-so. */
function measured(task: Task, world: World): Task {
  return { ...task, difficulty: measuredDifficulty(taskFeatures(task, world)) };
}
export const DEFAULT_SEED = "apiflow-1";

/** One world's share of the bank: storyline length and the longest chain built over it. */
export interface WorldShape {
  positions: number;
  maxChain: number;
}

/**
 * The default shape, the size and chain-length histogram of the published 1.0 bank: 13 worlds,
 * 241 solo subtasks and 226 chains, 13 at each length 2-5, 12 at each 6-14 and 11 at each 15-20.
 * Eleven worlds run 20 positions with chains 1to2..1to20 (209 chains); one runs 14 positions with
 * chains up to 1to14 (13); one runs 7 positions, every axis once, with chains up to 1to5 (4): its
 * last two positions are solo-only.
 */
export const DEFAULT_SHAPE: readonly WorldShape[] = [
  ...Array.from({ length: 11 }, () => ({ positions: 20, maxChain: 20 })),
  { positions: 14, maxChain: 14 },
  { positions: 7, maxChain: 5 },
];

export interface GenerateOptions {
  seed?: string;
  /** How many world templates to use (default 13, at most the number of templates). */
  worlds?: number;
  /** Positions per world; when set, every world gets this many and chains 1to2..1toP. */
  positions?: number;
  /** Most tool calls any golden may need (default `GOLDEN_TOOL_CALL_BUDGET`, 80% of the default limit). */
  toolCallBudget?: number;
  /** Sees each world's built form and storyline (tests replay the broken calls tickets quote). */
  inspect?: (built: BuiltWorld, story: Storyline) => void;
  /** Positions to re-draw, by world id (`generateCertifiedBank` sets these for failing subtasks). */
  redraws?: ReadonlyMap<string, ReadonlyMap<number, Redraw>>;
  /** Told of each position re-drawn because its requirements cannot be graded (see `drawHeldStoryline`). */
  onRedraw?: (redraw: {
    world: string;
    position: number;
    attempt: number;
    from: string;
    reason: string;
  }) => void;
  /** The subtask templates to draw from (default `TEMPLATES`; tests inject broken ones). */
  templates?: StorylineOptions["templates"];
}

export type GenerateResult =
  | { success: true; data: BankContent }
  | { success: false; error: { code: string; message: string } };

/**
 * Every chain is graded `full`: its ticket demands every segment's work and card fields, and a
 * `selective` grader (final segment plus consumed ones) would leave the rest of what it demands
 * ungraded — a card skipping the ungraded segments would pass (issue 20). The ticket cannot ask
 * for less instead: the ungraded segments' writes shape the state (minted ids count every create)
 * the graded ones are checked against. The seed's draw is kept, so the rest of the bank is drawn
 * from the same stream as before.
 */
function chainMode(_subs: readonly Subtask[], rng: Rng): "full" {
  rng.chance(0.5);
  return "full";
}

/**
 * A chain `1toN` of a generated storyline: its introduction is story and the decoy constraint's
 * sentence; each step is its subtask's brief, whose story parts join the chain's story.
 */
function chainOf(
  template: WorldTemplate,
  subtasks: readonly GenSubtask[],
  n: number,
  workspace: Task["workspace"],
  options: { mode: "selective" | "full"; introStory: string },
): Task {
  const segments = subtasks.slice(0, n);
  const canonical = chainCanonicalSentence(template);
  // The introduction states the decoy constraint; when no segment's requirement does (segments
  // with their own constraints), the chain states it as a requirement of its own.
  const stated = segments.some((s) => s.requirements?.some((r) => r.brief === canonical));
  const decoys = [...new Set(segments.flatMap((s) => s.grader.constraints.map((c) => c.id)))].filter((id) =>
    DECOY_CONSTRAINT_IDS.includes(id),
  );
  return composeChain(template.id, subtasks, n, workspace, {
    mode: options.mode,
    intro: `${options.introStory} ${canonical}`,
    steps: subtasks.map((s) => s.brief),
    story: [options.introStory, ...segments.flatMap((s) => s.briefStory ?? [])].filter((p) => p.length > 0),
    ...(stated || decoys.length === 0
      ? {}
      : {
          requirements: [
            { kind: "stay_canonical", id: "stay_canonical", sentence: canonical, predicates: decoys },
          ],
        }),
  });
}

/**
 * Generate a bank forward from one seed: build each world, build its storyline position by
 * position, then compose solo tasks (position k with the state 1..k-1 left) and chains `1toN`.
 *
 * @example const r = generateBank({ seed: "private-7" }); if (r.success) writeBank("bank", r.data);
 */
/** Re-draws a position whose requirements cannot be graded gets before generation gives up. */
export const UNHELD_REDRAW_ATTEMPTS = 3;

/**
 * A world's storyline whose every position's requirements can be graded (`requirementFindings`
 * finds nothing in its solo task): a position that cannot (a sentence no predicate holds, a
 * requirement without a predicate, an id by creation order…) is re-drawn — another template of its
 * axis, from a stream salted with world, position and attempt — and the world rebuilt forward, up
 * to `UNHELD_REDRAW_ATTEMPTS` times per position; then generation stops with `requirements_unheld`.
 * Re-draws the caller asks for (`options.redraws`, a failed certification) are kept.
 */
function drawHeldStoryline(
  seed: string,
  template: WorldTemplate,
  layout: Parameters<typeof buildWorld>[2],
  positions: number,
  worldIndex: number,
  options: GenerateOptions,
):
  | { built: BuiltWorld; storyRng: Rng; story: Storyline; solos: Task[] }
  | { error: { code: string; message: string } } {
  const own = new Map<number, Redraw & { attempt: number }>();
  for (;;) {
    const built = buildWorld(template, Rng.derive(seed, `world:${template.id}`), layout);
    const storyRng = Rng.derive(seed, `story:${template.id}`);
    const redraws = new Map<number, Redraw>(options.redraws?.get(template.id) ?? []);
    for (const [k, r] of own) {
      const given = redraws.get(k);
      redraws.set(k, { rng: r.rng, exclude: new Set([...(given?.exclude ?? []), ...r.exclude]) });
    }
    const story = buildStoryline(built, positions, worldIndex, storyRng, {
      dealOffset: (axis, level) => Rng.derive(seed, `deal:${axis}:${level}`).int(0, 59),
      ...(redraws.size > 0 ? { redraws } : {}),
      ...(options.templates ? { templates: options.templates } : {}),
    });
    const solos = story.subtasks.map((_, j) =>
      composeSolo(template.id, story.subtasks, j + 1, story.workspaces[j] as Task["workspace"]),
    );
    const k = solos.findIndex((t) => requirementFindings(t).length > 0) + 1;
    if (k === 0) return { built, storyRng, story, solos };
    const task = solos[k - 1] as Task;
    const findings = requirementFindings(task);
    const previous = own.get(k);
    const attempt = (previous?.attempt ?? 0) + 1;
    const failed = story.subtasks[k - 1]?.template as string;
    if (attempt > UNHELD_REDRAW_ATTEMPTS || previous?.exclude.has(failed))
      return {
        error: {
          code: "requirements_unheld",
          message: `${task.id}: ${findings.slice(0, 3).join("; ")}${findings.length > 3 ? ` (and ${findings.length - 3} more)` : ""} (after ${attempt - 1} re-draw(s) of position ${k})`,
        },
      };
    options.onRedraw?.({ world: template.id, position: k, attempt, from: failed, reason: findings[0] ?? "" });
    own.set(k, {
      attempt,
      exclude: new Set([...(previous?.exclude ?? []), failed]),
      rng: Rng.derive(seed, `unheld:${template.id}:${k}:${attempt}`),
    });
  }
}

export function generateBank(options: GenerateOptions = {}): GenerateResult {
  const seed = options.seed ?? DEFAULT_SEED;
  const worldCount = options.worlds ?? DEFAULT_SHAPE.length;
  if (!Number.isInteger(worldCount) || worldCount < 1 || worldCount > WORLD_TEMPLATES.length) {
    return {
      success: false,
      error: {
        code: "worlds_out_of_range",
        message: `--worlds must be an integer from 1 to ${WORLD_TEMPLATES.length}`,
      },
    };
  }
  if (
    options.positions !== undefined &&
    (!Number.isInteger(options.positions) || options.positions < 1 || options.positions > 20)
  ) {
    return {
      success: false,
      error: { code: "positions_out_of_range", message: "--positions must be an integer from 1 to 20" },
    };
  }
  const worlds: BankContent["worlds"] = [];
  const tasks: Task[] = [];
  const layout = worldLayout(seed, WORLD_TEMPLATES.length);
  for (let i = 0; i < worldCount; i++) {
    const template = WORLD_TEMPLATES[i];
    if (!template) break;
    const shape: WorldShape =
      options.positions !== undefined
        ? { positions: options.positions, maxChain: options.positions }
        : (DEFAULT_SHAPE[i] ?? { positions: 20, maxChain: 20 });
    const drawn = drawHeldStoryline(seed, template, layout[i], shape.positions, i, options);
    if ("error" in drawn) return { success: false, error: drawn.error };
    const { built, storyRng, story, solos } = drawn;
    options.inspect?.(built, story);
    worlds.push(built.world);
    const measuredSolos = solos.map((solo) => measured(solo, built.world));
    tasks.push(...measuredSolos);
    // The introduction's story says how the jobs hang together; its demand is the decoy constraint
    // every segment states (the brief of its stay_canonical requirement).
    const introStory = (n: number) =>
      storyRng.pick([
        `${built.world.title}: hand-over for tonight, ${n} jobs; later ones build on what earlier ones found, created or stored.`,
        `A batch of ${n} open tickets for ${built.world.title}, oldest first: several depend on values from earlier steps.`,
        `${n} things to sort out on ${built.world.title} today, listed in sequence; later steps rely on what earlier ones find.`,
        `Shift queue for ${built.world.title} (${n} items), one after the other in the same session on the same world.`,
      ]);
    for (let n = 2; n <= shape.maxChain; n++) {
      const chain = measured(
        chainOf(template, story.subtasks, n, story.workspaces[0] as Task["workspace"], {
          mode: chainMode(story.subtasks.slice(0, n), storyRng),
          introStory: introStory(n),
        }),
        built.world,
      );
      // Each segment keeps its own solo task's error hints (see `taskHintPlan`).
      tasks.push({ ...chain, segment_hints: segmentHints(chain, measuredSolos, built.world) });
    }
  }
  // The versioning style each world was dealt, applied once its storyline is drawn (issue 16).
  for (const [i, world] of worlds.entries()) {
    const style = layout[i]?.versioning ?? "path";
    const template = WORLD_TEMPLATES[i];
    if (style === "path" || !template) continue;
    const own = tasks.flatMap((t, j) => (t.world === world.id ? [j] : []));
    const v = withVersioning(
      world,
      own.map((j) => tasks[j] as Task),
      worldVersioning(world, template.base, style),
    );
    worlds[i] = v.world;
    for (const [n, j] of own.entries()) tasks[j] = v.tasks[n] as Task;
  }
  // Every golden must leave an agent room under the default tool-call limit.
  const budget = options.toolCallBudget ?? GOLDEN_TOOL_CALL_BUDGET;
  const over = overBudget(tasks, budget);
  if (over.length > 0) {
    return {
      success: false,
      error: {
        code: "golden_over_budget",
        message: `${over.length} golden solution(s) need more than ${budget} tool calls (the default budget is ${Math.round(GOLDEN_BUDGET_SHARE * 100)}% of the default limit); first: ${over[0]?.id} needs ${over[0]?.calls}`,
      },
    };
  }
  // Every requirement held by a predicate; no id by creation order, no write checked by its keys.
  for (const task of tasks) {
    const findings = requirementFindings(task);
    if (findings.length > 0)
      return {
        success: false,
        error: {
          code: "requirements_unheld",
          message: `${task.id}: ${findings.slice(0, 3).join("; ")}${findings.length > 3 ? ` (and ${findings.length - 3} more)` : ""}`,
        },
      };
  }
  return {
    success: true,
    data: {
      name: seed === DEFAULT_SEED ? "apiflow-default" : "apiflow-private",
      generator_version: GENERATOR_VERSION,
      seed,
      worlds,
      tasks,
    },
  };
}
