import type { AnswerField, G1Predicate } from "../../bank/task-schema.js";
import type { SymRecord } from "../build-world.js";
import { GoldenBuilder, readFromListing } from "../golden-builder.js";
import { flowToAnswer, flowToListingAnswer } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { sentence } from "../ticket-grammar.js";
import { field, forbidDecoys, subtask } from "./common.js";

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
      const { built, state, grammar: g } = ctx;
      const a = built.template.asset;
      const [c1] = a.canaryFields;
      if (!c1) throw new Error("no canary field");
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
      const usable = ctx.rng.shuffle(questions).filter((q) => {
        if (state.asked.has(`${q.cat}/${q.dir}/${difficulty}`)) return false;
        const pool = state.assets.filter((r) => q.cat === "" || r[a.enumField.name] === q.cat);
        const sorted = pool.map(num).sort((x, y) => (q.dir === "highest" ? y - x : x - y));
        const need = difficulty === "hard" ? 3 : 2;
        return (
          sorted.length >= need &&
          sorted[0] !== sorted[1] &&
          (difficulty !== "hard" || sorted[1] !== sorted[2])
        );
      });
      const q =
        difficulty === "easy"
          ? (usable.find((u) => u.cat === "") ?? usable[0])
          : usable.find((u) => u.cat !== "");
      if (!q) throw new Error(`world ${built.world.id}: no unique pagination question left`);
      state.asked.add(`${q.cat}/${q.dir}/${difficulty}`);
      const pool = state.assets.filter((r) => q.cat === "" || r[a.enumField.name] === q.cat);
      const ranked = [...pool].sort((x, y) => (q.dir === "highest" ? num(y) - num(x) : num(x) - num(y)));
      const top = ranked.slice(0, difficulty === "hard" ? 2 : 1);
      const gb = new GoldenBuilder(built.world, ctx.position).readSpec();
      const indexes = top.map((r) => state.assets.indexOf(r));
      readFromListing(
        gb,
        built.listPages(indexes),
        Object.fromEntries(indexes.map((index, i) => [`id${i}`, [index, a.idField] as [number, string]])),
      );
      const first = top[0] as SymRecord;
      const firstId = state.assetId(first);
      gb.call("GET", built.routes.asset(gb.ref("id0")), { c1: c1.name });
      const answerFields: Record<string, string> = { [a.idField]: "id0", [c1.name]: "c1" };
      const answer: AnswerField[] = [
        field(
          a.idField,
          firstId,
          `The ${a.noun} with the ${q.dir} ${a.numberField.name}${q.cat ? ` among ${q.cat}` : ""}.`,
        ),
        field(c1.name, first[c1.name] ?? null, `Its live ${c1.name}.`),
      ];
      const g1: G1Predicate[] = [
        flowToListingAnswer(
          "id_from_listing",
          built.routes.listAssets,
          200,
          `${a.plural}.${a.idField}`,
          a.idField,
          "The id must come from the listing.",
        ),
        flowToAnswer(
          `${c1.name}_from_read`,
          built.routes.asset(firstId),
          200,
          c1.name,
          c1.name,
          "The value must come from the canonical read.",
        ),
      ];
      const runnerField = `runner_up_${a.idField}`;
      if (difficulty === "hard") {
        const second = top[1] as SymRecord;
        answerFields[runnerField] = "id1";
        answer.push(field(runnerField, state.assetId(second), "The second in the ranking."));
      }
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const scope = q.cat
        ? `among the ${a.plural} whose \`${a.enumField.name}\` is \`${q.cat}\``
        : `across all ${a.plural}`;
      const ticket = sentence(
        g.opener(),
        g.pick([
          `${g.system()} shows only the first screen of \`GET ${built.routes.listAssets}\`, so the ${q.dir} \`${a.numberField.name}\` ${scope} is not what the dashboard says.`,
          `The report that should name the ${a.noun} with the ${q.dir} \`${a.numberField.name}\` ${scope} only looked at part of \`GET ${built.routes.listAssets}\`.`,
          `Our weekly check ("${q.dir} \`${a.numberField.name}\` ${scope}") stopped after the first batch of \`GET ${built.routes.listAssets}\` and named the wrong ${a.noun}.`,
        ]),
        g.pick([
          "Go through the whole collection, not just the start of it.",
          "Look at every record the listing can give you.",
          "Count everything the API holds, however it is split up.",
        ]),
        difficulty === "hard"
          ? `Give the winner as \`${a.idField}\` with its live \`${c1.name}\`, and the runner-up as \`${runnerField}\`.`
          : `Give the ${a.noun} as \`${a.idField}\` and its live \`${c1.name}\`.`,
        g.stayCanonical(),
        g.report(fields),
      );
      return subtask(ctx, this.id, {
        ticket,
        brief: `Find the ${a.noun} with the ${q.dir} \`${a.numberField.name}\` ${scope} over the whole listing and report ${fields.map((f) => `\`${f}\``).join(", ")}${difficulty === "hard" ? " (winner, its value, runner-up)" : ""}.`,
        golden,
        builder: gb,
        answer,
        g1,
        constraints: forbidDecoys(ctx),
        probes: [],
      });
    },
  };
}

export const PAGINATION_TEMPLATES: readonly SubtaskTemplate[] = [scan("easy"), scan("medium"), scan("hard")];
