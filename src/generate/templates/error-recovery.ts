import type { G1Predicate } from "../../bank/task-schema.js";
import { GoldenBuilder, readFromListing } from "../golden-builder.js";
import { flowToAnswer, re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { sentence } from "../ticket-grammar.js";
import { field, literal, subtask } from "./common.js";

/**
 * Error recovery. easy: an update sent with the wrong verb gets `405 method_not_allowed` (the
 * `Allow` header says which verb works); medium: the same call also used the dead vault token, so
 * the first error hides the second; hard: the record is known only by name, so the path is wrong
 * too, or (coupled) the record is a work item an earlier position left in a variable.
 */
function wrongVerb(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `error_recovery.wrong-verb-${difficulty}`,
    axis: "error_recovery",
    difficulty,
    build(ctx: TemplateContext) {
      if (difficulty === "hard" && ctx.coupled) {
        const planted = ctx.state.takePlanted(ctx.rng);
        if (planted) return closePlanted(ctx, planted, this.id);
      }
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const other = t.updateMethod === "PATCH" ? "PUT" : "PATCH";
      const target = state.claimAsset(ctx.rng);
      const id = state.assetId(target);
      const name = literal(target, a.nameField);
      const current = literal(target, a.enumField.name);
      const value = g.pick(a.enumField.values.filter((v) => v !== current));
      const [, c2] = a.canaryFields;
      if (!c2) throw new Error("no second canary field");
      const url = built.routes.asset(id);
      const gb = new GoldenBuilder(built.world, ctx.position);
      const brokenUrl = difficulty === "hard" ? built.routes.asset(encodeURIComponent(name)) : url;
      if (difficulty === "hard") {
        gb.readSpec();
        const index = state.assets.indexOf(target);
        readFromListing(gb, built.listPages([index]), { id: [index, a.idField] });
        gb.call(
          t.updateMethod,
          built.routes.asset(gb.ref("id")),
          { c2: c2.name, num: a.numberField.name },
          { [a.enumField.name]: value },
        );
      } else {
        gb.call(t.updateMethod, url, { c2: c2.name, num: a.numberField.name }, { [a.enumField.name]: value });
      }
      target[a.enumField.name] = value;
      const golden = gb.answer({ [c2.name]: "c2", [a.numberField.name]: "num" });
      const fields = [c2.name, a.numberField.name];
      const body = JSON.stringify({ [a.enumField.name]: value });
      const who = difficulty === "hard" ? `"${name}"` : id;
      const ticket = sentence(
        g.opener(),
        g.pick([
          `We need ${who}'s \`${a.enumField.name}\` switched to \`${value}\`.`,
          `${who} has to move to \`${a.enumField.name}\` = \`${value}\` today.`,
          `Please get ${who} onto \`${value}\` (field \`${a.enumField.name}\`).`,
        ]),
        `${g.brokenCall(other, brokenUrl)}${g.gotError(405, "method_not_allowed")}`,
        `The body was \`${body}\`.`,
        difficulty === "medium"
          ? "It was sent with the `access_token` from the vault; the client credentials are there too."
          : "",
        difficulty === "hard"
          ? `The path used the ${a.noun}'s display name because that is all the request form had.`
          : "",
        g.pick([
          "Make the change stick and read the values off the successful response.",
          "Get the update through, then use what the API sends back.",
          "Recover from the error, apply the change, and check the result.",
        ]),
        g.report(fields),
      );
      const g1: G1Predicate[] = [
        {
          kind: "call",
          id: "update_applied",
          explain: `The update must go through with ${t.updateMethod}.`,
          method: t.updateMethod,
          url_pattern: `^${re(url)}$`,
          status: 200,
          body_has_keys: [a.enumField.name],
        },
        flowToAnswer(
          `${c2.name}_after_update`,
          url,
          200,
          c2.name,
          c2.name,
          `The ${c2.name} must come from ${id}'s canonical route.`,
        ),
      ];
      // The verb is checked before the token, so even the stale-token call answers 405 first.
      const probes = [
        {
          method: other,
          url: brokenUrl,
          body: { [a.enumField.name]: value },
          token: difficulty === "medium" ? ("stale" as const) : ("fresh" as const),
          status: 405,
          error: "method_not_allowed",
        },
      ];
      return subtask(ctx, this.id, {
        ticket,
        brief: `Set ${who}'s \`${a.enumField.name}\` to \`${value}\` (a ${other} got 405${difficulty === "medium" ? ", sent with the vault's stale token" : ""}), and report ${id === who ? `${id}'s` : "its"} \`${c2.name}\` and \`${a.numberField.name}\` from the successful response.`,
        golden,
        builder: gb,
        answer: [
          field(c2.name, target[c2.name] ?? null, `${c2.description} of ${id}.`),
          field(
            a.numberField.name,
            target[a.numberField.name] ?? null,
            `${a.numberField.description} of ${id}.`,
          ),
        ],
        g1,
        probes,
      });
    },
  };
}

/**
 * Hard, coupled: close the work record an earlier position left in a variable; 405 on the way.
 * What it reports comes from its own successful update of that record (nobody read the record
 * since it was created), so a run that skips the update cannot pass on earlier values.
 */
function closePlanted(
  ctx: TemplateContext,
  planted: { position: number; variable: string; scope: "local" | "global"; workIndex: number },
  id: string,
) {
  const { built, state, grammar: g } = ctx;
  const t = built.template;
  const w = t.work;
  const other = t.updateMethod === "PATCH" ? "PUT" : "PATCH";
  const record = state.work[planted.workIndex];
  if (!record) throw new Error("planted work record is missing");
  const final = w.nextStatuses[w.nextStatuses.length - 1] ?? "closed";
  const copyValue = record[w.copyField] ?? null;
  const gb = new GoldenBuilder(built.world, ctx.position);
  gb.call(
    t.updateMethod,
    built.routes.workItem(`{{${planted.variable}}}`),
    { copy: w.copyField },
    { [w.statusField]: final },
  );
  record[w.statusField] = final;
  const golden = gb.answer({ [w.copyField]: "copy" });
  const ticket = sentence(
    g.opener(),
    g.pick([
      `The ${w.noun} whose id is in the ${planted.scope} variable \`${planted.variable}\` is done and has to be set to \`${final}\`.`,
      `Close out the ${w.noun} kept in ${planted.scope} variable \`${planted.variable}\`: its \`${w.statusField}\` should become \`${final}\`.`,
    ]),
    `${g.brokenCall(other, `${built.routes.work}/{${planted.variable}}`)}${g.gotError(405, "method_not_allowed")}`,
    g.pick([
      `Once it goes through, the closing crew wants the \`${w.copyField}\` the record carries, as the API answers the update.`,
      `Read the \`${w.copyField}\` it was opened with off the successful update's answer.`,
    ]),
    `Report that \`${w.copyField}\`.`,
  );
  return subtask(ctx, id, {
    ticket,
    brief: `Set the ${w.noun} in \`${planted.variable}\` to \`${final}\` (a ${other} got 405), then report the \`${w.copyField}\` its update answers.`,
    golden,
    builder: gb,
    answer: [
      field(
        w.copyField,
        copyValue,
        `The ${w.copyField} position ${planted.position}'s ${w.noun} carries, from the closing update.`,
      ),
    ],
    g1: [
      {
        kind: "call",
        id: "closed",
        explain: `The planted ${w.noun} must be moved to ${final} with ${t.updateMethod}.`,
        method: t.updateMethod,
        url_pattern: `^${re(built.routes.work)}/[^/]+$`,
        status: 200,
        body_has_keys: [w.statusField],
      },
      {
        kind: "data_flow",
        id: "copy_from_close",
        explain: `The ${w.copyField} must come from the planted ${w.noun}'s successful update.`,
        from_response_url_pattern: `^${re(built.routes.work)}/[^/]+$`,
        from_status: 200,
        from_body_key: w.copyField,
        answer_field: w.copyField,
        must_be_stored: false,
        used_in_request_url_pattern: null,
      },
    ],
    consumes: [planted.position],
    coupling: "value",
    probes: [],
  });
}

export const ERROR_RECOVERY_TEMPLATES: readonly SubtaskTemplate[] = [
  wrongVerb("easy"),
  wrongVerb("medium"),
  wrongVerb("hard"),
];
