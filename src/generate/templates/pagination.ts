import type { AnswerField, G1Predicate, Requirement } from "../../bank/task-schema.js";
import type { SymRecord } from "../build-world.js";
import { GoldenBuilder, readFromListing } from "../golden-builder.js";
import { flowToListingAnswer, re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { cap, fieldList } from "../ticket-grammar.js";
import {
  canaries,
  canaryFromRead,
  field,
  forbidDecoys,
  listedIdUsed,
  reportRequirement,
  stayCanonicalRequirement,
  subtask,
} from "./common.js";

/**
 * Pagination: questions only the whole collection answers. The target sits wherever the listing
 * puts it (beyond the first page once the world pages its lists), so reading one page or guessing
 * does not pass. easy: the extreme of one numeric field; medium: the extreme within one category;
 * hard: the top two within one category.
 */
function scan(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `pagination.scan-${difficulty}`,
    axis: "pagination",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state } = ctx;
      const a = built.template.asset;
      const [c1, c2] = canaries(a);
      const { q, topOf } = pickQuestion(ctx, difficulty);
      const size = difficulty === "hard" ? 2 : 1;
      state.asked.add(`${q.cat}/${q.dir}`);
      const top = topOf(q).slice(0, size);
      for (const r of top) state.markUsed(r);
      const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
      const indexes = top.map((r) => state.assets.indexOf(r));
      const picks: Record<string, [number, string]> = Object.fromEntries(
        indexes.map((index, i) => [`id${i}`, [index, a.idField] as [number, string]]),
      );
      const second = top[1];
      // The runner-up's value is read off the listing row the walk already shows.
      if (second) picks.runner = [indexes[1] as number, c1.name];
      readFromListing(gb, built.listPages(indexes, true), picks);
      const first = top[0] as SymRecord;
      const firstId = state.assetId(first);
      gb.call("GET", built.routes.asset(gb.ref("id0")), { c1: c1.name, c2: c2.name });
      // Ids are not asked for: a chain's ticket may name the winner elsewhere; its canaries it cannot.
      const answerFields: Record<string, string> = { [c1.name]: "c1", [c2.name]: "c2" };
      const what = `the ${a.noun} with the ${q.dir} ${a.numberField.name}${q.cat ? ` among ${q.cat}` : ""}`;
      const answer: AnswerField[] = [
        field(c1.name, first[c1.name] ?? null, `Live ${c1.name} of ${what}.`),
        field(c2.name, first[c2.name] ?? null, `Live ${c2.name} of ${what}.`),
      ];
      // Every record in the question's scope must have been shown: the walk read to its end.
      const scoped = state.assets.filter((r) => q.cat === "" || r[a.enumField.name] === q.cat);
      const g1: G1Predicate[] = [
        {
          kind: "covered",
          id: "listing_read_to_end",
          explain: `Every ${a.noun} ${q.cat ? `whose ${a.enumField.name} is ${q.cat}` : "of the collection"} must have been shown by a page of the listing (read through to its end).`,
          url_patterns: [`^${re(built.routes.listAssets)}(\\?.*)?$`],
          body_key: `${a.plural}.${a.idField}`,
          ids: scoped.map((r) => state.assetId(r)),
        },
        listedIdUsed(
          built,
          "winner_id_from_listing",
          firstId,
          "The winner's id must come from the listing and be used to read it.",
        ),
        canaryFromRead(
          `${c1.name}_from_read`,
          built.routes.asset(firstId),
          c1,
          "The value must come from the canonical read.",
        ),
      ];
      const runnerField = `runner_up_${c1.name}`;
      if (second) {
        answerFields[runnerField] = "runner";
        answer.push(field(runnerField, second[c1.name] ?? null, `${c1.name} of the second in the ranking.`));
        // The ticket asks the runner-up's value, not its live read: any page of the canonical
        // listing that shows its row is a source (the walk that ranks it reads that page).
        g1.push(
          flowToListingAnswer(
            "runner_up_from_listing",
            built.routes.listAssets,
            200,
            `${a.plural}.${c1.name}`,
            runnerField,
            "The runner-up's value must come from the canonical listing.",
          ),
        );
      }
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const scope = q.cat
        ? `among the ${a.plural} whose \`${a.enumField.name}\` is \`${q.cat}\``
        : `across all ${a.plural}`;
      const constraints = forbidDecoys(ctx);
      const { story, requirements } = scanTicket(ctx, difficulty, q, scope, runnerField, fields, constraints);
      return subtask(ctx, this.id, {
        story,
        requirements,
        brief: requirements,
        golden,
        builder: gb,
        answer,
        g1,
        constraints,
        probes: [],
      });
    },
  };
}

/** A scan question: a category ("" for the whole collection) and a direction. */
interface ScanQuestion {
  cat: string;
  dir: string;
}

/**
 * The question a scan position asks (a category and direction no earlier position asked, whose
 * answer is unique), and the ranking it asks about.
 */
function pickQuestion(
  ctx: TemplateContext,
  difficulty: "easy" | "medium" | "hard",
): { q: ScanQuestion; topOf: (q: ScanQuestion) => SymRecord[] } {
  const { built, state } = ctx;
  const a = built.template.asset;
  const num = (r: SymRecord) => Number(r[a.numberField.name]);
  // Pick a question (category, direction) no earlier position asked, whose answer is unique.
  const questions = a.enumField.values
    .flatMap((cat) => (["highest", "lowest"] as const).map((dir) => ({ cat, dir })))
    .concat(
      difficulty === "easy"
        ? [
            { cat: "", dir: "highest" },
            { cat: "", dir: "lowest" },
          ]
        : [],
    );
  const topOf = (q: { cat: string; dir: string }) =>
    state.assets
      .filter((r) => q.cat === "" || r[a.enumField.name] === q.cat)
      .sort((x, y) => (q.dir === "highest" ? num(y) - num(x) : num(x) - num(y)));
  const usable = ctx.rng.shuffle(questions).filter((q) => {
    if (state.asked.has(`${q.cat}/${q.dir}`)) return false;
    const sorted = topOf(q).map(num);
    const need = difficulty === "hard" ? 3 : 2;
    return (
      sorted.length >= need && sorted[0] !== sorted[1] && (difficulty !== "hard" || sorted[1] !== sorted[2])
    );
  });
  // Prefer questions whose answers no earlier position named (a chain's ticket holds them all),
  // and the whole-collection question for the easy level.
  const size = difficulty === "hard" ? 2 : 1;
  const fresh = (q: { cat: string; dir: string }) =>
    topOf(q)
      .slice(0, size)
      .every((r) => !state.isUsed(r));
  const kind = (q: { cat: string }) => (difficulty === "easy" ? q.cat === "" : q.cat !== "");
  // Never a winner whose values sit in a stored variable: a later solo workspace would hold the answer.
  const clean = (u: { cat: string; dir: string }) =>
    topOf(u)
      .slice(0, size)
      .every((r) => !state.stored.has(r));
  // Not an answer the first page at the largest page size already holds: one page must not pass.
  // Freshness ranks above depth: a chain holding two positions with one winner lets either
  // position's read answer the other, so neither read is load-bearing (the triad's sabotage).
  const cap = built.template.pagination.maxPageSize;
  const deep = (u: { cat: string; dir: string }) =>
    topOf(u)
      .slice(0, size)
      .some((r) => state.assets.indexOf(r) >= cap);
  const q =
    usable.find((u) => deep(u) && clean(u) && kind(u) && fresh(u)) ??
    usable.find((u) => deep(u) && clean(u) && fresh(u)) ??
    usable.find((u) => clean(u) && kind(u) && fresh(u)) ??
    usable.find((u) => clean(u) && fresh(u)) ??
    usable.find((u) => deep(u) && clean(u)) ??
    usable.find((u) => clean(u) && kind(u)) ??
    usable.find((u) => clean(u)) ??
    usable.find((u) => kind(u) && fresh(u)) ??
    usable.find((u) => fresh(u)) ??
    usable.find((u) => kind(u)) ??
    usable[0];
  if (!q) throw new Error(`world ${built.world.id}: no unique pagination question left`);
  return { q, topOf };
}

/**
 * The failure-first ticket of a scan position: the story of the partial read, and the
 * requirements (the whole collection walked to the winner, its live values, the canonical routes,
 * the card).
 */
function scanTicket(
  ctx: TemplateContext,
  difficulty: "easy" | "medium" | "hard",
  q: ScanQuestion,
  scope: string,
  runnerField: string,
  fields: string[],
  constraints: Parameters<typeof stayCanonicalRequirement>[1],
): { story: string[]; requirements: Requirement[] } {
  const { built, grammar: g } = ctx;
  const a = built.template.asset;
  const [c1, c2] = canaries(a);
  const story = [
    g.opener(),
    g.pick([
      `${cap(g.system())} shows just the first screen of \`GET ${built.routes.listAssets}\`, so the ${q.dir} \`${a.numberField.name}\` ${scope} is not what the dashboard says.`,
      `The report meant to name the ${a.noun} with the ${q.dir} \`${a.numberField.name}\` ${scope} looked at part of \`GET ${built.routes.listAssets}\` and stopped.`,
      `Our weekly check ("${q.dir} \`${a.numberField.name}\` ${scope}") stopped after the first batch of \`GET ${built.routes.listAssets}\` and named the wrong ${a.noun}.`,
    ]),
    ...(difficulty === "hard" ? [] : [pagingHint(built)]),
  ];
  const requirements: Requirement[] = [
    {
      kind: "value_flow",
      id: "whole_collection",
      sentence: g.pick([
        "Go through the whole collection, not just the start of it.",
        "Look at every record the listing can give you.",
        "Count everything the API holds, however it is split up.",
      ]),
      brief: `Find the ${a.noun} with the ${q.dir} \`${a.numberField.name}\` ${scope} over the whole listing.`,
      predicates: ["listing_read_to_end", "winner_id_from_listing"],
    },
    {
      kind: "value_flow",
      id: "winner_read_live",
      sentence:
        difficulty === "hard"
          ? `Give the winner's live \`${c1.name}\` and \`${c2.name}\`, and the runner-up's ${c1.name} as \`${runnerField}\`.`
          : `Give that ${a.noun}'s live \`${c1.name}\` and \`${c2.name}\`.`,
      brief: "Read its live values from its own record.",
      predicates: [`${c1.name}_from_read`],
    },
    stayCanonicalRequirement(g, constraints),
    {
      ...reportRequirement(g, fields),
      brief: `Report ${fieldList(fields)}${difficulty === "hard" ? " (the winner's two values, then the runner-up's)" : ""}.`,
    },
  ];
  return { story, requirements };
}

/**
 * How the listing pages, spelled out for the easy and medium levels (the hard level leaves it to the
 * spec and the pages themselves): the parameters, the largest page, and the values a walk sends.
 */
function pagingHint(built: TemplateContext["built"]): string {
  const { style, maxPageSize: cap } = built.template.pagination;
  const pages = Math.ceil(built.template.collectionSize / cap);
  const steps = Array.from({ length: pages }, (_, k) => k);
  switch (style) {
    case "cursor":
      return `It pages by \`limit\` (pages of up to ${cap}) and the \`cursor\` each page returns as \`next_cursor\`.`;
    case "offset":
      return `It pages by \`offset\` and \`limit\` (pages of up to ${cap}): offsets ${steps.map((k) => k * cap).join(", ")}.`;
    default:
      return `It pages by \`page\` and \`per_page\` (pages of up to ${cap}): pages ${steps.map((k) => k + 1).join(", ")}.`;
  }
}

export const PAGINATION_TEMPLATES: readonly SubtaskTemplate[] = [scan("easy"), scan("medium"), scan("hard")];
