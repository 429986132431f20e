import type { AnswerField, ExpectedValue, G1Predicate, Requirement } from "../../bank/task-schema.js";
import { isRecordRef } from "../../grade/final-state.js";
import { GoldenBuilder } from "../golden-builder.js";
import { type Planted, re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { cap } from "../ticket-grammar.js";
import { canaries, field, fieldEndsAs, literal, reportRequirement, subtask } from "./common.js";
import { ledgerBalance } from "./ledger-balance.js";
import {
  claimForWork,
  copyReadLive,
  linkFromAsset,
  linkSticks,
  linkWorkOnAsset,
  workBody,
} from "./work-record.js";
import { reviewReread } from "./workflow-states.js";

/**
 * Statefulness: writes persist, later reads reflect them, and values are kept for later work.
 * easy: open a work record and keep its id in a named variable; medium (coupled): pick
 * up the record an earlier position left in a variable, move it on, and keep a value for the next
 * shift; hard: open a record, link it onto its asset, keep the id globally and confirm the link.
 * Every id kept here is planted for later positions to consume.
 */
function keep(difficulty: "easy" | "medium" | "hard"): SubtaskTemplate {
  return {
    id: `statefulness.keep-${difficulty}`,
    axis: "statefulness",
    difficulty,
    build(ctx: TemplateContext) {
      if (difficulty === "medium" && ctx.coupled) {
        const planted = ctx.state.takePlanted(ctx.rng);
        if (planted) return pickUp(ctx, planted, this.id);
      }
      // A ledger world's easy statefulness needs its archetype: a balance derived from the ledger.
      if (difficulty === "easy") {
        const onLedger = ledgerBalance(ctx, this.id);
        if (onLedger) return onLedger;
        // A workflow world's: a value the world changes between two reads.
        const onWorkflow = reviewReread(ctx, this.id);
        if (onWorkflow) return onWorkflow;
      }
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const { target, id, level } = claimForWork(ctx);
      const scope = difficulty === "hard" ? "global" : "local";
      const variable = state.variableFor(w.plural.replace(/-/g, "_"), target);
      const [, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      // A nested world opens the record under its asset (the asset comes from the path), and the
      // grader holds the create there: the flat collection is not the route the ticket names.
      const nested = built.world.archetype === "nested";
      const createUrl = nested ? `${built.routes.asset(id)}/${w.plural}` : built.routes.work;
      const body = workBody(built, id, level, gb.ref("copy"));
      if (nested) delete body[a.idField];
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call("POST", createUrl, { wid: w.idField, st: w.statusField }, body);
      gb.store(variable, "wid", scope);
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null));
      const g1: G1Predicate[] = [
        {
          kind: "data_flow",
          id: "id_stored_and_reused",
          explain:
            difficulty === "hard"
              ? `The minted id must be stored and then written onto ${id}.`
              : "The minted id must be stored in a variable.",
          from_response_url_pattern: `^${re(createUrl)}$`,
          from_status: 201,
          from_body_key: w.idField,
          must_be_stored: true,
          used_in_request_url_pattern: difficulty === "hard" ? `^${re(built.routes.asset(id))}$` : null,
          ...(difficulty === "hard" ? { used_in_slot: { in: "body", key: a.linkField.name } as const } : {}),
        },
        copyReadLive(built, id, createUrl),
        {
          kind: "workspace_value",
          id: "id_in_variable",
          explain: `Later work finds the id in ${scope} variable ${variable}.`,
          name: variable,
          scope,
          value: wid,
        },
      ];
      let answerFields: Record<string, string>;
      const answer: AnswerField[] = [];
      if (difficulty === "hard") {
        // The update's answer confirms the link; a read-back after it would not be load-bearing.
        linkWorkOnAsset(gb, built, id, target, wid);
        answerFields = { [a.linkField.name]: "link", [c2.name]: "c2" };
        answer.push(
          field(a.linkField.name, wid, `${id}'s ${a.linkField.name}, as the linking update answers it.`),
          field(c2.name, target[c2.name] ?? null, `${c2.description} of ${id}.`),
        );
        g1.push(
          linkFromAsset(built, "link_read_back", id, "The link must be confirmed by the update's answer."),
          linkSticks(built, id, wid),
        );
      } else {
        // The create's own answer is the record as stored: a read-back here would show the same
        // values a later position that picks the record up shows again (not load-bearing).
        answerFields = { [w.idField]: "wid", [w.statusField]: "st" };
        answer.push(
          field(w.idField, wid, "The id the create minted."),
          field(w.statusField, w.initialStatus, `The status the server gave the new ${w.noun}.`),
        );
      }
      state.plant({ position: ctx.position, variable, scope, value: wid, workIndex: state.work.length - 1 });
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const story = [
        g.opener(),
        g.pick([
          `Last night's ${w.noun} for ${id} was opened, but nobody wrote its id down and the next shift could not find it.`,
          `The ${w.noun} script for ${id} opens the record and throws the response away, so nobody can follow up on it.`,
          `${cap(w.noun)}s go missing here: the one for ${id} was created twice because nobody stored the first id.`,
        ]),
      ];
      // The record's role (asset, level, copied value) names it in the card and the variable.
      const opened: Requirement = {
        kind: "value_flow",
        id: "opened_with_live_copy",
        sentence: nested
          ? `Open a \`${level}\` ${w.noun} under ${id} itself, in its own \`${w.plural}\` sub-collection; the create needs ${id}'s live \`${w.copyField}\`.`
          : `Open a \`${level}\` ${w.noun} for ${id}; the create needs ${id}'s live \`${w.copyField}\`.`,
        brief: nested
          ? `Open a \`${level}\` ${w.noun} under ${id}'s own \`${w.plural}\` sub-collection, with its live \`${w.copyField}\`.`
          : `Open a \`${level}\` ${w.noun} for ${id} with its live \`${w.copyField}\`.`,
        predicates: ["copy_field_read_live", "id_in_variable"],
      };
      const kept: Requirement = {
        kind: "value_flow",
        id: "id_kept",
        sentence: `Keep the new id in the ${scope} variable \`${variable}\` so the next shift can find it.`,
        brief: `Keep the id in ${scope} variable \`${variable}\`.`,
        predicates: ["id_in_variable", "id_stored_and_reused"],
      };
      const linked: Requirement | false = difficulty === "hard" && {
        kind: "value_flow",
        id: "linked_on_asset",
        sentence: `Record it on ${id} itself through \`${a.linkField.name}\`, and confirm the link from what the API answers.`,
        brief: `Link it on ${id} via \`${a.linkField.name}\`.`,
        predicates: ["id_stored_and_reused", "link_read_back", "link_final"],
      };
      const report = reportRequirement(g, fields);
      return subtask(ctx, this.id, {
        ticket: [...story, opened, kept, linked, report],
        brief: [opened, kept, linked, report],
        golden,
        builder: gb,
        answer,
        g1,
        probes: [],
      });
    },
  };
}

/**
 * Medium, coupled: continue the work record an earlier position kept in a variable. Everything it
 * reports comes from its own update of that record (the planter never read the record back), so
 * skipping the update cannot pass on values an earlier segment saw.
 */
function pickUp(
  ctx: TemplateContext,
  planted: { position: number; variable: string; scope: "local" | "global"; workIndex: number },
  id: string,
) {
  const { built, state, grammar: g } = ctx;
  const t = built.template;
  const a = t.asset;
  const w = t.work;
  const record = state.work[planted.workIndex];
  if (!record) throw new Error("planted work record is missing");
  const assetId = literal(record, a.idField);
  const asset = state.assets.find((r) => r[a.idField] === assetId);
  if (!asset) throw new Error("planted work record names an unknown asset");
  const next = w.nextStatuses[0] ?? "active";
  const keepVar = `${w.copyField}_for_next_shift_p${ctx.position}`;
  const copyValue = record[w.copyField] ?? null;
  const gb = new GoldenBuilder(built.world, ctx.position);
  gb.call(
    t.updateMethod,
    built.routes.workItem(`{{${planted.variable}}}`),
    { copy: w.copyField },
    { [w.statusField]: next },
  );
  gb.store(keepVar, "copy", "global");
  record[w.statusField] = next;
  state.variables.global[keepVar] = copyValue;
  state.stored.add(asset);
  const golden = gb.answer({ [w.copyField]: "copy" });
  const itemRe = `^${re(built.routes.work)}/[^/]+$`;
  const plantedId = record[w.idField] ?? null;
  const opener = g.opener();
  const moved: Requirement = {
    kind: "value_written",
    id: "moved_on_status",
    sentence: g.pick([
      `The ${w.noun} in ${planted.scope} variable \`${planted.variable}\` is still sitting in \`${w.initialStatus}\`; the crew is ready, so move it to \`${next}\`.`,
      `Pick up the ${w.noun} whose id was kept in \`${planted.variable}\` (${planted.scope}) and set its \`${w.statusField}\` to \`${next}\`.`,
    ]),
    brief: `Move the ${w.noun} in \`${planted.variable}\` to \`${next}\`.`,
    predicates: ["status_moved", ...(isRecordRef(plantedId) ? ["status_final"] : [])],
    call: { method: t.updateMethod, url_pattern: itemRe, status: 200, target: plantedId },
    key: w.statusField,
    value: next,
    alternatives: w.nextStatuses.filter((v) => v !== next),
  };
  // The quoted 404 is story: the record the update must hit is the one the variable names (the
  // move's target).
  const mistyped = g.pick([
    `Our dispatcher tried to do it from memory and got ${g.quoteError(404, "not_found")} on a mistyped id.`,
    `Last attempt used an id copied from chat and got ${g.quoteError(404, "not_found")}; the variable is the source of truth.`,
  ]);
  const kept: Requirement = {
    kind: "value_flow",
    id: "copy_kept",
    sentence: `The next shift needs the \`${w.copyField}\` that ${w.noun} carries: keep it, as the update answers it, in the global variable \`${keepVar}\`.`,
    brief: `Keep the \`${w.copyField}\` it carries in global \`${keepVar}\`.`,
    predicates: ["value_kept", "moved_on"],
  };
  const report = reportRequirement(g, [w.copyField], `Report the \`${w.copyField}\` you kept.`);
  return subtask(ctx, id, {
    ticket: [opener, moved, mistyped, kept, report],
    brief: [moved, kept, report],
    golden,
    builder: gb,
    answer: [
      field(
        w.copyField,
        copyValue,
        `The ${w.copyField} position ${planted.position}'s ${w.noun} carries, from its update.`,
      ),
    ],
    g1: [
      {
        kind: "call",
        id: "status_moved",
        explain: `The planted ${w.noun} itself must be moved to ${next} with ${t.updateMethod}.`,
        method: t.updateMethod,
        url_pattern: itemRe,
        target: plantedId,
        status: 200,
        body_has_keys: [],
        sent: { [w.statusField]: next },
      },
      // The record ends in the new status (agent audit, mar: the move undone afterwards passed).
      ...(isRecordRef(plantedId)
        ? [
            fieldEndsAs(
              "status_final",
              `The planted ${w.noun} must end as ${next}.`,
              plantedId.$record,
              w.statusField,
              next,
            ),
          ]
        : []),
      {
        kind: "data_flow",
        id: "moved_on",
        explain: `The planted ${w.noun} must be moved to ${next}; its ${w.copyField} comes from that update.`,
        from_response_url_pattern: itemRe,
        from_status: 200,
        from_body_key: w.copyField,
        answer_field: w.copyField,
        must_be_stored: true,
        used_in_request_url_pattern: null,
      },
      {
        kind: "workspace_value",
        id: "value_kept",
        explain: `The next shift reads ${keepVar}.`,
        name: keepVar,
        scope: "global",
        value: copyValue,
      },
    ],
    consumes: [planted.position],
    coupling: "value",
    probes: [],
  });
}

/**
 * Statefulness with a delete (coupled): the work record an earlier position kept in a variable was
 * superseded. Delete it, prove it is gone (its read now answers 404), open the replacement with the
 * asset's live value and keep the new id in a new variable; hard also re-links the asset onto the
 * replacement and confirms the link from the update's answer. Without a planted record to consume
 * it is `keep` of the same difficulty (so the slot still plants a value).
 */
function supersede(difficulty: "medium" | "hard"): SubtaskTemplate {
  const fallback = keep(difficulty);
  return {
    id: `statefulness.supersede-${difficulty}`,
    axis: "statefulness",
    difficulty,
    build(ctx: TemplateContext) {
      // "Delete no other" needs another record to spare: with the planted one alone in its
      // collection, the requirement would hold whatever the agent deletes (hunter-7's clinic).
      const planted = ctx.coupled
        ? ctx.state.takePlanted(ctx.rng, (p) => ctx.state.hasLiveWorkBesides(p.workIndex))
        : null;
      if (!planted) return fallback.build(ctx);
      const { built, state, grammar: g } = ctx;
      const t = built.template;
      const a = t.asset;
      const w = t.work;
      const old = state.work[planted.workIndex];
      if (!old) throw new Error("planted work record is missing");
      const assetId = literal(old, a.idField);
      const asset = state.assets.find((r) => r[a.idField] === assetId);
      if (!asset) throw new Error("planted work record names an unknown asset");
      const [, c2] = canaries(a);
      const level = g.pick(w.levelField.values.filter((v) => v !== old[w.levelField.name]));
      const variable = `${planted.variable}_v2`;
      const oldUrl = built.routes.workItem(`{{${planted.variable}}}`);
      const gb = new GoldenBuilder(built.world, ctx.position);
      // Read it first: the replacement carries the superseded record's value over, so deleting
      // (and copying from) any other record shows in the card.
      gb.call("GET", oldUrl, { copy: w.copyField });
      gb.call("DELETE", oldUrl);
      gb.call("GET", oldUrl);
      gb.call(
        "POST",
        built.routes.work,
        { wid: w.idField, carried: w.copyField },
        workBody(built, assetId, level, gb.ref("copy")),
      );
      gb.store(variable, "wid", planted.scope);
      state.removeWork(planted.workIndex);
      const wid = state.createWork(workBody(built, assetId, level, old[w.copyField] ?? null));
      // Kept for the next shift, but not planted for a later position to consume: the replacement
      // carries the superseded record's value, so a later report of it would be one this position
      // already saw, and the chain's canary-without-call exam could not tell the two apart.
      state.variables[planted.scope][variable] = state.seedValue(wid);
      const itemRe = `^${re(built.routes.work)}/[^/]+$`;
      const g1 = supersedeChecks(ctx, difficulty, planted, {
        assetId,
        variable,
        wid,
        itemRe,
        oldId: old[w.idField] ?? null,
        linkKey: a.linkField.name,
      });
      // The named record, not a sibling, is the one gone at the end.
      const oldRef = old[w.idField];
      const requirements: Requirement[] = [];
      if (isRecordRef(oldRef)) {
        g1.push({
          kind: "end_state",
          id: "superseded_absent",
          explain: `The superseded ${w.noun} itself must be gone at the end.`,
          record: oldRef.$record,
          expect: { is: "absent" },
        });
      }
      const gone = {
        id: "superseded_gone",
        sentence: "Delete it and read it back to prove it is really gone.",
        brief: "Delete it and prove it is gone.",
      };
      const itemCall = { url_pattern: itemRe, target: old[w.idField] ?? null };
      // Only it goes: one delete of the collection. A chain's supersede segments share the count
      // (the grader adds their shares up), so another segment's own delete is not an extra one.
      const deleted = { method: "DELETE", url_pattern: itemRe, status: 204 };
      g1.push({
        kind: "call_count",
        id: "only_superseded_deleted",
        explain: `No ${w.noun} but the superseded one may be deleted.`,
        call: deleted,
        max: 1,
      });
      requirements.push(
        {
          kind: "value_flow",
          id: "copy_noted",
          sentence: `Before deleting it, note the \`${w.copyField}\` it carries: its replacement for ${assetId}, at level \`${level}\`, must carry the same one.`,
          brief: `Before deleting the superseded ${w.noun} in \`${planted.variable}\`, read it and note its \`${w.copyField}\`: the \`${level}\` replacement for ${assetId} carries the same one.`,
          predicates: ["copy_carried_over"],
        },
        isRecordRef(oldRef)
          ? {
              kind: "end_state",
              ...gone,
              predicates: ["superseded_deleted", "deletion_proved", "superseded_absent"],
              record: oldRef.$record,
              expect: { is: "absent" },
            }
          : {
              kind: "exact_target",
              ...gone,
              predicates: ["superseded_deleted", "deletion_proved"],
              call: { method: "DELETE", status: 204, ...itemCall },
              target: itemCall.target,
              siblings: [],
            },
        {
          kind: "call_count",
          id: "only_it_goes",
          sentence: `Only the ${w.noun} in \`${planted.variable}\` goes: delete no other ${w.noun}.`,
          brief: `Delete no other ${w.noun}.`,
          predicates: ["only_superseded_deleted"],
          call: deleted,
          max: 1,
        },
        {
          kind: "value_flow",
          id: "replacement_kept",
          sentence: `Open the replacement and keep the new id in the ${planted.scope} variable \`${variable}\`.`,
          brief: `Open the replacement and keep its id in ${planted.scope} \`${variable}\`.`,
          predicates: ["replacement_in_variable", "replacement_id_stored"],
        },
      );
      const carriedAnswer = field(
        w.copyField,
        old[w.copyField] ?? null,
        `The ${w.copyField} the replacement carries over, as its create answers it.`,
      );
      let answerFields: Record<string, string>;
      let answer: AnswerField[];
      if (difficulty === "hard") {
        linkWorkOnAsset(gb, built, assetId, asset, wid);
        answerFields = { [w.copyField]: "carried", [a.linkField.name]: "link", [c2.name]: "c2" };
        answer = [
          carriedAnswer,
          field(
            a.linkField.name,
            wid,
            `${assetId}'s ${a.linkField.name}, as the re-linking update answers it.`,
          ),
          field(c2.name, asset[c2.name] ?? null, `${c2.description} of ${assetId}.`),
        ];
        g1.push(
          linkFromAsset(
            built,
            "relink_confirmed",
            assetId,
            "The new link must be confirmed by the update's answer.",
          ),
        );
      } else {
        answerFields = { [w.idField]: "wid", [w.copyField]: "carried" };
        answer = [field(w.idField, wid, "The id the replacement's create minted."), carriedAnswer];
      }
      if (difficulty === "hard")
        requirements.push({
          kind: "value_flow",
          id: "relinked",
          sentence: `Then point ${assetId}'s \`${a.linkField.name}\` at the replacement and confirm the link from what the API answers.`,
          brief: `Re-link ${assetId} via \`${a.linkField.name}\`.`,
          predicates: ["replacement_id_stored", "relink_confirmed"],
        });
      const golden = gb.answer(answerFields);
      const fields = Object.keys(answerFields);
      const story = supersedeStory(ctx, planted);
      const report = reportRequirement(g, fields);
      return subtask(ctx, this.id, {
        ticket: [...story, ...requirements, report],
        brief: [...requirements, report],
        golden,
        builder: gb,
        answer,
        g1,
        consumes: [planted.position],
        coupling: "state",
        probes: [],
      });
    },
  };
}

/** A supersede's checks: deleted, proved gone, replacement stored (and linked), value carried over, variable kept. */
function supersedeChecks(
  ctx: TemplateContext,
  difficulty: "medium" | "hard",
  planted: Planted,
  {
    assetId,
    variable,
    wid,
    itemRe,
    oldId,
    linkKey,
  }: {
    assetId: string;
    variable: string;
    wid: ExpectedValue;
    itemRe: string;
    oldId: ExpectedValue;
    linkKey: string;
  },
): G1Predicate[] {
  const { built } = ctx;
  const w = built.template.work;
  return [
    {
      kind: "call",
      id: "superseded_deleted",
      explain: `The superseded ${w.noun} must be deleted (204).`,
      method: "DELETE",
      url_pattern: itemRe,
      target: oldId,
      status: 204,
      body_has_keys: [],
    },
    {
      kind: "call",
      id: "deletion_proved",
      explain: `A read of the deleted ${w.noun} must show it is gone (404).`,
      method: "GET",
      url_pattern: itemRe,
      target: oldId,
      status: 404,
      body_has_keys: [],
    },
    {
      kind: "data_flow",
      id: "replacement_id_stored",
      explain:
        difficulty === "hard"
          ? `The replacement's id must be stored and written onto ${assetId}.`
          : "The replacement's id must be stored in a variable.",
      from_response_url_pattern: `^${re(built.routes.work)}$`,
      from_status: 201,
      from_body_key: w.idField,
      must_be_stored: true,
      used_in_request_url_pattern: difficulty === "hard" ? `^${re(built.routes.asset(assetId))}$` : null,
      ...(difficulty === "hard" ? { used_in_slot: { in: "body", key: linkKey } as const } : {}),
    },
    {
      kind: "data_flow",
      id: "copy_carried_over",
      explain: `The ${w.copyField} sent must be the one read from the superseded ${w.noun}.`,
      from_response_url_pattern: itemRe,
      from_status: 200,
      from_body_key: w.copyField,
      must_be_stored: false,
      used_in_request_url_pattern: `^${re(built.routes.work)}$`,
      used_in_slot: { in: "body", key: w.copyField },
    },
    {
      kind: "workspace_value",
      id: "replacement_in_variable",
      explain: `Later work finds the replacement in ${planted.scope} variable ${variable}.`,
      name: variable,
      scope: planted.scope,
      value: wid,
    },
  ];
}

/** The story of a supersede position: who files it, and why the kept record is superseded. */
function supersedeStory(ctx: TemplateContext, planted: Planted): string[] {
  const { built, grammar: g } = ctx;
  const w = built.template.work;
  return [
    g.opener(),
    g.pick([
      `The ${w.noun} whose id sits in ${planted.scope} variable \`${planted.variable}\` was opened with the wrong level and is superseded.`,
      `We opened the ${w.noun} in \`${planted.variable}\` (${planted.scope}) at the wrong level; it is superseded.`,
      `The ${w.noun} in \`${planted.variable}\` (${planted.scope} variable) is a mistake, cluttering the queue.`,
    ]),
  ];
}

export const STATEFULNESS_TEMPLATES: readonly SubtaskTemplate[] = [
  keep("easy"),
  keep("medium"),
  supersede("medium"),
  keep("hard"),
  supersede("hard"),
];
