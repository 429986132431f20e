import type { Rng } from "../bank/rng.js";
import type { Axis, Task } from "../bank/task-schema.js";
import { seedVault } from "../world/credential.js";
import type { BuiltWorld } from "./build-world.js";
import type { TokenLedger } from "./golden-builder.js";
import { AXES, type Difficulty, type GenSubtask, StoryState } from "./story-state.js";
import type { SubtaskTemplate } from "./subtask-template.js";
import { AUTH_TEMPLATES } from "./templates/auth.js";
import { DISCOVERY_TEMPLATES } from "./templates/discovery.js";
import { ERROR_RECOVERY_TEMPLATES } from "./templates/error-recovery.js";
import { MULTISTEP_TEMPLATES } from "./templates/multistep.js";
import { PAGINATION_TEMPLATES } from "./templates/pagination.js";
import { SCHEMA_REPAIR_TEMPLATES } from "./templates/schema-repair.js";
import { STATEFULNESS_TEMPLATES } from "./templates/statefulness.js";
import { TicketGrammar } from "./ticket-grammar.js";

/** Every subtask template, by axis. */
export const TEMPLATES: Record<Axis, readonly SubtaskTemplate[]> = {
  auth: AUTH_TEMPLATES,
  discovery: DISCOVERY_TEMPLATES,
  schema_repair: SCHEMA_REPAIR_TEMPLATES,
  multistep: MULTISTEP_TEMPLATES,
  error_recovery: ERROR_RECOVERY_TEMPLATES,
  pagination: PAGINATION_TEMPLATES,
  statefulness: STATEFULNESS_TEMPLATES,
};

const LEVELS: readonly Difficulty[] = ["easy", "medium", "hard"];

/**
 * The (axis, difficulty) slots of one world's storyline. The multiset depends only on the length
 * and the world's index, never on the seed, so every seed gives the same counts by axis and
 * difficulty; the seed decides the order.
 *
 * @example storylineSlots(20, 0).length // 20
 */
export function storylineSlots(
  positions: number,
  worldIndex: number,
): Array<{ axis: Axis; difficulty: Difficulty }> {
  const rotated = AXES.map((_, i) => AXES[(i + worldIndex) % AXES.length] as Axis);
  const slots: Array<{ axis: Axis; difficulty: Difficulty }> = [];
  rotated.forEach((axis, i) => {
    const n = Math.floor(positions / AXES.length) + (i < positions % AXES.length ? 1 : 0);
    for (let j = 0; j < n; j++)
      slots.push({ axis, difficulty: LEVELS[(j + worldIndex + i) % 3] as Difficulty });
  });
  return slots;
}

/** One world's storyline and, per position, the workspace a solo task starts from. */
export interface Storyline {
  subtasks: GenSubtask[];
  /** `workspaces[k-1]`: the vault plus every variable positions 1..k-1 left behind. */
  workspaces: Task["workspace"][];
}

/**
 * A position to draw again because its subtask failed certification: another template of the
 * slot's axis (the slot's difficulty when one is left, else any), none of `exclude`, picked by
 * `rng` — a stream salted with the position and attempt, so the re-draw is as deterministic as the
 * first draw and earlier positions are built exactly as before.
 */
export interface Redraw {
  exclude: ReadonlySet<string>;
  rng: Rng;
}

/** What `buildStoryline` may be told beyond the shape: positions to re-draw, templates to draw from. */
export interface StorylineOptions {
  /** By position (1-based). */
  redraws?: ReadonlyMap<number, Redraw>;
  /** Default `TEMPLATES` (tests inject a deliberately broken template here). */
  templates?: Readonly<Record<Axis, readonly SubtaskTemplate[]>>;
  /**
   * Where each (axis, difficulty)'s deal of templates starts (default 0): one offset per bank, so
   * the seed moves which world gets which template while the bank's count of each stays put.
   */
  dealOffset?: (axis: Axis, difficulty: Difficulty) => number;
}

/**
 * The template for the `nth` slot of (axis, difficulty) in world `worldIndex`: dealt round-robin
 * over the worlds from `offset`, not drawn. A draw let the seed change how many positions each
 * template fills, and templates of one nominal level measure at different levels (an open-hard
 * job measures easy, a partial write hard), so another seed's hard count drifted by a fifth
 * (issue 16); dealt, every seed fills each template about equally often and only the order, the
 * worlds and the values move.
 *
 * @example dealtTemplate(candidates, 3, 0, 1) // candidates[4 % candidates.length]
 */
export function dealtTemplate<T>(
  candidates: readonly T[],
  worldIndex: number,
  nth: number,
  offset: number,
): T {
  const t = candidates[(offset + worldIndex + nth) % candidates.length];
  if (t === undefined) throw new Error("dealtTemplate: no candidates");
  return t;
}

/**
 * Forward construction: for each position draw the next slot, instantiate its template against
 * the state the earlier goldens left, and let the template apply its golden's effects.
 *
 * @example const story = buildStoryline(built, 20, 0, Rng.derive(seed, "story:fleet"));
 */
export function buildStoryline(
  built: BuiltWorld,
  positions: number,
  worldIndex: number,
  rng: Rng,
  options: StorylineOptions = {},
): Storyline {
  const templates = options.templates ?? TEMPLATES;
  const state = new StoryState(built);
  const grammar = new TicketGrammar(rng, built.template);
  const slots = rng.shuffle(storylineSlots(positions, worldIndex));
  // Coupling needs a value planted before it is consumed: move the first planting slot ahead of
  // the first consuming one (a swap, so the counts stay what the shape says).
  // (A ledger world's easy statefulness reads a derived balance, a workflow world's a review
  // reference; neither plants a work record.)
  const easyPlants = built.world.archetype !== "ledger" && built.world.archetype !== "workflow";
  const plants = (s: { axis: Axis; difficulty: Difficulty }) =>
    s.axis === "statefulness" && s.difficulty !== "medium" && (easyPlants || s.difficulty !== "easy");
  const consumes = (s: { axis: Axis; difficulty: Difficulty }) =>
    (s.axis === "statefulness" && s.difficulty === "medium") ||
    (s.axis === "error_recovery" && s.difficulty === "hard");
  const firstConsumer = slots.findIndex(consumes);
  const firstPlanter = slots.findIndex(plants);
  if (firstConsumer >= 0 && firstPlanter > firstConsumer) {
    [slots[firstConsumer], slots[firstPlanter]] = [
      slots[firstPlanter] as (typeof slots)[number],
      slots[firstConsumer] as (typeof slots)[number],
    ];
  }
  const stale = built.staleToken;
  const subtasks: GenSubtask[] = [];
  const workspaces: Task["workspace"][] = [];
  const dealt = new Map<string, number>();
  slots.forEach((slot, i) => {
    workspaces.push({
      vault: seedVault(built.world.auth, stale),
      local: { ...state.variables.local },
      global: { ...state.variables.global },
    });
    const candidates = templates[slot.axis].filter((t) => t.difficulty === slot.difficulty);
    const key = `${slot.axis}:${slot.difficulty}`;
    const nth = dealt.get(key) ?? 0;
    dealt.set(key, nth + 1);
    let template = dealtTemplate(
      candidates.length > 0 ? candidates : templates[slot.axis],
      worldIndex,
      nth,
      options.dealOffset?.(slot.axis, slot.difficulty) ?? 0,
    );
    const redraw = options.redraws?.get(i + 1);
    if (redraw) template = redrawn(templates[slot.axis], slot.difficulty, redraw) ?? template;
    subtasks.push(
      template.build({
        built,
        state,
        rng,
        grammar,
        position: i + 1,
        difficulty: template.difficulty,
        // Until a slot has coupled, every consuming slot must, so every storyline has a load-bearing
        // dependency (the first consuming slot may be dealt a template that cannot couple).
        coupled: rng.chance(0.85) || !subtasks.some((s) => s.coupling !== "none"),
      }),
    );
  });
  // Chains run every segment in one session: one token shared across segments.
  const ledger: TokenLedger = { callsLeft: 0, now: 0, expiresAt: 0 };
  for (const sub of subtasks) sub.chainGolden = sub.chained?.(ledger) ?? [];
  return { subtasks, workspaces };
}

/** The re-drawn template, or null when every template of the axis is excluded. */
function redrawn(
  axisTemplates: readonly SubtaskTemplate[],
  difficulty: Difficulty,
  redraw: Redraw,
): SubtaskTemplate | null {
  const left = axisTemplates.filter((t) => !redraw.exclude.has(t.id));
  const same = left.filter((t) => t.difficulty === difficulty);
  const pool = same.length > 0 ? same : left;
  return pool.length > 0 ? redraw.rng.pick(pool) : null;
}
