import type { AnswerField, G1Predicate } from "../../bank/task-schema.js";
import { GoldenBuilder } from "../golden-builder.js";
import { flowToAnswer, re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { sentence } from "../ticket-grammar.js";
import { field, subtask } from "./common.js";

/**
 * Multistep: values from one response feed the next request. easy: read → create → read back;
 * (medium and hard confirm from the last update's own response, which a read-back would repeat);
 * medium: + move the new record to its next status and confirm it; hard: + link the new record
 * onto the asset and confirm the link from the asset's side.
 */
function workflow(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `multistep.open-${difficulty}`,
    axis: "multistep",
    difficulty,
    build(ctx: TemplateContext) {
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const target = state.claimAsset(ctx.rng);
      const id = state.assetId(target);
      const level = g.pick(w.levelField.values);
      const next = g.pick(w.nextStatuses);
      const [, c2] = a.canaryFields;
      if (!c2) throw new Error("no second canary field");
      const gb = new GoldenBuilder(built.world, ctx.position);
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call(
        "POST",
        built.routes.work,
        { wid: w.idField },
        {
          [a.idField]: id,
          [w.levelField.name]: level,
          [w.copyField]: gb.ref("copy"),
        },
      );
      const wid = state.createWork({
        [a.idField]: id,
        [w.levelField.name]: level,
        [w.copyField]: target[w.copyField] ?? null,
      });
      const record = state.work[state.work.length - 1];
      const workItemRe = `^${re(built.routes.work)}/[^/]+$`;
      const g1: G1Predicate[] = [
        {
          kind: "data_flow",
          id: "new_id_used_next",
          explain: `The id the create minted must be used on the ${w.noun}'s own route.`,
          from_response_url_pattern: `^${re(built.routes.work)}$`,
          from_status: 201,
          from_body_key: w.idField,
          must_be_stored: false,
          used_in_request_url_pattern: workItemRe,
        },
        {
          kind: "data_flow",
          id: "copy_value_carried",
          explain: `The ${w.copyField} must be read from ${id} and carried into the create.`,
          from_response_url_pattern: `^${re(built.routes.asset(id))}$`,
          from_status: 200,
          from_body_key: w.copyField,
          must_be_stored: false,
          used_in_request_url_pattern: `^${re(built.routes.work)}$`,
        },
      ];
      const steps: string[] = [];
      let answerFields: Record<string, string>;
      const answer: AnswerField[] = [];
      if (difficulty !== "easy") {
        // The update's own answer is the confirmation: a read-back after it would not be load-bearing.
        gb.call(
          t.updateMethod,
          built.routes.workItem(gb.ref("wid")),
          difficulty === "medium" ? { wid2: w.idField, copy2: w.copyField } : {},
          { [w.statusField]: next },
        );
        if (record) record[w.statusField] = next;
        steps.push(`move it to \`${next}\``);
        g1.push({
          kind: "call",
          id: "status_moved",
          explain: `The new ${w.noun} must be moved to ${next} on its own route.`,
          method: t.updateMethod,
          url_pattern: workItemRe,
          status: 200,
          body_has_keys: [w.statusField],
        });
      }
      if (difficulty === "easy")
        gb.call("GET", built.routes.workItem(gb.ref("wid")), { wid2: w.idField, copy2: w.copyField });
      if (difficulty === "hard") {
        gb.call(
          t.updateMethod,
          built.routes.asset(id),
          { link: a.linkField.name, c2: c2.name },
          { [a.linkField.name]: gb.ref("wid") },
        );
        target[a.linkField.name] = wid;
        steps.push(`link it on ${id} through \`${a.linkField.name}\``);
        answerFields = { [a.linkField.name]: "link", [c2.name]: "c2" };
        answer.push(
          field(a.linkField.name, wid, `${id}'s ${a.linkField.name} after linking: the new ${w.noun}'s id.`),
          field(c2.name, target[c2.name] ?? null, `${c2.description} of ${id}.`),
        );
        g1.push(
          {
            kind: "data_flow",
            id: "link_written",
            explain: `The new id must be written onto ${id}.`,
            from_response_url_pattern: `^${re(built.routes.work)}$`,
            from_status: 201,
            from_body_key: w.idField,
            must_be_stored: false,
            used_in_request_url_pattern: `^${re(built.routes.asset(id))}$`,
          },
          flowToAnswer(
            "link_read_back",
            built.routes.asset(id),
            200,
            a.linkField.name,
            a.linkField.name,
            `The link must be confirmed by reading ${id}.`,
          ),
        );
      } else {
        answerFields = { [w.idField]: "wid2", [w.copyField]: "copy2" };
        answer.push(
          field(w.idField, wid, `The minted id, as the read-back shows it.`),
          field(w.copyField, target[w.copyField] ?? null, `The ${w.copyField} the ${w.noun} carries.`),
        );
        g1.push({
          kind: "data_flow",
          id: "read_back",
          explain: `The ${w.copyField} must be confirmed from the ${w.noun}'s own route.`,
          from_response_url_pattern: workItemRe,
          from_status: 200,
          from_body_key: w.copyField,
          answer_field: w.copyField,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        });
      }
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const then = steps.length ? `, then ${steps.join(", then ")}` : "";
      const ticket = sentence(
        g.opener(),
        g.pick([
          `${g.system()} opens ${w.noun}s in one go and the ${w.noun} for ${id} never appeared: its create sent a ${w.copyField} typed in by hand and came back \`422 validation_failed\`.`,
          `Yesterday's ${w.noun} for ${id} was never opened: the script skipped the read of ${id}, had no \`${w.copyField}\` to send, and got \`422 validation_failed\`.`,
          `The ${w.noun} for ${id} is missing because the create was sent without the ${a.noun}'s \`${w.copyField}\` and got \`422 validation_failed\`.`,
        ]),
        `Do it properly: read ${id}, open a \`${level}\` ${w.noun} with its live \`${w.copyField}\`${then}, and confirm ${difficulty === "easy" ? "by reading the new record back" : "from what the last update answers"}.`,
        g.report(fields),
      );
      return subtask(ctx, this.id, {
        ticket,
        brief: `Read ${id}, open a \`${level}\` ${w.noun} with its live \`${w.copyField}\`${then}, ${difficulty === "easy" ? "read it back" : "check the last update's answer"}, and report ${fields.map((f) => `\`${f}\``).join(" and ")}.`,
        golden,
        builder: gb,
        answer,
        g1,
        probes: [
          {
            method: "POST",
            url: built.routes.work,
            body: { [a.idField]: id, [w.levelField.name]: level },
            token: "fresh",
            status: 422,
            error: "validation_failed",
          },
        ],
      });
    },
  };
}

export const MULTISTEP_TEMPLATES: readonly SubtaskTemplate[] = [
  workflow("easy"),
  workflow("medium"),
  workflow("hard"),
];
