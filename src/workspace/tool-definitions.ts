import { z } from "zod";
import { EntityKindSchema, EntityRefSchema } from "./entity-ref.js";

/**
 * The seven tools, identical for every model and adapter. These schemas are the published
 * contract (their JSON Schema goes to models and MCP clients); the workspace accepts reasonable
 * variants of them too (see `normalizeEntityRef`), and answers the rest with a clear error.
 */
export const TOOL_CONTRACT_VERSION = "1.0";

export const ScopeSchema = z.enum(["vault", "local", "global"]);
export type Scope = z.infer<typeof ScopeSchema>;

/**
 * The workspace's request signer: sent with a REST request, it adds the request's signature header,
 * the hex HMAC-SHA256 keyed with `secret` of four lines joined by \n: the method in upper case, the
 * path with its query parameters sorted by name, the value of the request's `nonce_header`, and the
 * hex SHA-256 of the body as canonical JSON (keys sorted, no white space; empty without a body).
 * The key id and nonce headers are the agent's to send.
 *
 * @example { secret: "{{client_secret}}" } // adds X-Signature over the request and its X-Nonce
 */
export const SignSchema = z.strictObject({
  secret: z.string().describe("The signing key, e.g. {{client_secret}}"),
  header: z.string().optional().describe("Header the signature goes in (default X-Signature)"),
  nonce_header: z
    .string()
    .optional()
    .describe("Header whose value is signed as the nonce (default X-Nonce); the request must send it"),
});
export type Sign = z.infer<typeof SignSchema>;

export const RestRequestSchema = z.strictObject({
  protocol: z.literal("rest").default("rest"),
  method: z.string().describe("HTTP method, e.g. GET"),
  url: z
    .string()
    .describe("Absolute URL or a path such as /v3/things; {{name}} placeholders are resolved from variables"),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.unknown().optional(),
  sign: SignSchema.optional().describe(
    "Sign this request (APIs that take signed requests): the workspace computes the HMAC-SHA256 signature and sends it in `header`",
  ),
});
export type RestRequest = z.infer<typeof RestRequestSchema>;

export const GraphqlRequestSchema = z.strictObject({
  protocol: z.literal("graphql"),
  query: z.string(),
  variables: z.record(z.string(), z.unknown()).optional(),
  operationName: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

export type GraphqlRequest = z.infer<typeof GraphqlRequestSchema>;

export const McpRequestSchema = z.strictObject({
  protocol: z.literal("mcp"),
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** HTTP headers of the MCP request: the bearer token, if-match, idempotency-key, x-apiflow-wait. */
  headers: z.record(z.string(), z.string()).optional(),
});
export type McpRequest = z.infer<typeof McpRequestSchema>;

export const RequestContentSchema = z.union([RestRequestSchema, GraphqlRequestSchema, McpRequestSchema]);
export type RequestContent = z.infer<typeof RequestContentSchema>;

export const ToolParameters = {
  read: z.strictObject({
    entity_ref: EntityRefSchema.describe("Which entity: {kind, id, parent?}"),
    scope: ScopeSchema.optional().describe("For variables: read one scope only"),
  }),
  write: z.strictObject({
    entity_ref: EntityRefSchema,
    content: z
      .unknown()
      .describe(
        'Variables: {"value": <v>}. Requests: {protocol: "rest", method, url, headers?, body?, sign?}, {protocol: "graphql", query, variables?, operationName?, headers?} or {protocol: "mcp", tool, arguments?, headers?}',
      ),
    scope: ScopeSchema.optional().describe(
      "For variables: local (default) or global; the vault is read-only",
    ),
  }),
  edit: z.strictObject({
    entity_ref: EntityRefSchema,
    patch: z.record(z.string(), z.unknown()).describe("Shallow-merged into the entity's content"),
  }),
  search: z.strictObject({
    query: z.string().describe("Substring to match; empty lists everything"),
    kind: EntityKindSchema.optional(),
  }),
  execute: z.strictObject({
    request: RequestContentSchema.optional().describe("The request to send, inline"),
    target: EntityRefSchema.optional().describe("Or a stored request entity to send"),
    mode: z.enum(["send"]).optional(),
  }),
  clarify: z.strictObject({
    question: z.string().describe("Ends the trial: ask the user instead of acting"),
  }),
  report_blocked: z.strictObject({ reason: z.string().describe("Ends the trial: the job cannot be done") }),
} as const;

export type ToolName = keyof typeof ToolParameters;
export const TOOL_NAMES = Object.keys(ToolParameters) as ToolName[];

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  read: "Fetch one entity's full content (a request, a response, a variable, the spec, a handle).",
  write:
    "Create or replace an entity: a request you plan to send or edit, or a variable (local or global scope).",
  edit: "Change part of an entity: shallow-merge a patch into a request or an object-valued variable.",
  search: "Find entities and variables in the workspace; an empty query lists everything.",
  execute:
    "Send one API call: pass the request inline (request={...}) or a stored request (target). Returns the response's ref, status, headers and a body preview; the full response is stored as a response entity.",
  clarify: "Abstain by asking the user a question. Ends the trial.",
  report_blocked: "Abstain, declaring the job impossible. Ends the trial.",
};

/** JSON Schemas of the seven tools, for model providers and MCP clients. */
export function toolJsonSchemas(): Array<{
  name: ToolName;
  description: string;
  inputSchema: Record<string, unknown>;
}> {
  return TOOL_NAMES.map((name) => ({
    name,
    description: TOOL_DESCRIPTIONS[name],
    inputSchema: z.toJSONSchema(ToolParameters[name], { io: "input" }) as Record<string, unknown>,
  }));
}
