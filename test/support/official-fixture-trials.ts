import { createHash } from "node:crypto";

/**
 * The fixture trials of `official-fixtures.ts`, as data: seven tickets in four made-up worlds, five
 * made-up models with their message styles, and 27 trials, each with the grades 1.0 would record
 * (written out by hand). A comment above a trial says which shape of the published sample it shows.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Comparator = "string" | "numeric" | "set";

export interface AnswerField {
  field: string;
  expected: Json;
  comparator: Comparator;
  explain: string;
  quote: string;
}

interface G1Predicate {
  label: string;
  explain: string;
  detail: { [key: string]: Json };
  /** 1.0's words when it fails, after `first failure: `. */
  failure: string;
}

export interface Ticket {
  task: string;
  text: string;
  fields: AnswerField[];
  g1: G1Predicate[];
  checkpoints: Array<{ id: string; explain: string }>;
  /** The segment the graded predicates belong to (chains, graded selective), else null. */
  segment: number | null;
}

/** How a model writes its assistant messages. */
type Style = "signed" | "readable" | "string";

export interface Model {
  slug: string;
  api: string;
  style: Style;
  callId: (n: number, seed: string) => string;
}

const hash = (s: string) => createHash("sha256").update(s).digest();
const hex = (s: string, n: number) => hash(s).toString("hex").slice(0, n);
export const b64 = (s: string, n: number) => {
  let out = "";
  for (let i = 0; out.length < n; i++) out += hash(`${s}#${i}`).toString("base64");
  return out.slice(0, n);
};

export const MODELS: Record<string, Model> = {
  "atlas-large": {
    slug: "atlas-large",
    api: "anthropic/atlas-large",
    style: "signed",
    callId: (n, seed) => `toolu_01${b64(`${seed}${n}`, 22).replace(/[+/]/g, "x")}`,
  },
  "atlas-small": {
    slug: "atlas-small",
    api: "anthropic/atlas-small-20260101",
    style: "string",
    callId: (n, seed) => `toolu_01${b64(`${seed}${n}`, 22).replace(/[+/]/g, "y")}`,
  },
  "brook-7b": {
    slug: "brook-7b",
    api: "together/brook-ai/brook-7b-instruct",
    style: "string",
    callId: (n) => `call_${n}`,
  },
  "cinder-flash": {
    slug: "cinder-flash",
    api: "openai/cinder-flash",
    style: "readable",
    callId: (n, seed) => `call_${b64(`${seed}${n}`, 24).replace(/[+/]/g, "z")}`,
  },
  "delta-pro": {
    slug: "delta-pro",
    api: "fireworks/accounts/fireworks/models/delta-pro",
    style: "readable",
    callId: (n, seed) => `chatcmpl-tool-${hex(`${seed}${n}`, 16)}`,
  },
};

export const CARD_RULE = (fields: AnswerField[]) =>
  `When you have finished, report your final answer as a single JSON object inside a \`\`\`json code block, with exactly these field(s): ${fields
    .map((f) => `\`${f.field}\``)
    .join(", ")}. Use the exact field name(s) shown, and put each requested value as that field's value.`;

export const SYSTEM = [
  "You are an API engineering agent. You have 7 tools.",
  "",
  "# Tools",
  "",
  "- read(entity_ref, scope?)            — the full content of one entity",
  "- write(entity_ref, content, scope?)  — create or replace an entity",
  "- edit(entity_ref, patch)             — shallow-merge a patch into an entity",
  "- search(query, kind?)                — list matching entities and variables",
  "- execute(request | target, mode?)    — send one API call",
  "- clarify(question)                   — abstain: ask the user (ends the trial)",
  "- report_blocked(reason)              — abstain: the job cannot be done (ends the trial)",
  "",
  "Entity refs are typed: `{kind, id, parent?}`, kind ∈ request, response, variable, spec, handle.",
  "Variables live in three scopes: vault (secrets seeded by the task), local and global.",
].join("\n");

const plan = (extra: string) => `v3/plans/plan\\-7c2e\\-2201/${extra}`;

export const TICKETS: Record<string, Ticket> = {
  "v56-w01-sub02": {
    task: "v56-w01-sub02",
    text: "The commit on plan plan-7c2e-2201 died with a 503 halfway through and my token has gone stale since (401 token_expired). Mint a fresh bearer with the client credentials in the vault, finish the commit idempotently, and tell me the confirm status and how many controllers committed.",
    fields: [
      {
        field: "status",
        expected: "committed",
        comparator: "string",
        explain: "The confirm route reports committed once every controller has committed.",
        quote: "tell me the confirm status",
      },
      {
        field: "committed_count",
        expected: 3,
        comparator: "numeric",
        explain: "The working confirm shows committed_count 3 after the idempotent retry.",
        quote: "how many controllers committed",
      },
    ],
    g1: [
      {
        label: "data_flow#1",
        explain: "The status must come from the live confirm route, not be fabricated.",
        detail: {
          from_response_url_pattern: plan("confirm"),
          from_body_key: "status",
          from_status: 200,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
        failure: `data_flow predicate #1 failed: no response matched url~'${plan("confirm").replaceAll("\\", "\\\\")}' status in [200] carrying body key 'status'`,
      },
    ],
    checkpoints: [
      { id: "minted_fresh_bearer", explain: "A correct run mints a fresh bearer via client_credentials." },
      { id: "committed_idempotently", explain: "A correct run re-POSTs the commit with confirm:true." },
    ],
    segment: null,
  },
  "v56-w01-chain-1to03": {
    task: "v56-w01-chain-1to03",
    text: "Three jobs on the irrigation API, in order. 1) Get a bearer with the vault's client credentials. 2) Create a watering plan for field fl-12 on the v3 route (v1 is deprecated). 3) Read the plan back and tell me its id and how many controllers it drives.",
    fields: [
      {
        field: "plan_id",
        expected: "plan-7c2e-2201",
        comparator: "string",
        explain: "The id the v3 create route minted for the plan.",
        quote: "tell me its id",
      },
      {
        field: "controller_count",
        expected: 3,
        comparator: "numeric",
        explain: "The plan record lists three controllers.",
        quote: "how many controllers it drives",
      },
    ],
    g1: [
      {
        label: "data_flow#1",
        explain: "The plan id must come from the v3 create response and be used in the read.",
        detail: {
          from_response_url_pattern: "v3/plans",
          from_body_key: "id",
          from_status: 201,
          must_be_stored: false,
          used_in_request_url_pattern: "v3/plans/",
        },
        failure:
          "data_flow predicate #1 failed: value(s) ['plan-7c2e-2201'] were not used in any request to url~'v3/plans/'",
      },
    ],
    checkpoints: [
      { id: "got_bearer", explain: "A correct run obtains a client_credentials bearer first." },
      { id: "created_via_v3", explain: "A correct run hits the canonical v3 create route (201)." },
    ],
    segment: 3,
  },
  "v56-w02-sub05": {
    task: "v56-w02-sub05",
    text: "Our geofence report only showed the first page. For fleet fl-9, list every vehicle that crossed the depot fence (/v3/geofence-events is cursor-paginated) and the total the API reports.",
    fields: [
      {
        field: "vehicle_ids",
        expected: ["veh-3", "veh-11", "veh-27"],
        comparator: "set",
        explain: "The crossings are spread over three pages; one vehicle per page.",
        quote: "list every vehicle that crossed the depot fence",
      },
      {
        field: "total",
        expected: 41,
        comparator: "numeric",
        explain: "The list reports total 41 events on every page.",
        quote: "the total the API reports",
      },
    ],
    g1: [
      {
        label: "call#1",
        explain: "The last page must be fetched with the cursor of the one before it.",
        detail: { method: "GET", url_pattern: "v3/geofence-events\\?.*cursor=", status: [200], min_count: 2 },
        failure:
          "call predicate #1 failed: expected at least 2 call(s) GET url~'v3/geofence-events\\\\?.*cursor=' status in [200], saw 0",
      },
    ],
    checkpoints: [{ id: "followed_cursor", explain: "A correct run follows next_cursor to the last page." }],
    segment: null,
  },
  "v56-w02-chain-1to20": {
    task: "v56-w02-chain-1to20",
    text: "Last job of the week's telematics run (the earlier ones are in the notes). Vehicle veh-3's trip tr-881 needs closing: give me its live position_ref from the canonical positions route and the trip distance in km from /v3/trips (the legacy journeys route reports stale distances).",
    fields: [
      {
        field: "position_ref",
        expected: "pos-9f3a-7741",
        comparator: "string",
        explain: "Only the canonical /v3/positions surface returns position_ref.",
        quote: "give me its live position_ref",
      },
      {
        field: "distance_km",
        expected: 51.948,
        comparator: "numeric",
        explain: "The completed trip's distance from /v3/trips; the deprecated journeys route says 36.142.",
        quote: "the trip distance in km from /v3/trips",
      },
    ],
    g1: [
      {
        label: "data_flow#1",
        explain: "The position_ref must come from the canonical /v3/positions response.",
        detail: {
          from_response_url_pattern: "v3/positions",
          from_body_key: "positions.position_ref",
          from_status: 200,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
        failure:
          "data_flow predicate #1 failed: no response matched url~'v3/positions' status in [200] carrying body key 'positions.position_ref'",
      },
    ],
    checkpoints: [
      { id: "fetched_live_positions", explain: "A correct run reads veh-3 from /v3/positions." },
      { id: "read_canonical_trip", explain: "A correct run reads the trip from /v3/trips." },
    ],
    segment: 20,
  },
  "v56-w03-sub01": {
    task: "v56-w03-sub01",
    text: "Sanity check before the next dispatch run: do the v2 and v3 feed lists agree on the Metro Rail feed's identifier? Pull the Metro Rail entry from /v2/feeds and from /v3/feeds with the token in the vault and tell me the id each list reports. The two versions don't name the id field the same way.",
    fields: [
      {
        field: "v2_metro_id",
        expected: "feed-metro",
        comparator: "string",
        explain: "The v2 list reports the id under feedId.",
        quote: "tell me the id each list reports",
      },
      {
        field: "v3_metro_id",
        expected: "fd_0042",
        comparator: "string",
        explain: "The v3 list reports the id under id; feedId there is the legacy alias.",
        quote: "tell me the id each list reports",
      },
    ],
    g1: [
      {
        label: "data_flow#1",
        explain: "The v3 id must come from the v3 feeds response.",
        detail: {
          from_response_url_pattern: "v3/feeds",
          from_body_key: "feeds.id",
          from_status: 200,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
        failure:
          "data_flow predicate #1 failed: no response matched url~'v3/feeds' status in [200] carrying body key 'feeds.id'",
      },
    ],
    checkpoints: [
      { id: "fetched_v2_feeds", explain: "A correct run fetches the v2 feeds list." },
      { id: "fetched_v3_feeds", explain: "A correct run fetches the v3 feeds list." },
    ],
    segment: null,
  },
  "v56-w03-chain-1to04": {
    task: "v56-w03-chain-1to04",
    text: "Four steps on the transit feeds API. After re-registering the Metro Rail feed (steps 1–3), the status call keeps answering 429. Wait as the API tells you, read the feed's status, and tell me the status and the Retry-After the API asked for, in seconds.",
    fields: [
      {
        field: "status",
        expected: "active",
        comparator: "string",
        explain: "After the wait the feed reports active.",
        quote: "tell me the status",
      },
      {
        field: "retry_after_s",
        expected: 30,
        comparator: "numeric",
        explain: "The 429 carries Retry-After: 30.",
        quote: "the Retry-After the API asked for, in seconds",
      },
    ],
    g1: [
      {
        label: "call#1",
        explain: "The status read must succeed after the 429.",
        detail: { method: "GET", url_pattern: "v3/feeds/fd_0042/status", status: [200], min_count: 1 },
        failure:
          "call predicate #1 failed: expected at least 1 call(s) GET url~'v3/feeds/fd_0042/status' status in [200], saw 0",
      },
    ],
    checkpoints: [{ id: "waited_retry_after", explain: "A correct run waits as Retry-After says." }],
    segment: 4,
  },
  "v56-w04-sub03": {
    task: "v56-w04-sub03",
    text: "Our order intake call for customer cu-77 keeps bouncing with 422 (the body uses snake_case and the API wants camelCase, and deliveryWindow must be one of its enums). Fix the body, submit the order, and tell me the order reference and whether it was accepted.",
    fields: [
      {
        field: "order_ref",
        expected: "ord-55812",
        comparator: "string",
        explain: "The accepted order's reference from the 201 response.",
        quote: "tell me the order reference",
      },
      {
        field: "accepted",
        expected: "true",
        comparator: "string",
        explain: "The 201 response says accepted: true.",
        quote: "whether it was accepted",
      },
    ],
    g1: [
      {
        label: "data_flow#1",
        explain: "The order reference must come from the 201 create response.",
        detail: {
          from_response_url_pattern: "v2/orders",
          from_body_key: "orderRef",
          from_status: 201,
          must_be_stored: false,
          used_in_request_url_pattern: null,
        },
        failure:
          "data_flow predicate #1 failed: no response matched url~'v2/orders' status in [201] carrying body key 'orderRef'",
      },
    ],
    checkpoints: [{ id: "repaired_body", explain: "A correct run resends the body in camelCase." }],
    segment: null,
  },
};

/** What 1.0 recorded for one G2 field: the verdict, the value it read, and why it failed. */
export interface Recorded {
  passed: boolean;
  got?: Json;
  reason?: string;
}

const pass = (got: Json): Recorded => ({ passed: true, got });
const fail = (got: Json, reason: string): Recorded => ({ passed: false, got, reason });
const ABSENT: Recorded = { passed: false, reason: "field absent from the declared JSON answer card" };

/** One call the agent makes and what the tool answered (a string, or an error). */
export interface Call {
  name: string;
  args: { [key: string]: Json };
  result: string | { error: string };
}

export interface Turn {
  think?: string;
  text?: string;
  calls?: Call[];
}

export interface TrialSpec {
  model: keyof typeof MODELS;
  task: keyof typeof TICKETS;
  trial: number;
  turns: Turn[];
  /** The final assistant message; `calls` there means the trial was cut off on a tool call. */
  final: Turn | null;
  /** Unscored: 1.0 has no verdict (provider or harness errors). */
  unscored?: true;
  g1?: boolean[];
  g2?: Record<string, Recorded>;
  abstained?: { tool: "clarify" | "report_blocked"; text: string };
  tokens: [input: number, output: number, cache: number];
  seconds: number;
}

/** 1.0 tool payloads are Python `json.dumps` output: non-ASCII escaped as `\uXXXX`. */
const py = (value: Json): string =>
  JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

const response = (id: string, status: number, body: Json, headers: Record<string, string> = {}) =>
  py({
    ref: { kind: "response", id, parent: { kind: "request", id: `req-${id}` } },
    status,
    headers: { "content-type": "application/json", ...headers },
    body_preview: body,
  });

const VAULT = py([
  "spec:openapi",
  { kind: "variable", id: "client_id", scope: "vault" },
  { kind: "variable", id: "client_secret", scope: "vault" },
]);
const SPEC = (title: string) =>
  py({
    ref: "spec:openapi",
    content: { format: "openapi-3.1", title: `${title} API`, served_at: "/openapi.json" },
  });

const search: Call = { name: "search", args: { query: "" }, result: VAULT };
const readSpec = (title: string): Call => ({
  name: "read",
  args: { entity_ref: '{"kind": "spec", "id": "openapi"}' },
  result: SPEC(title),
});
const mint: Call = {
  name: "execute",
  args: {
    request:
      '{"protocol": "rest", "method": "POST", "url": "/v3/oauth/token", "body": {"grant_type": "client_credentials", "client_id": "{{client_id}}", "client_secret": "{{client_secret}}"}}',
  },
  result: response("r1", 200, { access_token: "tk_7f3e9a01", token_type: "bearer", expires_in: 300 }),
};
const get = (
  url: string,
  id: string,
  status: number,
  body: Json,
  headers: Record<string, string> = {},
): Call => ({
  name: "execute",
  args: { request: { protocol: "rest", method: "GET", url, headers: { Authorization: "Bearer {{token}}" } } },
  result: response(id, status, body, headers),
});
const post = (url: string, id: string, status: number, payload: Json, body: Json): Call => ({
  name: "execute",
  args: {
    request: {
      protocol: "rest",
      method: "POST",
      url,
      headers: { Authorization: "Bearer {{token}}" },
      body: payload,
    },
  },
  result: response(id, status, body),
});
const storeToken: Call = {
  name: "write",
  args: { entity_ref: { kind: "variable", id: "token" }, content: { value: "tk_7f3e9a01" }, scope: "local" },
  result: py({ scope: "local", name: "token", value: "tk_7f3e9a01" }),
};
const badRef: Call = {
  name: "read",
  args: { entity_ref: "variable/client_id" },
  result: {
    error:
      "Invalid entity_ref: 2 validation errors for EntityRef\nkind\n  Field required\nid\n  Field required",
  },
};
const card = (value: Json) => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;

const IRRIGO = "Irrigo Fields — irrigation plans and controllers";
const TRACKLINE = "Trackline Telematics — vehicle positions, trips and geofences";
const TRANSIT = "Metro Transit Feeds — feed registry for dispatch";
const PARCEL = "Parcelpost Orders — order intake";

const commitWork: Turn[] = [
  {
    think: "Inventory first: specs and vault variables.",
    text: "Let me look at the workspace.",
    calls: [search],
  },
  { text: "Reading the spec and minting a fresh bearer.", calls: [readSpec(IRRIGO), mint] },
  {
    text: "Finishing the commit with confirm:true, then reading the confirm route.",
    calls: [
      post(
        "/v3/plans/plan-7c2e-2201/commit",
        "r2",
        200,
        { confirm: true },
        { status: "committed", committed_count: 3 },
      ),
      get("/v3/plans/plan-7c2e-2201/confirm", "r3", 200, {
        status: "committed",
        committed_count: 3,
        controller_count: 3,
      }),
    ],
  },
];
const chainWork: Turn[] = [
  { text: "Getting a bearer.", calls: [search, mint, storeToken] },
  {
    text: "Creating the plan on v3.",
    calls: [post("/v3/plans", "r2", 201, { fieldId: "fl-12" }, { id: "plan-7c2e-2201", status: "draft" })],
  },
  {
    text: "Reading it back.",
    calls: [
      get("/v3/plans/plan-7c2e-2201", "r3", 200, {
        id: "plan-7c2e-2201",
        controllers: ["c-1", "c-2", "c-3"],
      }),
    ],
  },
];
const pageWork: Turn[] = [
  {
    text: "Token, then the first page.",
    calls: [
      search,
      mint,
      get("/v3/geofence-events?fleet=fl-9", "r2", 200, {
        events: [{ vehicle: "veh-3" }],
        total: 41,
        next_cursor: "c2",
      }),
    ],
  },
  {
    text: "Following the cursor.",
    calls: [
      get("/v3/geofence-events?fleet=fl-9&cursor=c2", "r3", 200, {
        events: [{ vehicle: "veh-11" }],
        total: 41,
        next_cursor: "c3",
      }),
    ],
  },
  {
    text: "And the last page.",
    calls: [
      get("/v3/geofence-events?fleet=fl-9&cursor=c3", "r4", 200, {
        events: [{ vehicle: "veh-27" }],
        total: 41,
        next_cursor: null,
      }),
    ],
  },
];
const tripWork: Turn[] = [
  { text: "Checking the spec for the canonical routes.", calls: [search, readSpec(TRACKLINE), mint] },
  {
    text: "Live position and the trip, both on v3.",
    calls: [
      get("/v3/positions?vehicle=veh-3", "r2", 200, {
        positions: [{ vehicle: "veh-3", position_ref: "pos-9f3a-7741" }],
      }),
      get("/v3/trips/tr-881", "r3", 200, { id: "tr-881", distance_km: 51.948, state: "completed" }),
    ],
  },
];
const feedWork: Turn[] = [
  { text: "Both lists, with the vault token.", calls: [search, readSpec(TRANSIT)] },
  {
    calls: [
      get("/v2/feeds", "r1", 200, { feeds: [{ feedId: "feed-metro", name: "Metro Rail" }] }),
      get("/v3/feeds", "r2", 200, { feeds: [{ id: "fd_0042", feedId: "feed-metro", name: "Metro Rail" }] }),
    ],
  },
];
const statusWork: Turn[] = [
  {
    text: "Status first.",
    calls: [
      search,
      get(
        "/v3/feeds/fd_0042/status",
        "r1",
        429,
        { error: "rate_limited", hint: "retry after 30 s" },
        { "retry-after": "30" },
      ),
    ],
  },
  {
    think: "The 429 says Retry-After: 30. Wait, then read again.",
    text: "Waiting 30 s as asked.",
    calls: [get("/v3/feeds/fd_0042/status", "r2", 200, { id: "fd_0042", status: "active" })],
  },
];
const orderWork: Turn[] = [
  { text: "Reading the spec for the order schema.", calls: [search, readSpec(PARCEL)] },
  {
    text: "Resending the body in camelCase with a valid delivery window.",
    calls: [
      post(
        "/v2/orders",
        "r1",
        422,
        { customer_id: "cu-77" },
        { error: "validation", detail: "customerId is required (camelCase)" },
      ),
      post(
        "/v2/orders",
        "r2",
        201,
        { customerId: "cu-77", deliveryWindow: "morning" },
        { orderRef: "ord-55812", accepted: true },
      ),
    ],
  },
];

/** The fixture trials. `shape` comments say what each one is here for. */
export const TRIALS: TrialSpec[] = [
  // atlas-large: opaque (signed) reasoning parts, parallel tool calls.
  {
    model: "atlas-large",
    task: "v56-w01-sub02",
    trial: 1,
    turns: commitWork,
    final: {
      think: "Done.",
      text: `The plan is committed.\n\n${card({ status: "committed", committed_count: 3 })}`,
    },
    g1: [true],
    g2: { status: pass("committed"), committed_count: pass(3) },
    tokens: [12, 911, 24480],
    seconds: 31.407,
  },
  {
    model: "atlas-large",
    task: "v56-w01-chain-1to03",
    trial: 2,
    turns: chainWork,
    final: { think: "All three steps done.", text: card({ plan_id: "plan-7c2e-2201", controller_count: 3 }) },
    g1: [true],
    g2: { plan_id: pass("plan-7c2e-2201"), controller_count: pass(3) },
    tokens: [9, 1204, 30112],
    seconds: 44.02,
  },
  {
    // A set in another order, and a number sent as a string: both pass.
    model: "atlas-large",
    task: "v56-w02-sub05",
    trial: 4,
    turns: pageWork,
    final: { think: "Three pages.", text: card({ vehicle_ids: ["veh-27", "veh-3", "veh-11"], total: "41" }) },
    g1: [true],
    g2: { vehicle_ids: pass(["veh-27", "veh-3", "veh-11"]), total: pass("41") },
    tokens: [14, 1433, 41007],
    seconds: 52.5,
  },
  {
    // The decoy's distance: G2 fails on one numeric field, G1 passes.
    model: "atlas-large",
    task: "v56-w02-chain-1to20",
    trial: 1,
    turns: [
      ...tripWork.slice(0, 1),
      {
        text: "Position from v3; the journeys route has the distance.",
        calls: [
          get("/v3/positions?vehicle=veh-3", "r2", 200, {
            positions: [{ vehicle: "veh-3", position_ref: "pos-9f3a-7741" }],
          }),
          get("/v1/journeys/tr-881", "r3", 200, { trip: "tr-881", km: 36.142 }),
        ],
      },
    ],
    final: { text: card({ position_ref: "pos-9f3a-7741", distance_km: 36.142 }) },
    g1: [true],
    g2: {
      position_ref: pass("pos-9f3a-7741"),
      distance_km: fail(36.142, "36.142 != 51.948 (tol ±0.01)"),
    },
    tokens: [20, 2210, 88002],
    seconds: 97.31,
  },
  {
    // Three ```json blocks: two quote response bodies, the last is the card.
    model: "atlas-large",
    task: "v56-w03-sub01",
    trial: 3,
    turns: feedWork,
    final: {
      think: "v2 uses feedId, v3 uses id.",
      text: [
        "The v2 list:",
        card({ feedId: "feed-metro", name: "Metro Rail" }),
        "The v3 list (feedId there is a legacy alias):",
        card({ id: "fd_0042", feedId: "feed-metro", name: "Metro Rail" }),
        "So they disagree:",
        card({ v2_metro_id: "feed-metro", v3_metro_id: "fd_0042" }),
      ].join("\n\n"),
    },
    g1: [true],
    g2: { v2_metro_id: pass("feed-metro"), v3_metro_id: pass("fd_0042") },
    tokens: [7, 702, 19833],
    seconds: 24.9,
  },

  // atlas-small: plain-string content; abstains.
  {
    model: "atlas-small",
    task: "v56-w01-sub02",
    trial: 2,
    turns: [{ text: "The workspace looks empty.", calls: [search] }],
    final: {
      text: "I need to know which plan you mean before I touch anything.",
      calls: [
        {
          name: "clarify",
          args: { question: "Which plan should I commit, and on which API version?" },
          result: "trial terminated (clarify): Which plan should I commit, and on which API version?",
        },
      ],
    },
    abstained: { tool: "clarify", text: "'Which plan should I commit, and on which API version?'" },
    g1: [false],
    g2: { status: ABSENT, committed_count: ABSENT },
    tokens: [8811, 402, 0],
    seconds: 9.2,
  },
  {
    model: "atlas-small",
    task: "v56-w02-sub05",
    trial: 1,
    turns: pageWork.slice(0, 1),
    final: {
      calls: [
        {
          name: "report_blocked",
          args: { reason: "The events list only returns one page; I cannot see the rest." },
          result:
            "trial terminated (report_blocked): The events list only returns one page; I cannot see the rest.",
        },
      ],
    },
    abstained: {
      tool: "report_blocked",
      text: '"The events list only returns one page; I cannot see the rest."',
    },
    g1: [false],
    g2: { vehicle_ids: ABSENT, total: ABSENT },
    tokens: [10422, 515, 0],
    seconds: 12.66,
  },
  {
    // A present null is a value, not an absent field.
    model: "atlas-small",
    task: "v56-w03-chain-1to04",
    trial: 5,
    turns: statusWork,
    final: { text: `Feed is active.\n${card({ status: "active", retry_after_s: null })}` },
    g1: [true],
    g2: { status: pass("active"), retry_after_s: fail(null, "value None is not numeric") },
    tokens: [15220, 640, 0],
    seconds: 40.01,
  },
  {
    // JSON true for the expected string "true": 1.0 compares str(v) lower-cased, so it passes.
    model: "atlas-small",
    task: "v56-w04-sub03",
    trial: 2,
    turns: orderWork,
    final: { text: `Order accepted.\n\n${card({ order_ref: "ord-55812", accepted: true })}` },
    g1: [true],
    g2: { order_ref: pass("ord-55812"), accepted: pass(true) },
    tokens: [13007, 733, 0],
    seconds: 21.75,
  },
  {
    // The legacy alias read on the v3 side: G1 and G2 both fail.
    model: "atlas-small",
    task: "v56-w03-sub01",
    trial: 1,
    turns: [
      feedWork[0]!,
      { calls: [get("/v2/feeds", "r1", 200, { feeds: [{ feedId: "feed-metro", name: "Metro Rail" }] })] },
    ],
    final: { text: card({ v2_metro_id: "feed-metro", v3_metro_id: "feed-metro" }) },
    g1: [false],
    g2: {
      v2_metro_id: pass("feed-metro"),
      v3_metro_id: fail("feed-metro", "'feed-metro' != expected 'fd_0042'"),
    },
    tokens: [9970, 388, 0],
    seconds: 11.4,
  },

  // brook-7b: string content, arguments in odd shapes, tool errors, a cut-off trial.
  {
    model: "brook-7b",
    task: "v56-w01-sub02",
    trial: 3,
    turns: [
      { text: "I will read the client id.", calls: [badRef] },
      { text: "Trying again.", calls: [search, mint] },
      {
        calls: [
          get("/v3/plans/plan-7c2e-2201/confirm", "r2", 503, { error: "partial write", committed_count: 2 }),
        ],
      },
    ],
    final: {
      text: `The commit is still in progress.\n\n${card({ status: "checking", committed_count: 2 })}`,
    },
    g1: [false],
    g2: {
      status: fail("checking", "'checking' != expected 'committed'"),
      committed_count: fail(2, "2.0 != 3.0 (tol ±0.01)"),
    },
    tokens: [40210, 2911, 0],
    seconds: 66.3,
  },
  {
    // Cut off on a tool call: the final assistant message holds no card, a tool result follows it.
    model: "brook-7b",
    task: "v56-w01-chain-1to03",
    trial: 1,
    turns: [chainWork[0]!, { calls: [badRef] }],
    final: {
      text: "Let me check the plans route again.",
      calls: [get("/v1/plans", "r2", 410, { error: "gone", hint: "use /v3/plans" })],
    },
    g1: [false],
    g2: { plan_id: ABSENT, controller_count: ABSENT },
    tokens: [52877, 3302, 0],
    seconds: 120.0,
  },
  {
    // A bare ``` fence and prose JSON are not cards.
    model: "brook-7b",
    task: "v56-w02-chain-1to20",
    trial: 5,
    turns: tripWork,
    final: {
      text: 'Here it is:\n```\n{"position_ref": "pos-9f3a-7741", "distance_km": 51.948}\n```\nor as JSON: {"position_ref": "pos-9f3a-7741"}',
    },
    g1: [true],
    g2: { position_ref: ABSENT, distance_km: ABSENT },
    tokens: [61020, 1877, 0],
    seconds: 88.8,
  },
  {
    model: "brook-7b",
    task: "v56-w04-sub03",
    trial: 4,
    turns: orderWork,
    final: { text: card({ order_ref: "ord-55812", accepted: "true" }) },
    g1: [true],
    g2: { order_ref: pass("ord-55812"), accepted: pass("true") },
    tokens: [30003, 1250, 0],
    seconds: 35.05,
  },
  {
    // A set given as a comma-separated string, one element short.
    model: "brook-7b",
    task: "v56-w02-sub05",
    trial: 2,
    turns: pageWork.slice(0, 2),
    final: { text: card({ vehicle_ids: "veh-3, veh-11", total: 41 }) },
    g1: [false],
    g2: {
      vehicle_ids: fail("veh-3, veh-11", "set ['veh-11', 'veh-3'] != expected ['veh-11', 'veh-27', 'veh-3']"),
      total: pass(41),
    },
    tokens: [27761, 990, 0],
    seconds: 30.31,
  },

  // cinder-flash: readable reasoning parts.
  {
    // The card drafted in the reasoning only: reasoning is not the answer, both fields are absent.
    model: "cinder-flash",
    task: "v56-w01-sub02",
    trial: 4,
    turns: commitWork,
    final: {
      think: `Answer:\n${card({ status: "committed", committed_count: 3 })}`,
      text: "Done — the plan is committed and all three controllers are in.",
    },
    g1: [true],
    g2: { status: ABSENT, committed_count: ABSENT },
    tokens: [3310, 1802, 12288],
    seconds: 28.6,
  },
  {
    model: "cinder-flash",
    task: "v56-w03-sub01",
    trial: 2,
    turns: feedWork,
    final: { think: "v2 feedId, v3 id.", text: card({ v2_metro_id: "feed-metro", v3_metro_id: "fd_0042" }) },
    g1: [true],
    g2: { v2_metro_id: pass("feed-metro"), v3_metro_id: pass("fd_0042") },
    tokens: [2950, 610, 8192],
    seconds: 14.3,
  },
  {
    // A bare fence quoting the response, then the ```json card.
    model: "cinder-flash",
    task: "v56-w03-chain-1to04",
    trial: 1,
    turns: statusWork,
    final: {
      think: "Waited, then 200.",
      text: `The API answered:\n\`\`\`\n{"id": "fd_0042", "status": "active"}\n\`\`\`\n${card({ status: "active", retry_after_s: 30 })}`,
    },
    g1: [true],
    g2: { status: pass("active"), retry_after_s: pass(30) },
    tokens: [4012, 877, 16384],
    seconds: 63.2,
  },
  {
    // Case and spaces ignored on strings; a numeric string within ±0.01.
    model: "cinder-flash",
    task: "v56-w02-chain-1to20",
    trial: 3,
    turns: tripWork,
    final: { think: "Rounded.", text: card({ position_ref: " POS-9F3A-7741 ", distance_km: "51.95" }) },
    g1: [true],
    g2: { position_ref: pass(" POS-9F3A-7741 "), distance_km: pass("51.95") },
    tokens: [5120, 1333, 20480],
    seconds: 71.9,
  },
  {
    // The card (last block) does not parse: no card. The quoted response before it parses and holds
    // `accepted`, but the broken card holds both declared fields as written, so it stays the card.
    model: "cinder-flash",
    task: "v56-w04-sub03",
    trial: 1,
    turns: orderWork,
    final: {
      think: "Quote the response, then the card.",
      text: `Response:\n${card({ orderRef: "ord-55812", accepted: true })}\nAnswer:\n\`\`\`json\n{"order_ref": "ord-55812", "accepted": "true",}\n\`\`\``,
    },
    g1: [true],
    g2: { order_ref: ABSENT, accepted: ABSENT },
    tokens: [3001, 705, 8192],
    seconds: 19.0,
  },
  {
    model: "cinder-flash",
    task: "v56-w02-sub05",
    trial: 3,
    turns: pageWork,
    final: { text: card({ vehicle_ids: ["veh-3", "veh-11", "veh-27"], total: "forty-one" }) },
    g1: [true],
    g2: {
      vehicle_ids: pass(["veh-3", "veh-11", "veh-27"]),
      total: fail("forty-one", "value 'forty-one' is not numeric"),
    },
    tokens: [4444, 1010, 16384],
    seconds: 47.47,
  },

  {
    // The right card without the labour (the plan never read back by its id): a G1-only failure.
    model: "cinder-flash",
    task: "v56-w01-chain-1to03",
    trial: 5,
    turns: chainWork.slice(0, 2),
    final: {
      think: "The create response had it all.",
      text: card({ plan_id: "plan-7c2e-2201", controller_count: 3 }),
    },
    g1: [false],
    g2: { plan_id: pass("plan-7c2e-2201"), controller_count: pass(3) },
    tokens: [3900, 1122, 8192],
    seconds: 26.26,
  },

  // delta-pro: two unscored trials (provider errors: 1.0 recorded no verdict).
  {
    model: "delta-pro",
    task: "v56-w01-chain-1to03",
    trial: 3,
    unscored: true,
    turns: [
      { think: "Read the vault.", text: "Reading the vault variables.", calls: [badRef] },
      {
        think: "Something is off with the arguments.",
        text: "Trying the scope parameter.",
        calls: [
          {
            ...badRef,
            args: {
              entity_ref: { kind: "variable", id: "client_id" },
              scope: '">scope</arg_key><arg_value>vault</arg_value>',
            },
          },
        ],
      },
    ],
    final: null,
    tokens: [201443, 131197, 209920],
    seconds: 717.525,
  },
  {
    model: "delta-pro",
    task: "v56-w02-chain-1to20",
    trial: 2,
    unscored: true,
    turns: [{ think: "Start with the spec.", calls: [search, readSpec(TRACKLINE)] }],
    final: {
      think: "Need a token.",
      text: "Minting a token.",
      calls: [{ ...mint, result: { error: "upstream provider error: 529 overloaded" } }],
    },
    tokens: [98012, 20441, 65536],
    seconds: 402.11,
  },
  {
    model: "delta-pro",
    task: "v56-w03-sub01",
    trial: 5,
    turns: feedWork,
    final: {
      think: "Two ids.",
      text: `Both lists:\n${card({ v2_metro_id: "feed-metro", v3_metro_id: "fd_0042" })}`,
    },
    g1: [true],
    g2: { v2_metro_id: pass("feed-metro"), v3_metro_id: pass("fd_0042") },
    tokens: [6021, 1402, 4096],
    seconds: 33.3,
  },
  {
    model: "delta-pro",
    task: "v56-w03-chain-1to04",
    trial: 2,
    turns: statusWork.slice(0, 1),
    final: { think: "429, give up on the status.", text: card({ status: null, retry_after_s: 30 }) },
    g1: [false],
    g2: { status: fail(null, "None != expected 'active'"), retry_after_s: pass(30) },
    tokens: [7311, 955, 4096],
    seconds: 18.18,
  },
  {
    model: "delta-pro",
    task: "v56-w01-sub02",
    trial: 5,
    turns: commitWork,
    final: { think: "Committed, 3 of 3.", text: card({ status: "Committed", committed_count: 3 }) },
    g1: [true],
    g2: { status: pass("Committed"), committed_count: pass(3) },
    tokens: [8802, 1650, 12288],
    seconds: 39.9,
  },
];
