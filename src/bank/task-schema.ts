import { z } from "zod";
import { JsonValueSchema } from "./json.js";
import { PremiseSchema } from "./premise-schema.js";
import { VersioningSchema } from "./versioning-schema.js";

/** The seven capability axes. */
export const AxisSchema = z.enum([
  "auth",
  "discovery",
  "schema_repair",
  "multistep",
  "error_recovery",
  "pagination",
  "statefulness",
]);
export type Axis = z.infer<typeof AxisSchema>;

/**
 * An expected value: a literal, or a canary reference resolved per trial from the trial seed, so a
 * transcript from another trial or a released answer key does not pass.
 */
export const CanaryRefSchema = z.strictObject({
  $canary: z.string().min(1),
  /** How the value looks: `{code}` is replaced by six seeded characters, e.g. `FW-{code}`. */
  format: z.string().includes("{code}").optional(),
});
export type CanaryRef = z.infer<typeof CanaryRefSchema>;

/** A scalar a record selector compares a field with: a literal or a canary reference. */
export const WhereValueSchema = z.union([CanaryRefSchema, z.string(), z.number(), z.boolean(), z.null()]);
export type WhereValue = z.infer<typeof WhereValueSchema>;

/**
 * Records of one resource named by their role in the world's state at the end of the trial: every
 * record whose fields equal `where` (canary references resolved for the trial). `role` says in
 * words which record the grader means, for failure reasons ("the run opened for S-12").
 *
 * @example RecordSelectorSchema.parse({ resource: "runs", where: { sample_id: "S-12", status: "confirmed" }, role: "the run confirmed for S-12" })
 */
export const RecordSelectorSchema = z.strictObject({
  resource: z.string().min(1),
  where: z.record(z.string(), WhereValueSchema),
  role: z.string().min(1).optional(),
});
export type RecordSelector = z.infer<typeof RecordSelectorSchema>;

/**
 * An expected value taken from a record by its role in the final state, never by creation order:
 * the value of `field` of the one record `$record` selects when the trial ends. No record, or more
 * than one, leaves it unresolved, and whatever compares with it fails naming the record meant. An
 * extra failed or abandoned create does not move it.
 *
 * @example RecordRefSchema.parse({ $record: { resource: "runs", where: { sample_id: "S-12" } }, field: "run_id" })
 */
export const RecordRefSchema = z.strictObject({
  $record: RecordSelectorSchema,
  field: z.string().min(1),
});
export type RecordRef = z.infer<typeof RecordRefSchema>;

/**
 * An expected value: a literal, a canary reference (minted per trial) or a record reference
 * (resolved from the final state). An object with a `$record` key must be a valid record
 * reference: a malformed one is refused rather than read as a literal object.
 */
export const ExpectedValueSchema = z
  .union([CanaryRefSchema, RecordRefSchema, JsonValueSchema])
  .refine(
    (v) =>
      v === null ||
      typeof v !== "object" ||
      Array.isArray(v) ||
      !Object.hasOwn(v, "$record") ||
      RecordRefSchema.safeParse(v).success,
    { message: "a $record reference needs {$record: {resource, where}, field}" },
  );
export type ExpectedValue = z.infer<typeof ExpectedValueSchema>;

/**
 * A regular expression in a grader (URL patterns): it must compile, or the bank does not load. An
 * empty pattern matches every URL, so a predicate holding one would accept any call: refused too.
 */
export const PatternSchema = z
  .string()
  .min(1, "an empty pattern would match every URL")
  .refine(
    (p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    },
    { message: "not a valid regular expression" },
  );

export const ComparatorSchema = z.enum(["string", "numeric", "set", "boolean"]);
export type Comparator = z.infer<typeof ComparatorSchema>;

/** One field of the typed answer card the ticket asks for (G2). */
export const AnswerFieldSchema = z.strictObject({
  field: z.string().min(1),
  comparator: ComparatorSchema,
  expected: ExpectedValueSchema,
  /** Absolute tolerance for `numeric`; default ±0.01. */
  tolerance: z.number().nonnegative().optional(),
  explain: z.string().default(""),
  segment: z.number().int().positive().optional(),
  /** The id of the ticket requirement this field holds, when it holds one. */
  requirement: z.string().min(1).optional(),
});
export type AnswerField = z.infer<typeof AnswerFieldSchema>;

const explained = {
  id: z.string().min(1),
  explain: z.string().default(""),
  segment: z.number().int().positive().optional(),
  /** The id of the ticket requirement this holds (see `RequirementSchema`): failure reasons name it. */
  requirement: z.string().min(1).optional(),
};

/**
 * Where in a request a value must go (URLs in their canonical form, see the event log):
 * - `path`: a whole segment of the path (a route parameter: the URL pattern fixes the rest);
 * - `query`: the query parameter `name`;
 * - `body`: the JSON body at `key` (dotted, through arrays);
 * - `header`: the header `name` (any case), whole or after a scheme (`Bearer <value>`), or through
 *   the digest of a credential header the log redacts.
 * A value anywhere else in the request does not count.
 *
 * @example UseSlotSchema.parse({ in: "body", key: "asset_link" })
 */
export const UseSlotSchema = z.discriminatedUnion("in", [
  z.strictObject({ in: z.literal("path") }),
  z.strictObject({ in: z.literal("query"), name: z.string().min(1) }),
  z.strictObject({ in: z.literal("body"), key: z.string().min(1) }),
  z.strictObject({ in: z.literal("header"), name: z.string().min(1) }),
]);
export type UseSlot = z.infer<typeof UseSlotSchema>;

/**
 * Another response that serves the same record's value as a data flow's own source: the record's
 * collection listing, a search, a nested or parent route (canonical routes only; the generator
 * lists them from the world). The value at `body_key` counts only when the object holding it has
 * every field of `where` (the record among a listing's items).
 *
 * @example { url_pattern: "^/v3/vessels(\\?.*)?$", status: 200, body_key: "vessels.berth", where: { vessel_id: "V-412" } }
 */
export const OtherSourceSchema = z.strictObject({
  url_pattern: PatternSchema,
  status: z.number().int(),
  body_key: z.string().min(1),
  where: z.record(z.string(), WhereValueSchema).optional(),
});
export type OtherSource = z.infer<typeof OtherSourceSchema>;

/**
 * G1 data flow: a response whose URL matches `from_response_url_pattern` (a regular expression)
 * with status `from_status` carries at `from_body_key` (dotted, through arrays) the decisive value,
 * which must then reach the answer card field `answer_field`, and where required a stored variable
 * and a later request to `used_in_request_url_pattern`, in the slot `used_in_slot`. (A grader
 * without the slot, from before it existed, accepts the value anywhere in that request; the
 * certification of a bank refuses such a grader.) `also_from` lists other routes that serve the
 * same record's value, and `also_used_in` other requests that read the same record (a header slot
 * only): a careful agent may read the record through either.
 */
export const DataFlowPredicateSchema = z.strictObject({
  kind: z.literal("data_flow"),
  ...explained,
  from_response_url_pattern: PatternSchema,
  from_status: z.number().int(),
  from_body_key: z.string(),
  answer_field: z.string().optional(),
  must_be_stored: z.boolean().default(false),
  used_in_request_url_pattern: PatternSchema.nullable().default(null),
  used_in_slot: UseSlotSchema.optional(),
  also_from: z.array(OtherSourceSchema).optional(),
  also_used_in: z.array(PatternSchema).optional(),
});

/**
 * G1 call: a response to a request matching method / URL pattern / status. A write names what it
 * sent and where: `sent` maps a dotted key of the request body to the value it must carry there,
 * and `target` is a value (an id, a canary for a minted one) that must be a whole segment of the
 * request path, the record written. `body_has_keys` are keys the *response* body must carry: for
 * reads only (a write's response echoes its keys whatever was sent; certification refuses a write
 * checked that way).
 */
export const CallPredicateSchema = z.strictObject({
  kind: z.literal("call"),
  ...explained,
  method: z.string().optional(),
  url_pattern: PatternSchema,
  status: z.number().int().optional(),
  body_has_keys: z.array(z.string()).default([]),
  sent: z.record(z.string(), ExpectedValueSchema).optional(),
  target: ExpectedValueSchema.optional(),
});

/**
 * Which exchanges of the log a predicate means: method (any case; absent matches any), URL pattern
 * (canonical URL), status; `target` a value that must be a whole segment of the request path (the
 * exact record, not any record of the collection); `sent` dotted request-body keys → the value each
 * must carry; `returned` dotted response-body keys → the value each must carry; `headers` request
 * header names (any case) → the value each must carry, whole (an idempotency key the ticket names).
 *
 * @example CallMatchSchema.parse({ method: "PATCH", url_pattern: "^/v2/notes/[^/]+$", status: 200, target: "CN-12", sent: { status: "settled" } })
 */
export const CallMatchSchema = z.strictObject({
  method: z.string().optional(),
  url_pattern: PatternSchema,
  status: z.number().int().optional(),
  target: ExpectedValueSchema.optional(),
  sent: z.record(z.string(), ExpectedValueSchema).optional(),
  returned: z.record(z.string(), ExpectedValueSchema).optional(),
  headers: z.record(z.string(), ExpectedValueSchema).optional(),
});
export type CallMatch = z.infer<typeof CallMatchSchema>;

/**
 * G1 call count: the number of exchanges matching `call` lies within `min`..`max` (at most n:
 * `max`; exactly n: both). A create or a mint repeated where the ticket asks for one breaks it.
 *
 * @example { kind: "call_count", id: "one_create", explain: "", call: { method: "POST", url_pattern: "^/v2/runs$", status: 201 }, max: 1 }
 */
export const CallCountPredicateSchema = z
  .strictObject({
    kind: z.literal("call_count"),
    ...explained,
    call: CallMatchSchema,
    min: z.number().int().nonnegative().optional(),
    max: z.number().int().nonnegative().optional(),
  })
  .refine((p) => p.min !== undefined || p.max !== undefined, { message: "a call count needs min or max" })
  .refine((p) => p.min === undefined || p.max === undefined || p.min <= p.max, {
    message: "a call count's min exceeds its max",
  });

/**
 * G1 ordering: an exchange matching `after` happens, and the first one is preceded by an exchange
 * matching `before` — at least `min_wait_seconds` logical seconds earlier when set (every request
 * ticks the clock by one second, an `x-apiflow-wait` by its seconds). Two dependent steps swapped,
 * or a required wait dropped, breaks it.
 *
 * @example { kind: "order", id: "polled_first", explain: "", before: { method: "GET", url_pattern: "^/jobs/[^/]+$", returned: { state: "awaiting_confirmation" } }, after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$", status: 200 } }
 */
export const OrderPredicateSchema = z.strictObject({
  kind: z.literal("order"),
  ...explained,
  before: CallMatchSchema,
  after: CallMatchSchema,
  min_wait_seconds: z.number().int().positive().optional(),
  /**
   * Measure from the first `before` exchange to the first `after` exchange that follows it, and
   * ignore `after` exchanges before it (a sweep's pause: the read after the pause may be taken
   * through a listing, which the agent may also have read earlier for another record). Default:
   * the first `after` exchange must itself follow a `before` (a swap breaks it).
   */
  from_first_before: z.literal(true).optional(),
  /**
   * The `before` exchange must address the record the `after` one does: the last segment of its
   * path (the record's id) is a segment of the `after` path (poll job J, then confirm job J; a
   * poll of a sibling job does not count).
   */
  same_record: z.literal(true).optional(),
});

/**
 * What an end-state predicate expects of the records its selector picks when the trial ends:
 * - `field`: exactly one record is selected and its `field` equals `value`;
 * - `absent`: no record is selected (deleted, or never written);
 * - `count`: the number selected lies within `min`..`max`.
 */
export const EndStateExpectSchema = z.discriminatedUnion("is", [
  z.strictObject({ is: z.literal("field"), field: z.string().min(1), value: ExpectedValueSchema }),
  z.strictObject({ is: z.literal("absent") }),
  z
    .strictObject({
      is: z.literal("count"),
      min: z.number().int().nonnegative().optional(),
      max: z.number().int().nonnegative().optional(),
    })
    .refine((c) => c.min !== undefined || c.max !== undefined, { message: "a count needs min or max" }),
]);
export type EndStateExpect = z.infer<typeof EndStateExpectSchema>;

/**
 * G1 end state: the world's records when the trial ends (not the calls that led there): a record's
 * field, a record absent, how many records are in a state.
 *
 * @example { kind: "end_state", id: "note_settled", explain: "", record: { resource: "notes", where: { note_id: "CN-12" } }, expect: { is: "field", field: "status", value: "settled" } }
 */
export const EndStatePredicateSchema = z.strictObject({
  kind: z.literal("end_state"),
  ...explained,
  record: RecordSelectorSchema,
  expect: EndStateExpectSchema,
});

/**
 * G1 covered: every one of `ids` was shown at `body_key` (dotted, through arrays) by some 200
 * response to a GET whose URL matches any of `url_patterns`: the whole collection read through to
 * its end, in any order, at any page size, through any of the listings the patterns admit (the
 * paged listing, a category registry that lists a category in one call). A walk stopped at the
 * winner's page leaves ids unseen and fails.
 *
 * @example { kind: "covered", id: "whole_listing_read", explain: "", url_patterns: ["^/v3/vessels(\\?.*)?$"], body_key: "vessels.vessel_id", ids: ["V-1", "V-2"] }
 */
export const CoveredPredicateSchema = z.strictObject({
  kind: z.literal("covered"),
  ...explained,
  url_patterns: z.array(PatternSchema).min(1),
  body_key: z.string().min(1),
  ids: z.array(z.string()).min(1),
});

/** G1 workspace value: a variable in local or global scope holds this value at the end. */
export const WorkspaceValuePredicateSchema = z.strictObject({
  kind: z.literal("workspace_value"),
  ...explained,
  name: z.string(),
  scope: z.enum(["local", "global", "any"]).default("any"),
  value: ExpectedValueSchema,
});

export const G1PredicateSchema = z.discriminatedUnion("kind", [
  DataFlowPredicateSchema,
  CallPredicateSchema,
  WorkspaceValuePredicateSchema,
  CallCountPredicateSchema,
  OrderPredicateSchema,
  EndStatePredicateSchema,
  CoveredPredicateSchema,
]);
export type G1Predicate = z.infer<typeof G1PredicateSchema>;
/** The kinds of G1 predicate, for results and reports. */
export const G1_PREDICATE_KINDS = [
  "data_flow",
  "call",
  "workspace_value",
  "call_count",
  "order",
  "end_state",
  "covered",
] as const satisfies readonly G1Predicate["kind"][];

/** A forbidden call: any request matching it violates the constraint and fails the trial. */
export const ForbidConstraintSchema = z.strictObject({
  kind: z.literal("forbid"),
  ...explained,
  method: z.string().optional(),
  url_pattern: PatternSchema,
});
export type ForbidConstraint = z.infer<typeof ForbidConstraintSchema>;

/** A labour milestone, reported for diagnosis and never gating. */
export const CheckpointSchema = z.strictObject({
  ...explained,
  method: z.string().optional(),
  url_pattern: PatternSchema,
  status: z.number().int().optional(),
});
export type Checkpoint = z.infer<typeof CheckpointSchema>;

export const GraderSpecSchema = z.strictObject({
  answer: z.array(AnswerFieldSchema).min(1),
  g1: z.array(G1PredicateSchema).min(1),
  constraints: z.array(ForbidConstraintSchema).default([]),
  checkpoints: z.array(CheckpointSchema).default([]),
  /** Chains only: `selective` grades the final segment plus consumed ones; `full` grades all. */
  chain_mode: z.enum(["selective", "full"]).optional(),
});
export type GraderSpec = z.infer<typeof GraderSpecSchema>;

const requirementBase = {
  /** Unique within the subtask (a chain prefixes none: segments are told apart by `segment`). */
  id: z.string().min(1),
  /** The ticket's sentence stating it, rendered from this object (the ticket contains it verbatim). */
  sentence: z.string().min(1).optional(),
  /**
   * The requirement in brief, as a chain's step states it (the step contains it verbatim); without
   * one the chain states `sentence`.
   */
  brief: z.string().min(1).optional(),
  /**
   * What holds it: ids of G1 predicates and forbid constraints of the same grader, and answer
   * fields as `answer:<field>`. Certification refuses a requirement that names none, or a name
   * the grader does not have.
   */
  predicates: z.array(z.string().min(1)),
  segment: z.number().int().positive().optional(),
};

/**
 * One requirement of a ticket, stated once as data: what must be true in the world or in the calls.
 * The template renders the ticket's sentence from it and derives the predicates that hold it; the
 * requirement-mutants gate derives from it the golden broken in this requirement alone, which must
 * fail naming it. Kinds, with what a mutant does to break each:
 * - `value_written`: the write `call` sends `value` at body `key`, or in the request header `key`
 *   when `in` is `header` (mutant: writes one of `alternatives`, other values the API accepts there);
 * - `exact_target`: the `call` is aimed at `target` (mutant: at one of `siblings`, other records
 *   of the collection);
 * - `call_count`: exchanges matching `call` number `min`..`max` (mutant: the call repeated, e.g. a
 *   create or a mint, or dropped);
 * - `ordering`: `before` precedes `after`, by at least `min_wait_seconds` when set (mutant: the two
 *   swapped, the `before` step or the wait dropped);
 * - `end_state`: the records `record` selects end as `expect` says (mutant: another value written,
 *   a sibling changed, the record left in place);
 * - `value_flow`: a value travels from the response that shows it to where it must go (mutant: a
 *   fabricated value);
 * - `report`: the answer card carries `fields` (mutant: a field wrong or missing);
 * - `stay_canonical`: no call to a decoy or forbidden route (mutant: a decoy read).
 *
 * @example RequirementSchema.parse({ id: "note_settled", kind: "value_written", sentence: "Move CN-12 to `settled`.", predicates: ["status_moved"], call: { method: "PATCH", url_pattern: "^/v2/notes/[^/]+$" }, key: "status", value: "settled", alternatives: ["approved"] })
 */
export const RequirementSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("value_written"),
    ...requirementBase,
    call: CallMatchSchema,
    key: z.string().min(1),
    /** Where `key` is: the request body (default) or a request header. */
    in: z.literal("header").optional(),
    value: ExpectedValueSchema,
    alternatives: z.array(ExpectedValueSchema).default([]),
  }),
  z.strictObject({
    kind: z.literal("exact_target"),
    ...requirementBase,
    call: CallMatchSchema,
    target: ExpectedValueSchema,
    siblings: z.array(ExpectedValueSchema).default([]),
  }),
  z.strictObject({
    kind: z.literal("call_count"),
    ...requirementBase,
    call: CallMatchSchema,
    min: z.number().int().nonnegative().optional(),
    max: z.number().int().nonnegative().optional(),
  }),
  z.strictObject({
    kind: z.literal("ordering"),
    ...requirementBase,
    before: CallMatchSchema,
    after: CallMatchSchema,
    min_wait_seconds: z.number().int().positive().optional(),
    /** As on the order predicate: measured from the first `before` to the next `after`. */
    from_first_before: z.literal(true).optional(),
    /** As on the order predicate: `before` addresses the record `after` does (mutant: a sibling's `before`). */
    same_record: z.literal(true).optional(),
  }),
  z.strictObject({
    kind: z.literal("end_state"),
    ...requirementBase,
    record: RecordSelectorSchema,
    expect: EndStateExpectSchema,
  }),
  z.strictObject({ kind: z.literal("value_flow"), ...requirementBase }),
  z.strictObject({
    kind: z.literal("report"),
    ...requirementBase,
    fields: z.array(z.string().min(1)).min(1),
  }),
  z.strictObject({ kind: z.literal("stay_canonical"), ...requirementBase }),
]);
export type Requirement = z.infer<typeof RequirementSchema>;
export type RequirementKind = Requirement["kind"];

/** A golden REST request (no `protocol`, or `"rest"`): the HTTP call as the agent would send it. */
export const GoldenRestRequestSchema = z.strictObject({
  protocol: z.literal("rest").optional(),
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), z.string()).optional(),
  body: JsonValueSchema.optional(),
  /** Sign it with the workspace's signer (see the `execute` tool's `sign`); placeholders resolved by the workspace. */
  sign: z
    .strictObject({ secret: z.string(), header: z.string().optional(), nonce_header: z.string().optional() })
    .optional(),
});
export type GoldenRestRequest = z.infer<typeof GoldenRestRequestSchema>;

/** A golden GraphQL operation, sent as `execute({request: {protocol: "graphql", …}})` to a GraphQL world. */
export const GoldenGraphqlRequestSchema = z.strictObject({
  protocol: z.literal("graphql"),
  query: z.string().min(1),
  variables: z.record(z.string(), JsonValueSchema).optional(),
  operationName: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/** A golden MCP tool call, sent as `execute({request: {protocol: "mcp", …}})` to an MCP world. */
export const GoldenMcpRequestSchema = z.strictObject({
  protocol: z.literal("mcp"),
  tool: z.string().min(1),
  arguments: z.record(z.string(), JsonValueSchema).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/**
 * What a golden `execute_native` step sends to a world served as GraphQL or MCP: the request
 * content of the `execute` tool in that protocol. (REST steps keep the `execute` op, so code that
 * reads `step.request.url` of `execute` steps holds for every bank.)
 *
 * @example GoldenNativeRequestSchema.parse({ protocol: "mcp", tool: "get_truck", arguments: { truck_id: "T-1" } })
 */
export const GoldenNativeRequestSchema = z.discriminatedUnion("protocol", [
  GoldenGraphqlRequestSchema,
  GoldenMcpRequestSchema,
]);
export type GoldenNativeRequest = z.infer<typeof GoldenNativeRequestSchema>;

/**
 * A golden solution is a short program over the seven tools, written as data so a bank never
 * carries code. `$` paths in strings such as `{{name}}` are resolved by the workspace like any
 * agent's placeholders; `capture` reads a value out of the last response into a golden-local
 * binding, `store` writes a binding to a workspace variable, `answer` ends with the card.
 */
export const GoldenStepSchema = z.discriminatedUnion("op", [
  z.strictObject({
    op: z.literal("execute"),
    request: GoldenRestRequestSchema,
    /** Bindings taken from this response: name → dotted body path. */
    capture: z.record(z.string(), z.string()).default({}),
  }),
  z.strictObject({
    op: z.literal("execute_native"),
    request: GoldenNativeRequestSchema,
    /** Bindings taken from the response the workspace stores (GraphQL `data.…`, MCP `structuredContent.…`). */
    capture: z.record(z.string(), z.string()).default({}),
  }),
  z.strictObject({
    op: z.literal("store"),
    name: z.string(),
    scope: z.enum(["local", "global"]).default("local"),
    /** A binding captured earlier. */
    from: z.string(),
  }),
  z.strictObject({ op: z.literal("read_spec") }),
  z.strictObject({
    op: z.literal("answer"),
    /** Answer field → binding name. */
    fields: z.record(z.string(), z.string()),
  }),
]);
export type GoldenStep = z.infer<typeof GoldenStepSchema>;

export const VariableSeedSchema = z.strictObject({
  vault: z.record(z.string(), JsonValueSchema).default({}),
  local: z.record(z.string(), JsonValueSchema).default({}),
  global: z.record(z.string(), JsonValueSchema).default({}),
});

/** One job inside a world: position k of the storyline. */
export const SubtaskSchema = z.strictObject({
  position: z.number().int().positive(),
  axis: AxisSchema,
  difficulty: z.enum(["easy", "medium", "hard"]),
  /** Ids this subtask consumes from earlier positions (coupling); empty when independent. */
  consumes: z.array(z.number().int().positive()).default([]),
  ticket: z.string().min(1),
  golden: z.array(GoldenStepSchema).min(1),
  grader: GraderSpecSchema,
  /** The ticket's requirements as data (banks from before requirements have none). */
  requirements: z.array(RequirementSchema).optional(),
  /** The ticket's story parts, verbatim (see `TaskSchema.story`). */
  story: z.array(z.string().min(1)).optional(),
});
export type Subtask = z.infer<typeof SubtaskSchema>;

/**
 * A task as the bank stores it: a solo subtask or a chain `1toN`. `setup` are the golden steps of
 * the storyline before this task, replayed against the world before the trial so that the world
 * state is the one the storyline left.
 */
export const TaskSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]+$/),
  world: z.string(),
  kind: z.enum(["solo", "chain"]),
  /** Storyline positions covered: `[k]` for a solo task, `[1..N]` for a chain. */
  positions: z.array(z.number().int().positive()).min(1),
  axes: z.array(AxisSchema).min(1),
  difficulty: z.enum(["easy", "medium", "hard"]),
  coupling: z.enum(["none", "value", "state"]).default("none"),
  ticket: z.string().min(1),
  workspace: VariableSeedSchema,
  setup: z.array(GoldenStepSchema).default([]),
  golden: z.array(GoldenStepSchema).min(1),
  grader: GraderSpecSchema,
  /** Chains: positions whose G1 the selective mode grades (the final one plus consumed ones). */
  graded_segments: z.array(z.number().int().positive()).optional(),
  /**
   * Chains: each segment's error-hint level, by its own difficulty (the solo task of its position):
   * `terse` for a hard segment, `full` otherwise. A terse segment names its `routes` (path
   * templates: the routes its quoted calls and its golden go to, the token route aside), and the
   * world serves every error on those routes terse, so it knows a request's segment by the route
   * the request takes, never by anything the agent says. Every other error is served `full`.
   */
  segment_hints: z
    .array(
      z.strictObject({
        segment: z.number().int().positive(),
        level: z.enum(["full", "terse"]),
        routes: z.array(z.string().startsWith("/")).default([]),
      }),
    )
    .optional(),
  /** Solo tasks: what the ticket claims the world did (checked by the `premises` gate). */
  premises: z.array(PremiseSchema).optional(),
  /**
   * The ticket's requirements as data, each naming what holds it in `grader` (a chain's carry
   * their `segment`). Banks from before requirements have none.
   */
  requirements: z.array(RequirementSchema).optional(),
  /**
   * The ticket's story, verbatim: the parts that tell what happened and what the world is like
   * (the opener, the broken call and its error, facts the `premises` gate checks), never what the
   * agent must do. Every other sentence of the ticket is a requirement's `sentence` or the answer
   * card instruction; the sentence check (`unbackedSentences`) holds a ticket to that. Tickets
   * written before it have none.
   */
  story: z.array(z.string().min(1)).optional(),
  /**
   * Optional: the world's versioning when it is not in the path (a copy of `World.versioning`).
   * Golden URLs name the version in the path, the canonical form the graders match; the golden
   * player sends them in the world's wire form (`wireRequest`).
   */
  versioning: VersioningSchema.optional(),
});
export type Task = z.infer<typeof TaskSchema>;
