import type { Premise } from "../bank/premise-schema.js";
import type { Subtask, Task } from "../bank/task-schema.js";
import { composeChain, composeSolo } from "./compose.js";
import { HARBOR_WORLD } from "./harbor-world.js";
import { withOtherSources } from "./other-sources.js";

const W = HARBOR_WORLD;
const TOKEN = W.auth.token_path;
const mintToken = {
  op: "execute" as const,
  request: {
    method: "POST",
    url: TOKEN,
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
const noV2 = {
  kind: "forbid" as const,
  id: "stay_on_v3",
  explain: "The deprecated /v2 vessel route serves a nightly snapshot with a stale berth and firmware build.",
  url_pattern: "^/v2/",
};

/**
 * The storyline of the harbour world: three positions, one per axis the skeleton covers. Each
 * data flow read off a vessel's own route also accepts the vessel's value from its other
 * canonical routes, as the generator's do (see `withOtherSources`).
 */
export const HARBOR_STORYLINE: Array<Subtask & { premises?: Premise[] }> = widened([
  {
    position: 1,
    axis: "auth",
    difficulty: "easy",
    consumes: [],
    ticket:
      'Our nightly firmware audit calls `GET /v3/vessels/V-204` with the bearer token stored in the vault as `access_token`, and since last night it gets `401 invalid_token` ("the bearer token is expired or was never issued"). The client credentials are in the vault too. Get the audit working again with a fresh token and tell me the firmware build and release channel the telemetry unit on V-204 reports right now.',
    // What the ticket quotes: the audit's call with the vault's token (the axis-blind agent keeps it).
    premises: [
      {
        kind: "call",
        method: "GET",
        url: "/v3/vessels/V-204",
        token: "stale",
        status: 401,
        error: "invalid_token",
        message: "the bearer token is expired or was never issued",
      },
    ],
    golden: [
      mintToken,
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels/V-204", headers: bearer },
        capture: { firmware: "firmware_build", channel: "firmware_channel" },
      },
      { op: "answer", fields: { firmware_build: "firmware", firmware_channel: "channel" } },
    ],
    grader: {
      answer: [
        {
          field: "firmware_build",
          comparator: "string",
          expected: { $canary: "v204_firmware", format: "FW-{code}" },
          explain: "The live build from the canonical vessel read.",
        },
        {
          field: "firmware_channel",
          comparator: "string",
          expected: "maritime-lts",
          explain: "The release channel of V-204's unit.",
        },
      ],
      g1: [
        {
          kind: "data_flow",
          id: "minted_token_used",
          explain: "A fresh client_credentials token must be minted and then used on the vessel read.",
          from_response_url_pattern: "^/v3/oauth/token$",
          from_status: 200,
          from_body_key: "access_token",
          must_be_stored: false,
          used_in_request_url_pattern: "^/v3/vessels/V-204$",
          used_in_slot: { in: "header", name: "authorization" },
        },
        {
          kind: "data_flow",
          id: "firmware_from_v3",
          explain: "The firmware build must come from a 200 on the canonical vessel route.",
          from_response_url_pattern: "^/v3/vessels/V-204$",
          from_status: 200,
          from_body_key: "firmware_build",
          answer_field: "firmware_build",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      constraints: [noV2],
      checkpoints: [
        {
          id: "got_bearer",
          explain: "A correct run mints a bearer first.",
          method: "POST",
          url_pattern: "^/v3/oauth/token$",
          status: 200,
        },
      ],
    },
  },
  {
    position: 2,
    axis: "discovery",
    difficulty: "medium",
    consumes: [],
    ticket:
      "The berth board still calls `GET /v2/vessels/V-311`, and the harbour master says the berth it shows for Cape Halcyon is wrong. That route answers with a `Deprecation: true` header, so it is probably serving old data. Find the route the current API publishes for a single vessel, and tell me where V-311 is berthed now and which port it came from. Stay off v2.",
    // The berth board's deprecated route still answers (the axis-blind agent stays on it).
    premises: [{ kind: "call", method: "GET", url: "/v2/vessels/V-311", token: "fresh", status: 200 }],
    golden: [
      { op: "read_spec" },
      mintToken,
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels/V-311", headers: bearer },
        capture: { berth: "berth", port: "last_port_call" },
      },
      { op: "answer", fields: { berth: "berth", last_port_call: "port" } },
    ],
    grader: {
      answer: [
        {
          field: "berth",
          comparator: "string",
          expected: { $canary: "v311_berth", format: "BX-{code}" },
          explain: "The live berth from v3.",
        },
        {
          field: "last_port_call",
          comparator: "string",
          expected: "Gdansk",
          explain: "Previous port of call.",
        },
      ],
      g1: [
        {
          kind: "data_flow",
          id: "berth_from_v3",
          explain: "The berth must come from the canonical v3 vessel read, not the v2 snapshot.",
          from_response_url_pattern: "^/v3/vessels/V-311$",
          from_status: 200,
          from_body_key: "berth",
          answer_field: "berth",
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
      ],
      constraints: [noV2],
      checkpoints: [],
    },
  },
  {
    position: 3,
    axis: "statefulness",
    difficulty: "medium",
    consumes: [1],
    ticket:
      "Technicians need a maintenance order for V-204 at `high` priority, recorded against the firmware build its telemetry unit currently runs (the create route rejects orders without `firmware_build`). Create it through the v3 maintenance-orders API, keep the new order's id in a local variable named `maintenance_order_id` so the night shift can find it, and read the order back from its own route to make sure it was persisted. Tell me the order id and the status the order shows when you read it back.",
    golden: [
      mintToken,
      {
        op: "execute",
        request: { method: "GET", url: "/v3/vessels/V-204", headers: bearer },
        capture: { firmware: "firmware_build" },
      },
      {
        op: "execute",
        request: {
          method: "POST",
          url: "/v3/maintenance-orders",
          headers: { ...bearer, "Content-Type": "application/json" },
          body: { vessel_id: "V-204", priority: "high", firmware_build: "{{firmware}}" },
        },
        capture: { order: "order_id" },
      },
      { op: "store", name: "maintenance_order_id", scope: "local", from: "order" },
      {
        op: "execute",
        request: { method: "GET", url: "/v3/maintenance-orders/{{order}}", headers: bearer },
        capture: { order: "order_id", status: "status" },
      },
      { op: "answer", fields: { order_id: "order", status: "status" } },
    ],
    grader: {
      answer: [
        {
          field: "order_id",
          comparator: "string",
          expected: { $canary: "maintenance-orders:id#1", format: "MO-{code}" },
          explain: "The id the create call minted for this trial.",
        },
        {
          field: "status",
          comparator: "string",
          expected: "queued",
          explain: "The persisted order's status.",
        },
      ],
      g1: [
        {
          kind: "data_flow",
          id: "order_id_stored_and_reused",
          explain: "The minted order id must be stored and used to read the order back.",
          from_response_url_pattern: "^/v3/maintenance-orders$",
          from_status: 201,
          from_body_key: "order_id",
          answer_field: "order_id",
          must_be_stored: true,
          used_in_request_url_pattern: "^/v3/maintenance-orders/MO-",
          used_in_slot: { in: "path" },
        },
        {
          kind: "data_flow",
          id: "firmware_carried_into_order",
          explain: "The order must carry the firmware build read from the canonical vessel route.",
          from_response_url_pattern: "^/v3/vessels/V-204$",
          from_status: 200,
          from_body_key: "firmware_build",
          must_be_stored: false,
          used_in_request_url_pattern: "^/v3/maintenance-orders$",
          used_in_slot: { in: "body", key: "firmware_build" },
        },
        {
          kind: "call",
          id: "order_for_v204_high",
          explain: "The order must be created for V-204 at high priority.",
          method: "POST",
          url_pattern: "^/v3/maintenance-orders$",
          status: 201,
          body_has_keys: [],
          sent: { vessel_id: "V-204", priority: "high" },
        },
        {
          kind: "call_count",
          id: "one_order",
          explain: "The technicians need one maintenance order: it is created once.",
          call: { method: "POST", url_pattern: "^/v3/maintenance-orders$", status: 201 },
          max: 1,
        },
        {
          kind: "workspace_value",
          id: "order_id_in_local",
          explain: "The night shift finds the order id in local variable maintenance_order_id.",
          name: "maintenance_order_id",
          scope: "local",
          value: { $canary: "maintenance-orders:id#1", format: "MO-{code}" },
        },
      ],
      constraints: [noV2],
      checkpoints: [
        {
          id: "read_back",
          explain: "A correct run reads the order back.",
          method: "GET",
          url_pattern: "^/v3/maintenance-orders/",
          status: 200,
        },
      ],
    },
  },
]);

function widened(
  storyline: Array<Subtask & { premises?: Premise[] }>,
): Array<Subtask & { premises?: Premise[] }> {
  return storyline.map((s) => ({
    ...s,
    grader: { ...s.grader, g1: withOtherSources(W, s.grader.g1, s.grader.constraints) },
  }));
}

const WORKSPACE: Task["workspace"] = {
  vault: {
    client_id: W.auth.client_id,
    client_secret: W.auth.client_secret,
    access_token: "tk_hb_STALE0917",
  },
  local: {},
  global: {},
};

/** The skeleton's four tasks: three solo subtasks and the chain `1to3`. */
export function harborTasks(): Task[] {
  return [
    ...HARBOR_STORYLINE.map((_, i) => composeSolo(W.id, HARBOR_STORYLINE, i + 1, WORKSPACE)),
    composeChain(W.id, HARBOR_STORYLINE, 3, WORKSPACE, {
      mode: "full",
      intro:
        "Harbour desk hand-over for tonight. Work through these in order; the later ones build on the earlier ones.",
      steps: [
        "The env token in the vault (`access_token`) went stale and the firmware audit of V-204 now gets 401 invalid_token; mint a fresh one from the client credentials in the vault and report V-204's live firmware build and release channel.",
        "The berth board reads V-311 from the deprecated `/v2` route and shows a wrong berth; use the published current route instead (stay off v2) and report V-311's berth and last port call.",
        "Open a `high` priority maintenance order for V-204 against the firmware build you found in step 1, keep its id in local variable `maintenance_order_id`, read it back from its own route, and report the order id and its status.",
      ],
    }),
  ];
}
