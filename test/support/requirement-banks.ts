import { type Bank, bankFromContent } from "../../src/bank/bank.js";
import type { GoldenStep, Task } from "../../src/bank/task-schema.js";
import type { Route, World } from "../../src/bank/world-schema.js";
import { HARBOR_WORLD } from "../../src/generate/harbor-world.js";
import { skeletonContent } from "./test-banks.js";

/**
 * Small hand-built banks for the requirement-mutant and legitimate-variant gates: the skeleton's
 * harbour world with an update route (a vessel's firmware channel, an enum) and maintenance orders
 * opened as async jobs (submit, poll, confirm), and one task for each.
 */
const base = {
  auth_required: true,
  scopes: [],
  documented: true,
  view: { omit_fields: [], overrides: {} },
  required_fields: [],
  defaults: {},
  headers: {},
} satisfies Partial<Route>;

export const REQUIREMENT_WORLD: World = {
  ...HARBOR_WORLD,
  auth: { ...HARBOR_WORLD.auth, ttl_calls: 40 },
  routes: [
    ...HARBOR_WORLD.routes.filter((r) => r.id !== "createMaintenanceOrder"),
    {
      ...base,
      id: "updateVessel",
      method: "PATCH",
      path: "/v3/vessels/{vessel_id}",
      version: "v3",
      status: "canonical",
      summary: "Update a vessel's telemetry unit settings",
      resource: "vessels",
      action: "update",
      validator: {
        fields: {
          firmware_channel: { type: "string", enum: ["maritime-lts", "maritime-edge", "maritime-beta"] },
        },
      },
    },
    {
      ...base,
      id: "createMaintenanceOrder",
      method: "POST",
      path: "/v3/maintenance-orders",
      version: "v3",
      status: "canonical",
      summary: "Open a maintenance order for a vessel (an async job to confirm)",
      resource: "maintenance-orders",
      action: "create",
      required_fields: ["vessel_id", "priority"],
      defaults: { status: "queued" },
      async_job: { poll_path: "/v3/jobs/{job_id}", pending_seconds: 1, confirm: true },
    },
    {
      ...base,
      id: "getOrderJob",
      method: "GET",
      path: "/v3/jobs/{job_id}",
      version: "v3",
      status: "canonical",
      summary: "Poll a maintenance-order job",
      resource: "maintenance-orders",
      action: "job_status",
    },
    {
      ...base,
      id: "confirmOrderJob",
      method: "POST",
      path: "/v3/jobs/{job_id}/confirm",
      version: "v3",
      status: "canonical",
      summary: "Confirm a maintenance-order job",
      resource: "maintenance-orders",
      action: "job_confirm",
    },
  ],
};

const mint: GoldenStep = {
  op: "execute",
  request: {
    method: "POST",
    url: "/v3/oauth/token",
    headers: { "Content-Type": "application/json" },
    body: {
      grant_type: "client_credentials",
      client_id: "{{client_id}}",
      client_secret: "{{client_secret}}",
    },
  },
  capture: { token: "access_token" },
};
const bearer = { Authorization: "Bearer {{token}}" };
const json = { ...bearer, "Content-Type": "application/json" };

function solo(id: string, ticket: string, golden: GoldenStep[], grader: Task["grader"]): Task {
  return {
    id,
    world: REQUIREMENT_WORLD.id,
    kind: "solo",
    positions: [1],
    axes: ["statefulness"],
    difficulty: "medium",
    coupling: "none",
    ticket,
    workspace: {
      vault: { client_id: HARBOR_WORLD.auth.client_id, client_secret: HARBOR_WORLD.auth.client_secret },
      local: {},
      global: {},
    },
    setup: [],
    golden,
    grader,
  };
}

export const CHANNEL_TASK = "req-channel";
export const JOB_TASK = "req-job";

/**
 * Move V-412's unit to `maritime-edge` and report the berth the update answers with (the card does
 * not show the channel, so only the write check can hold it). The grader holds the value written
 * and the record written.
 */
export function channelTask(): Task {
  return solo(
    CHANNEL_TASK,
    "The night crew says V-412's telemetry unit is still on the wrong release channel. Move it to `maritime-edge` with a PATCH on its own v3 route, and tell me the berth the update answers with.",
    [
      mint,
      {
        op: "execute",
        request: {
          method: "PATCH",
          url: "/v3/vessels/V-412",
          headers: json,
          body: { firmware_channel: "maritime-edge" },
        },
        capture: { berth: "berth" },
      },
      { op: "answer", fields: { berth: "berth" } },
    ],
    {
      answer: [
        {
          field: "berth",
          comparator: "string",
          expected: { $canary: "v412_berth", format: "BX-{code}" },
          explain: "V-412's live berth.",
        },
      ],
      g1: [
        {
          kind: "call",
          id: "channel_written",
          explain: "V-412 must be moved to maritime-edge on its own route.",
          method: "PATCH",
          url_pattern: "^/v3/vessels/[^/]+$",
          target: "V-412",
          status: 200,
          body_has_keys: [],
          sent: { firmware_channel: "maritime-edge" },
        },
        {
          kind: "data_flow",
          id: "berth_from_update",
          explain: "The berth must come from V-412's update.",
          from_response_url_pattern: "^/v3/vessels/V-412$",
          from_status: 200,
          from_body_key: "berth",
          answer_field: "berth",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      constraints: [],
      checkpoints: [],
    },
  );
}

/** The channel task checked the old way: the PATCH only has to answer with the key (any value written). */
export function keyOnlyWriteCheck(t: Task): Task {
  return {
    ...t,
    grader: {
      ...t.grader,
      g1: t.grader.g1.map((p) =>
        p.kind === "call"
          ? {
              kind: "call",
              id: p.id,
              explain: p.explain,
              method: "PATCH",
              url_pattern: "^/v3/vessels/V-412$",
              status: 200,
              body_has_keys: ["firmware_channel"],
            }
          : p,
      ),
    },
  };
}

/**
 * Open a `high` maintenance order for V-204 through the job API (submit, poll, confirm) and
 * report its id, graded by creation order: the expected id is "the first order minted" — which an
 * abandoned submit before the real one moves.
 */
export function positionalJobTask(): Task {
  return solo(
    JOB_TASK,
    "Open a `high` priority maintenance order for V-204 through the v3 maintenance-orders job API: submit it, wait until the job awaits confirmation, confirm it, and tell me the new order's id.",
    [
      mint,
      {
        op: "execute",
        request: {
          method: "POST",
          url: "/v3/maintenance-orders",
          headers: json,
          body: { vessel_id: "V-204", priority: "high" },
        },
        capture: { job: "job_id" },
      },
      {
        op: "execute",
        request: { method: "GET", url: "/v3/jobs/{{job}}", headers: { ...bearer, "x-apiflow-wait": "2" } },
        capture: {},
      },
      {
        op: "execute",
        request: { method: "POST", url: "/v3/jobs/{{job}}/confirm", headers: bearer },
        capture: { order: "result.order_id" },
      },
      { op: "answer", fields: { order_id: "order" } },
    ],
    {
      answer: [
        {
          field: "order_id",
          comparator: "string",
          expected: { $canary: "maintenance-orders:id#1", format: "MO-{code}" },
          explain: "The first order minted in the trial.",
        },
      ],
      g1: [
        {
          kind: "data_flow",
          id: "order_from_confirm",
          explain: "The order id must come from the confirmation.",
          from_response_url_pattern: "^/v3/jobs/[^/]+/confirm$",
          from_status: 200,
          from_body_key: "result.order_id",
          answer_field: "order_id",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      constraints: [],
      checkpoints: [],
    },
  );
}

/** A bank of the requirement world with these tasks. */
export function requirementBank(tasks: Task[]): Bank {
  return bankFromContent({
    ...skeletonContent([]),
    name: "requirements",
    worlds: [REQUIREMENT_WORLD],
    tasks,
  });
}

/**
 * The channel task with its requirements as data: the channel written, the record written, the
 * berth reported, each naming the predicates that hold it.
 */
export function channelTaskWithRequirements(t: Task = channelTask()): Task {
  const call = { method: "PATCH", url_pattern: "^/v3/vessels/[^/]+$" };
  return {
    ...t,
    requirements: [
      {
        id: "channel_set",
        kind: "value_written",
        predicates: ["channel_written"],
        call,
        key: "firmware_channel",
        value: "maritime-edge",
        alternatives: ["maritime-beta"],
      },
      {
        id: "on_v412",
        kind: "exact_target",
        predicates: ["channel_written"],
        call,
        target: "V-412",
        siblings: ["V-311"],
      },
      {
        id: "berth_reported",
        kind: "report",
        predicates: ["answer:berth", "berth_from_update"],
        fields: ["berth"],
      },
    ],
  };
}

/**
 * The job task graded right: the order id expected is the one order for V-204 in the final state
 * (not the first minted), and one order only may be confirmed (a call count holds it).
 */
export function jobTaskWithRequirements(): Task {
  const t = positionalJobTask();
  return {
    ...t,
    grader: {
      ...t.grader,
      answer: t.grader.answer.map((f) => ({
        ...f,
        expected: {
          $record: {
            resource: "maintenance-orders",
            where: { vessel_id: "V-204" },
            role: "the order opened for V-204",
          },
          field: "order_id",
        },
      })),
      g1: [
        ...t.grader.g1,
        {
          kind: "call_count",
          id: "one_confirm",
          explain: "One order is opened: one job confirmed.",
          call: { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$", status: 200 },
          max: 1,
          requirement: "one_order",
        },
      ],
    },
    requirements: [
      {
        id: "one_order",
        kind: "call_count",
        predicates: ["one_confirm"],
        call: { method: "POST", url_pattern: "^/v3/jobs/[^/]+/confirm$", status: 200 },
        max: 1,
      },
      { id: "order_reported", kind: "report", predicates: ["answer:order_id"], fields: ["order_id"] },
    ],
  };
}
