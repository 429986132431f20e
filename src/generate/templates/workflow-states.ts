import type { JsonObject } from "../../bank/json.js";
import type { CanaryRef, G1Predicate, Requirement } from "../../bank/task-schema.js";
import { GoldenBuilder } from "../golden-builder.js";
import { re, type StoryState } from "../story-state.js";
import type { TemplateContext } from "../subtask-template.js";
import { cap } from "../ticket-grammar.js";
import { canary } from "../world-builders/records.js";
import {
  pathToState,
  WORKFLOW_FIELD,
  WORKFLOW_ON_ENTER,
  WORKFLOW_RESOURCE,
} from "../world-builders/workflow-archetype.js";
import { field, fieldEndsAs, reportRequirement, subtask } from "./common.js";

/** Change requests an earlier position of the storyline moved (two positions never share one). */
const moved = new WeakMap<StoryState, Set<string>>();

/**
 * A seeded change request in one of `states` that no earlier position moved, marked as taken, or
 * null when the world is not a `workflow` world or none is left.
 */
function claimRequest(ctx: TemplateContext, states: readonly string[]): { id: string; state: string } | null {
  const { built, state, rng } = ctx;
  const records = built.world.resources[WORKFLOW_RESOURCE]?.records;
  if (built.world.archetype !== "workflow" || !records) return null;
  const taken = moved.get(state) ?? new Set<string>();
  moved.set(state, taken);
  const free = records.filter(
    (r) => states.includes(String(r[WORKFLOW_FIELD])) && !taken.has(String(r.request_id)),
  );
  if (free.length === 0) return null;
  const pick = rng.pick(free) as JsonObject;
  const id = String(pick.request_id);
  taken.add(id);
  return { id, state: String(pick[WORKFLOW_FIELD]) };
}

/** The value the world mints for `field` as request `id` first enters the state that stamps it. */
function stamped(id: string, name: "review_ref" | "approval_code"): CanaryRef {
  const format =
    name === "review_ref"
      ? WORKFLOW_ON_ENTER.in_review.mint.review_ref
      : WORKFLOW_ON_ENTER.approved.mint.approval_code;
  return canary(`${WORKFLOW_RESOURCE}:${name}:${id}#1`, format);
}

const requestUrl = (ctx: TemplateContext, id: string) =>
  `${ctx.built.template.base}/${WORKFLOW_RESOURCE}/${id}`;

/**
 * Error recovery on a `workflow` world (issue 16: a record that moves through states): a client
 * tried to approve a change request in one update and got 409 `invalid_transition`; the request
 * must reach `approved` one allowed step at a time. easy starts from `submitted` (two steps),
 * medium from `draft` (three), hard from `rejected` (four, and the error is terse: the allowed
 * moves are in the spec). The approval stamps an `approval_code`, read off the approving reply.
 * Retrying the client's call plainly never gets past the 409.
 *
 * Returns null when the world is not a workflow world or no request is left in the start state.
 */
export function workflowApproval(ctx: TemplateContext, template: string) {
  const from = ctx.difficulty === "easy" ? "submitted" : ctx.difficulty === "medium" ? "draft" : "rejected";
  const claimed = claimRequest(ctx, [from]);
  if (!claimed) return null;
  const { built, grammar: g } = ctx;
  const t = built.template;
  const { id } = claimed;
  const url = requestUrl(ctx, id);
  const urlRe = `^${re(url)}$`;
  const steps = pathToState(from, "approved");
  const gb = new GoldenBuilder(built.world, ctx.position);
  if (ctx.difficulty === "hard") gb.readSpec();
  steps.forEach((to, i) => {
    const last = i === steps.length - 1;
    gb.call(t.updateMethod, url, last ? { code: "approval_code" } : {}, { [WORKFLOW_FIELD]: to });
  });
  const golden = gb.answer({ approval_code: "code" });
  const body = { [WORKFLOW_FIELD]: "approved" };
  const approved: Requirement = {
    kind: "value_written",
    id: "request_approved",
    sentence: g.pick([
      `The board signed ${id} off: it has to end up \`approved\`, moved the way the API allows.`,
      `Get ${id} to \`${WORKFLOW_FIELD}\` = \`approved\` through the workflow the API enforces.`,
    ]),
    brief: `Move ${id} to \`approved\`, one allowed step at a time.`,
    predicates: ["approval_applied", "approval_sticks", "code_sticks"],
    call: { method: t.updateMethod, url_pattern: urlRe, status: 200 },
    key: WORKFLOW_FIELD,
    value: "approved",
    alternatives: ["rejected"],
  };
  const code: Requirement = {
    kind: "value_flow",
    id: "code_from_approval",
    sentence: "The approval stamps an `approval_code`; take it from the reply that approved the request.",
    brief: "Take the `approval_code` from the approving reply.",
    predicates: ["approval_code_from_reply"],
  };
  const story = [
    g.opener(),
    `${g.brokenCall(t.updateMethod, url)}${g.gotError(409, "invalid_transition")}`,
    `The body was \`${JSON.stringify(body)}\`; ${id} is \`${from}\` today.`,
  ];
  const g1: G1Predicate[] = [
    {
      kind: "call",
      id: "approval_applied",
      explain: `${id} must be moved to approved by an update the workflow accepts.`,
      method: t.updateMethod,
      url_pattern: urlRe,
      status: 200,
      body_has_keys: [],
      sent: body,
    },
    fieldEndsAs(
      "approval_sticks",
      `${id} must end approved.`,
      { resource: WORKFLOW_RESOURCE, where: { request_id: id } },
      WORKFLOW_FIELD,
      "approved",
    ),
    // The stamp is the API's: a request approved and its code then overwritten by an update (the
    // body takes `approval_code`) is not the approval the ticket asked for (agent audit, apr).
    fieldEndsAs(
      "code_sticks",
      `${id} must keep the approval_code its approval stamped.`,
      { resource: WORKFLOW_RESOURCE, where: { request_id: id } },
      "approval_code",
      stamped(id, "approval_code"),
    ),
    {
      kind: "data_flow",
      id: "approval_code_from_reply",
      explain: "The approval_code must come from the reply of the update that approved the request.",
      from_response_url_pattern: urlRe,
      from_status: 200,
      from_body_key: "approval_code",
      answer_field: "approval_code",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    },
  ];
  const report = reportRequirement(g, ["approval_code"]);
  return subtask(ctx, template, {
    ticket: [...story, approved, code, report],
    brief: [`A one-step approval of ${id} (\`${from}\`) got 409.`, approved, code, report],
    golden,
    builder: gb,
    answer: [field("approval_code", stamped(id, "approval_code"), `The code ${id}'s approval stamped.`)],
    g1,
    probes: [{ method: t.updateMethod, url, body, token: "fresh", status: 409, error: "invalid_transition" }],
  });
}

/**
 * Statefulness on a `workflow` world (issue 16: records that change between reads): queue a
 * submitted change request for review and report the `review_ref` the review queue assigns. The
 * queue assigns it a logical second after the move, so neither the first read nor the move's reply
 * shows it: only a read after the move does, and the reference is kept in a variable for later
 * work. An agent that acts on what it read first reports an empty reference.
 *
 * Returns null when the world is not a workflow world or no submitted request is left.
 */
export function reviewReread(ctx: TemplateContext, template: string) {
  const claimed = claimRequest(ctx, ["submitted"]);
  if (!claimed) return null;
  const { built, state, grammar: g } = ctx;
  const t = built.template;
  const { id } = claimed;
  const url = requestUrl(ctx, id);
  const urlRe = `^${re(url)}$`;
  const variable = `review_ref_${id.replace(/\W+/g, "_").toLowerCase()}`;
  const ref = stamped(id, "review_ref");
  const gb = new GoldenBuilder(built.world, ctx.position);
  gb.call("GET", url, { before: "review_ref" });
  gb.call(t.updateMethod, url, {}, { [WORKFLOW_FIELD]: "in_review" });
  gb.call("GET", url, { ref: "review_ref" });
  gb.store(variable, "ref", "local");
  state.variables.local[variable] = ref;
  const golden = gb.answer({ review_ref: "ref" });
  const queued: Requirement = {
    kind: "value_written",
    id: "request_queued",
    sentence: `Move ${id} from \`submitted\` to \`in_review\`.`,
    brief: `Move ${id} to \`in_review\`.`,
    predicates: ["moved_to_review", "review_sticks", "ref_sticks"],
    call: { method: t.updateMethod, url_pattern: urlRe, status: 200 },
    key: WORKFLOW_FIELD,
    value: "in_review",
    alternatives: ["withdrawn"],
  };
  const reread: Requirement = {
    kind: "value_flow",
    id: "ref_reread",
    sentence: g.pick([
      `The review queue assigns the \`review_ref\` a moment after the move: read ${id} again once it is in review and take the reference from there.`,
      `The \`review_ref\` is not there when the move returns; read ${id} afresh after the move for it.`,
    ]),
    brief: `Read ${id} again after the move for its \`review_ref\`.`,
    predicates: ["ref_from_reread"],
  };
  const kept: Requirement = {
    kind: "value_flow",
    id: "ref_kept",
    sentence: `Keep the reference in the local variable \`${variable}\`.`,
    brief: `Keep it in local \`${variable}\`.`,
    predicates: ["ref_from_reread", "ref_in_variable"],
  };
  const story = [
    g.opener(),
    g.pick([
      `${cap(g.system())} read ${id}, queued it for review and showed the \`review_ref\` from that first read: empty.`,
      `Our dashboard moved ${id} into review and showed the \`review_ref\` from its earlier read, so reviewers saw none.`,
    ]),
  ];
  const g1: G1Predicate[] = [
    {
      kind: "call",
      id: "moved_to_review",
      explain: `${id} must be moved to in_review.`,
      method: t.updateMethod,
      url_pattern: urlRe,
      status: 200,
      body_has_keys: [],
      sent: { [WORKFLOW_FIELD]: "in_review" },
    },
    fieldEndsAs(
      "review_sticks",
      `${id} must end in review.`,
      { resource: WORKFLOW_RESOURCE, where: { request_id: id } },
      WORKFLOW_FIELD,
      "in_review",
    ),
    // Reviewers read the reference off the record: one overwritten by an update after it was read
    // (the body takes `review_ref`) leaves them the wrong one (agent audit, apr).
    fieldEndsAs(
      "ref_sticks",
      `${id} must keep the review_ref the review queue assigned.`,
      { resource: WORKFLOW_RESOURCE, where: { request_id: id } },
      "review_ref",
      ref,
    ),
    {
      kind: "data_flow",
      id: "ref_from_reread",
      explain: `The review_ref must come from a read of ${id} after the queue assigned it, and be stored.`,
      from_response_url_pattern: urlRe,
      from_status: 200,
      from_body_key: "review_ref",
      answer_field: "review_ref",
      must_be_stored: true,
      used_in_request_url_pattern: null,
    },
    {
      kind: "workspace_value",
      id: "ref_in_variable",
      explain: `Later work finds the reference in local variable ${variable}.`,
      name: variable,
      scope: "local",
      value: ref,
    },
  ];
  const report = reportRequirement(g, ["review_ref"]);
  return subtask(ctx, template, {
    ticket: [...story, queued, reread, kept, report],
    brief: [queued, reread, kept, report],
    golden,
    builder: gb,
    answer: [field("review_ref", ref, `The review reference the queue assigned ${id}, read after the move.`)],
    g1,
  });
}
