import type { JsonObject } from "../../bank/json.js";
import type { Rng } from "../../bank/rng.js";
import type { Route, Workflow, World } from "../../bank/world-schema.js";
import type { WorldTemplate } from "../world-template.js";
import type { SymRecord } from "./records.js";
import { route } from "./route-kit.js";

/** The resource of a `workflow` world: change requests that move through states. */
export const WORKFLOW_RESOURCE = "change-requests";

/** The state field of a change request. */
export const WORKFLOW_FIELD = "state";

/**
 * The states a change request moves through and the moves allowed from each (the engine refuses
 * any other with 409 `invalid_transition`): a request is drafted, submitted, reviewed, then
 * approved or sent back; an approved one is closed.
 */
export const WORKFLOW_TRANSITIONS: Readonly<Record<string, readonly string[]>> = {
  draft: ["submitted", "withdrawn"],
  submitted: ["in_review", "withdrawn"],
  in_review: ["approved", "rejected"],
  rejected: ["draft"],
  approved: ["closed"],
  withdrawn: [],
  closed: [],
};

/** The state a request must pass through to reach `approved` from `from` (the shortest path). */
export function pathToState(from: string, to: string): string[] {
  const seen = new Map<string, string[]>([[from, []]]);
  const queue = [from];
  while (queue.length > 0) {
    const at = queue.shift() as string;
    const path = seen.get(at) as string[];
    if (at === to) return path;
    for (const next of WORKFLOW_TRANSITIONS[at] ?? [])
      if (!seen.has(next)) {
        seen.set(next, [...path, next]);
        queue.push(next);
      }
  }
  throw new Error(`workflow: no path from ${from} to ${to}`);
}

/**
 * Fields the world writes as a request enters a state: the review queue assigns a `review_ref` a
 * logical second after the request enters `in_review` (not in the write's reply: a later read
 * shows it), and an approval stamps its `approval_code` with the write.
 */
export const WORKFLOW_ON_ENTER = {
  in_review: { after_seconds: 1, mint: { review_ref: "RV-{code}" } },
  approved: { mint: { approval_code: "AP-{code}" } },
} as const;

/** States seeded change requests start in, in the order they are dealt. */
const SEEDED_STATES = [
  "draft",
  "submitted",
  "rejected",
  "draft",
  "submitted",
  "approved",
  "in_review",
  "closed",
];

const TITLES = [
  "raise the alert threshold",
  "move to the new maintenance window",
  "retire the spare unit",
  "switch the reporting channel",
  "extend the service contract",
  "reassign the on-call crew",
];

const arrow = (flow: Readonly<Record<string, readonly string[]>>) =>
  Object.entries(flow)
    .filter(([, to]) => to.length > 0)
    .map(([from, to]) => `${from} → ${to.join(" | ")}`)
    .join("; ");

/**
 * The routes of a `workflow` world's change requests: list (filter by `state` or asset), read, and
 * the update that moves a request along `WORKFLOW_TRANSITIONS` (documented in its summary; any
 * other move answers 409 `invalid_transition`).
 *
 * @example workflowRoutes(FLEET).map((r) => r.id) // ["list_change_requests", "get_change_request", "move_change_request"]
 */
export function workflowRoutes(t: WorldTemplate): Route[] {
  const a = t.asset;
  const base = `${t.base}/${WORKFLOW_RESOURCE}`;
  const workflow: Workflow = {
    field: WORKFLOW_FIELD,
    transitions: Object.fromEntries(Object.entries(WORKFLOW_TRANSITIONS).map(([k, v]) => [k, [...v]])),
    on_enter: Object.fromEntries(
      Object.entries(WORKFLOW_ON_ENTER).map(([k, v]) => [k, { ...v, mint: { ...v.mint } }]),
    ),
  };
  return [
    route({
      id: "list_change_requests",
      method: "GET",
      path: base,
      summary: `List change requests (filter by ${WORKFLOW_FIELD} or by ${a.idField})`,
      resource: WORKFLOW_RESOURCE,
      action: "list",
      query_params: [
        {
          name: WORKFLOW_FIELD,
          description: "Only change requests in this state",
          allowed: Object.keys(WORKFLOW_TRANSITIONS),
          filter_field: WORKFLOW_FIELD,
        },
        { name: a.idField, description: `Only change requests for this ${a.noun}`, filter_field: a.idField },
      ],
    }),
    route({
      id: "get_change_request",
      method: "GET",
      path: `${base}/{request_id}`,
      summary: "Read one change request (its state, review_ref and approval_code)",
      resource: WORKFLOW_RESOURCE,
      action: "get",
    }),
    route({
      id: "move_change_request",
      method: t.updateMethod,
      path: `${base}/{request_id}`,
      summary: `Move a change request one step along its workflow by sending {"${WORKFLOW_FIELD}": <next state>}. Allowed moves: ${arrow(WORKFLOW_TRANSITIONS)}; any other move is refused with 409. A request entering in_review is queued for review and gets its review_ref a moment later (read it again to see it); one entering approved gets its approval_code.`,
      resource: WORKFLOW_RESOURCE,
      action: "update",
      workflow,
    }),
  ];
}

/**
 * The seeded change requests of a `workflow` world: one for each of the first assets, in states
 * dealt from `SEEDED_STATES`; those past review carry their review reference (and approval code).
 *
 * @example workflowResources(FLEET, assets, rng)["change-requests"].records.length // 16
 */
export function workflowResources(
  t: WorldTemplate,
  assets: readonly SymRecord[],
  rng: Rng,
): World["resources"] {
  const a = t.asset;
  const code = () =>
    Array.from({ length: 6 }, () => "0123456789ABCDEFGHJKMNPQRSTVWXYZ"[rng.int(0, 31)]).join("");
  const records: JsonObject[] = assets.slice(0, 16).map((asset, i) => {
    const state = SEEDED_STATES[i % SEEDED_STATES.length] as string;
    const reviewed = ["in_review", "approved", "closed"].includes(state);
    const approved = ["approved", "closed"].includes(state);
    return {
      request_id: `CR-${String(1000 + rng.int(0, 8999)).padStart(4, "0")}-${i + 1}`,
      [a.idField]: asset[a.idField] as string,
      title: rng.pick(TITLES),
      [WORKFLOW_FIELD]: state,
      review_ref: reviewed ? `RV-${code()}` : null,
      approval_code: approved ? `AP-${code()}` : null,
    };
  });
  return {
    [WORKFLOW_RESOURCE]: {
      id_field: "request_id",
      id_template: "CR-{canary}",
      fields: {
        request_id: { type: "string", description: "Change request id" },
        [a.idField]: { type: "string", description: `The ${a.noun} the change is for` },
        title: { type: "string", description: "What the change does" },
        [WORKFLOW_FIELD]: {
          type: "string",
          description: `Workflow state, one of ${Object.keys(WORKFLOW_TRANSITIONS).join(", ")}; allowed moves: ${arrow(WORKFLOW_TRANSITIONS)}`,
        },
        review_ref: {
          type: "string",
          description: "Set by the review queue shortly after the request enters in_review",
        },
        approval_code: { type: "string", description: "Set when the request is approved" },
      },
      records,
    },
  };
}
