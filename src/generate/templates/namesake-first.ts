import type { SymRecord } from "../build-world.js";
import type { TemplateContext } from "../subtask-template.js";

/**
 * What a `search` world's search route answers for a name, in its order: the assets whose name
 * contains `name` (any case), ranked by the number field, highest first, ties in record order —
 * as the engine ranks them (the route's `sort`), from the values the storyline has left.
 *
 * @example searchResults(ctx, "Atlas").map((r) => r.name) // ["Atlas 3", "Atlas", "Atlas 2"]
 */
export function searchResults(ctx: TemplateContext, name: string): SymRecord[] {
  const a = ctx.built.template.asset;
  const num = (r: SymRecord) => Number(r[a.numberField.name]);
  return ctx.state.assets
    .filter((r) => String(r[a.nameField]).toLowerCase().includes(name.toLowerCase()))
    .map((r, i) => ({ r, i }))
    .sort((x, y) => num(y.r) - num(x.r) || x.i - y.i)
    .map(({ r }) => r);
}

/**
 * Decoys listed first (issue 16): on a `search` world, an asset no position has named whose
 * search by name ranks a near namesake ahead of it ("Atlas 2" before "Atlas"), claimed; or null
 * when the world has no search route or no such asset is left. An agent that takes the first
 * match reads the namesake.
 *
 * @example namesakeFirst(ctx)?.index // 1 (the target is second; a namesake is first)
 */
export function namesakeFirst(ctx: TemplateContext): { target: SymRecord; index: number } | null {
  const { built, state, rng } = ctx;
  if (built.world.archetype !== "search") return null;
  const a = built.template.asset;
  // Never the first asset of the plain listing either: taking the first record there finds it.
  const ranked = state.assets
    .filter((r, i) => i > 0 && !state.isUsed(r))
    .map((target) => ({ target, index: searchResults(ctx, String(target[a.nameField])).indexOf(target) }))
    .filter((c) => c.index > 0);
  if (ranked.length === 0) return null;
  const pick = rng.pick(ranked);
  state.markUsed(pick.target);
  return pick;
}
