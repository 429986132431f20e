import { z } from "zod";
import { JsonValueSchema } from "./json.js";
import { PremiseSchema } from "./premise-schema.js";

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
export const ExpectedValueSchema = z.union([CanaryRefSchema, JsonValueSchema]);
export type ExpectedValue = z.infer<typeof ExpectedValueSchema>;

/** A regular expression in a grader (URL patterns): it must compile, or the bank does not load. */
export const PatternSchema = z.string().refine(
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
});
export type AnswerField = z.infer<typeof AnswerFieldSchema>;

const explained = {
  id: z.string().min(1),
  explain: z.string().default(""),
  segment: z.number().int().positive().optional(),
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
 * G1 data flow: a response whose URL matches `from_response_url_pattern` (a regular expression)
 * with status `from_status` carries at `from_body_key` (dotted, through arrays) the decisive value,
 * which must then reach the answer card field `answer_field`, and where required a stored variable
 * and a later request to `used_in_request_url_pattern`, in the slot `used_in_slot`. (A grader
 * without the slot, from before it existed, accepts the value anywhere in that request; the
 * certification of a bank refuses such a grader.)
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
]);
export type G1Predicate = z.infer<typeof G1PredicateSchema>;

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

/** A golden REST request (no `protocol`, or `"rest"`): the HTTP call as the agent would send it. */
export const GoldenRestRequestSchema = z.strictObject({
  protocol: z.literal("rest").optional(),
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), z.string()).optional(),
  body: JsonValueSchema.optional(),
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
  /** Solo tasks: what the ticket claims the world did (checked by the `premises` gate). */
  premises: z.array(PremiseSchema).optional(),
});
export type Task = z.infer<typeof TaskSchema>;
