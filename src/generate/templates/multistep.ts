import type { AnswerField, G1Predicate, Requirement } from "../../bank/task-schema.js";
import { GoldenBuilder } from "../golden-builder.js";
import { re } from "../story-state.js";
import type { SubtaskTemplate, TemplateContext } from "../subtask-template.js";
import { canaries, field, fieldEndsAs, reportRequirement, subtask } from "./common.js";
import { claimForWork, linkFromAsset, linkSticks, linkWorkOnAsset, workBody } from "./work-record.js";

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
      const { target, id, level } = claimForWork(ctx);
      const next = g.pick(w.nextStatuses);
      const [, c2] = canaries(a);
      const gb = new GoldenBuilder(built.world, ctx.position);
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call("POST", built.routes.work, { wid: w.idField }, workBody(built, id, level, gb.ref("copy")));
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null));
      const record = state.work[state.work.length - 1];
      const workItemRe = `^${re(built.routes.work)}/[^/]+$`;
      const g1: G1Predicate[] = createFlows(ctx, id, workItemRe);
      // The record's role (asset, level, copied value) names it in the card: another level or
      // copy leaves the expected record unwritten.
      const heldBy = difficulty === "hard" ? a.linkField.name : w.idField;
      const opened: Requirement = {
        kind: "value_flow",
        id: "opened_with_live_copy",
        sentence: `Read ${id}, then open a \`${level}\` ${w.noun} for it carrying the live \`${w.copyField}\` that read returns.`,
        brief: `Read ${id} and open a \`${level}\` ${w.noun} with its live \`${w.copyField}\`.`,
        predicates: ["copy_value_carried", `answer:${heldBy}`],
      };
      const requirements: Requirement[] = [opened];
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
        g1.push({
          kind: "call",
          id: "status_moved",
          explain: `The new ${w.noun} must be moved to ${next} on its own route.`,
          method: t.updateMethod,
          url_pattern: workItemRe,
          target: wid,
          status: 200,
          body_has_keys: [],
          sent: { [w.statusField]: next },
        });
        // The value written, on the new record, and the state it ends in: another valid status
        // written, or the right one on another record, fails.
        g1.push(
          fieldEndsAs(
            "status_final",
            `The new ${w.noun} must end in ${next}.`,
            wid.$record,
            w.statusField,
            next,
          ),
        );
        requirements.push({
          kind: "value_written",
          id: "status_written",
          sentence: `Then move it to \`${next}\`: the new ${w.noun}'s \`${w.statusField}\` must end as \`${next}\`, no other status.`,
          brief: `Move it to \`${next}\`.`,
          predicates: ["status_moved", "status_final"],
          call: { method: t.updateMethod, url_pattern: workItemRe, status: 200, target: wid },
          key: w.statusField,
          value: next,
          alternatives: w.nextStatuses.filter((s) => s !== next),
        });
      }
      if (difficulty === "easy")
        gb.call("GET", built.routes.workItem(gb.ref("wid")), { wid2: w.idField, copy2: w.copyField });
      if (difficulty === "hard") {
        linkWorkOnAsset(gb, built, id, target, wid);
        requirements.push({
          kind: "value_flow",
          id: "linked_on_asset",
          sentence: `Then link it on ${id} through \`${a.linkField.name}\`.`,
          brief: `Link it on ${id} through \`${a.linkField.name}\`.`,
          predicates: ["link_written", "link_final"],
        });
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
            used_in_slot: { in: "body", key: a.linkField.name },
          },
          linkFromAsset(built, "link_read_back", id, `The link must be confirmed by reading ${id}.`),
          linkSticks(built, id, wid),
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
      // Where the card's values are confirmed: the read-back, or the last update's own answer.
      requirements.push(
        difficulty === "easy"
          ? {
              kind: "value_flow",
              id: "confirmed_by_read_back",
              sentence: `Confirm it by reading the new ${w.noun} back from its own route.`,
              brief: "Read it back.",
              predicates: ["read_back"],
            }
          : {
              kind: "value_flow",
              id: "confirmed_by_update",
              sentence: "Confirm from what the last update answers.",
              brief: "Check the last update's answer.",
              predicates: [difficulty === "hard" ? "link_read_back" : "read_back"],
            },
      );
      const story = workflowStory(ctx, id);
      const report = reportRequirement(g, fields);
      return subtask(ctx, this.id, {
        ticket: [...story, ...requirements, report],
        brief: [...requirements, report],
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

/** What every workflow checks: the minted id is used on the new record's route, and the copied value came from the asset read. */
function createFlows(ctx: TemplateContext, id: string, workItemRe: string): G1Predicate[] {
  const { built } = ctx;
  const w = built.template.work;
  return [
    {
      kind: "data_flow",
      id: "new_id_used_next",
      explain: `The id the create minted must be used on the ${w.noun}'s own route.`,
      from_response_url_pattern: `^${re(built.routes.work)}$`,
      from_status: 201,
      from_body_key: w.idField,
      must_be_stored: false,
      used_in_request_url_pattern: workItemRe,
      used_in_slot: { in: "path" },
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
      used_in_slot: { in: "body", key: w.copyField },
    },
  ];
}

/** The story of a workflow position: who files it, and the create that failed for want of a read. */
function workflowStory(ctx: TemplateContext, id: string): string[] {
  const { built, grammar: g } = ctx;
  const a = built.template.asset;
  const w = built.template.work;
  return [
    g.opener(),
    g.pick([
      `${g.system()} opens ${w.noun}s in one go and the ${w.noun} for ${id} did not appear: its create went out ahead of any read of ${id}, with no \`${w.copyField}\`, and came back ${g.quoteError(422, "validation_failed")}.`,
      `Yesterday's ${w.noun} for ${id} was not opened: the script skipped the read of ${id}, had no \`${w.copyField}\` to send, and got ${g.quoteError(422, "validation_failed")}.`,
      `The ${w.noun} for ${id} is missing because the create was sent without the ${a.noun}'s \`${w.copyField}\` and got ${g.quoteError(422, "validation_failed")}.`,
    ]),
  ];
}

/**
 * Medium: the async intake. The create answers 202 with a job to poll (Location); the job is
 * pending for a couple of polls, then awaiting_confirmation; confirming it writes the record. The
 * client that quit after the 202 left nothing behind.
 */
function asyncJob(difficulty: "easy" | "medium"): SubtaskTemplate {
  return {
    id: difficulty === "medium" ? "multistep.async-job" : `multistep.async-job-${difficulty}`,
    axis: "multistep",
    difficulty,
    build(ctx) {
      const { built, state, grammar: g } = ctx;
      const w = built.template.work;
      const { target, id, level } = claimForWork(ctx);
      const url = `${built.routes.work}/async`;
      const gb = new GoldenBuilder(built.world, ctx.position);
      gb.call("GET", built.routes.asset(id), { copy: w.copyField });
      gb.call("POST", url, { jid: "job_id" }, workBody(built, id, level, gb.ref("copy")));
      // Polled back to back, the job is pending twice, then awaiting_confirmation.
      for (let i = 0; i < 3; i++) gb.call("GET", `${built.routes.jobs}/${gb.ref("jid")}`);
      gb.call("POST", `${built.routes.jobs}/${gb.ref("jid")}/confirm`, {
        wid: `result.${w.idField}`,
        copy2: `result.${w.copyField}`,
      });
      const wid = state.createWork(workBody(built, id, level, target[w.copyField] ?? null));
      const golden = gb.answer({ [w.idField]: "wid", [w.copyField]: "copy2" });
      const fields = [w.idField, w.copyField];
      const confirmRe = `^${re(built.routes.jobs)}/[^/]+/confirm$`;
      const confirm = { method: "POST", url_pattern: confirmRe, status: 200 };
      const story = [
        g.opener(),
        `${g.system()} opens \`${level}\` ${w.noun}s through \`POST ${url}\` (the one for ${id} carries ${id}'s live \`${w.copyField}\`).`,
        g.pick([
          "It gets `202` back, logs success and exits, but the record does not show up.",
          "The call answers `202` and the script treats that as done; nothing is ever created.",
        ]),
      ];
      const followed: Requirement = {
        kind: "value_flow",
        id: "job_followed",
        sentence: g.pick([
          "Follow the job through to the end so the record is really written.",
          `See the ${w.noun} for ${id} all the way through the async flow.`,
        ]),
        brief: `Open a \`${level}\` ${w.noun} for ${id} (live \`${w.copyField}\`) through the async \`POST ${url}\` and poll the job its \`202\` names.`,
        predicates: ["job_polled", "copy_from_confirm"],
      };
      const ready: Requirement & { kind: "ordering" } = {
        kind: "ordering",
        id: "confirmed_when_ready",
        // Easy spells the protocol out; medium leaves it to the 202 and the job's own answers.
        sentence:
          difficulty === "easy"
            ? "Poll it until it is `awaiting_confirmation`, then confirm it: only the confirmation writes the record."
            : "Confirm the job only once a poll shows it `awaiting_confirmation`.",
        brief: "Confirm it once a poll shows it `awaiting_confirmation`.",
        predicates: ["polled_before_confirm"],
        before: {
          method: "GET",
          url_pattern: `^${re(built.routes.jobs)}/[^/]+$`,
          returned: { status: "awaiting_confirmation" },
        },
        after: confirm,
        // The poll that shows it ready is of the job confirmed, not of a sibling job.
        same_record: true,
      };
      const requirements: Requirement[] = [
        followed,
        ready,
        {
          kind: "end_state",
          id: "one_record_written",
          sentence: `Exactly one ${w.noun} for ${id} must come out of it.`,
          brief: `Exactly one ${w.noun} for ${id}.`,
          predicates: ["one_record"],
          record: state.countScope(wid),
          expect: { is: "count", min: 1, max: 1 },
        },
      ];
      const report = reportRequirement(g, fields);
      return subtask(ctx, this.id, {
        ticket: [...story, ...requirements, report],
        brief: [...requirements, report],
        golden,
        builder: gb,
        answer: [
          field(w.idField, wid, "The id of the record the confirmed job wrote."),
          field(w.copyField, target[w.copyField] ?? null, `The ${w.copyField} the new ${w.noun} carries.`),
        ],
        g1: [
          {
            kind: "order",
            id: "polled_before_confirm",
            explain: "The job must be confirmed after a poll showed it awaiting confirmation.",
            before: ready.before,
            after: confirm,
            same_record: true,
          },
          {
            kind: "end_state",
            id: "one_record",
            explain: `One ${w.noun} for ${id} at level ${level} at the end.`,
            record: state.countScope(wid),
            expect: { is: "count", min: 1, max: 1 },
          },
          {
            kind: "data_flow",
            id: "job_polled",
            explain: "The job id from the 202 must be polled.",
            from_response_url_pattern: `^${re(url)}$`,
            from_status: 202,
            from_body_key: "job_id",
            must_be_stored: false,
            used_in_request_url_pattern: `^${re(built.routes.jobs)}/[^/]+$`,
            used_in_slot: { in: "path" },
          },
          {
            kind: "data_flow",
            id: "id_from_confirm",
            explain: "The id must come from the confirmed job's result.",
            from_response_url_pattern: confirmRe,
            from_status: 200,
            from_body_key: `result.${w.idField}`,
            answer_field: w.idField,
            must_be_stored: false,
            used_in_request_url_pattern: null,
          },
          {
            kind: "data_flow",
            id: "copy_from_confirm",
            explain: `The ${w.copyField} must come from the confirmed job's result.`,
            from_response_url_pattern: confirmRe,
            from_status: 200,
            from_body_key: `result.${w.copyField}`,
            answer_field: w.copyField,
            must_be_stored: false,
            used_in_request_url_pattern: null,
          },
        ],
        probes: [
          {
            method: "POST",
            url,
            body: workBody(built, id, level, "probe"),
            token: "fresh",
            status: 202,
          },
        ],
      });
    },
  };
}

export const MULTISTEP_TEMPLATES: readonly SubtaskTemplate[] = [
  workflow("easy"),
  asyncJob("easy"),
  workflow("medium"),
  asyncJob("medium"),
  workflow("hard"),
];
