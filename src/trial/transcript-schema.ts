import { z } from "zod";

/**
 * The trial transcript, in the layout of the published APIFlow-Bench 1.0 transcripts
 * (`<model-slug>/<task_id>-t<N>.json`). `apiflow run` writes it; the importer and `regrade-official`
 * read it. Reading is lenient where 1.0 files vary (extra keys pass through); writing always fills
 * every field.
 */
export const TRANSCRIPT_SCHEMA_VERSION = "1.0";

export const ToolCallSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  /** Arguments as the model sent them (objects, or JSON strings inside them). */
  arguments: z.unknown(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

export const ContentPartSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  reasoning: z.string().optional(),
});

export const TranscriptMessageSchema = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: z.string() }),
  z.looseObject({ role: z.literal("user"), content: z.string() }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(ContentPartSchema)]),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.looseObject({
    role: z.literal("tool"),
    content: z.string(),
    tool_call_id: z.string(),
    function: z.string(),
    error: z.unknown().optional(),
  }),
]);
export type TranscriptMessage = z.infer<typeof TranscriptMessageSchema>;

export const TokenUsageSchema = z.looseObject({
  input: z.number().nonnegative().default(0),
  output: z.number().nonnegative().default(0),
  cache: z.number().nonnegative().default(0),
  total: z.number().nonnegative().default(0),
});
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** One predicate result as the 1.0 verifier records it. */
export const VerifierPredicateSchema = z.looseObject({
  label: z.string(),
  key: z.string().optional(),
  group: z.string(),
  segment: z.number().nullable().optional(),
  passed: z.boolean(),
  detail: z.record(z.string(), z.unknown()).default({}),
});
export type VerifierPredicate = z.infer<typeof VerifierPredicateSchema>;

export const VerifierSchema = z.looseObject({
  scorer: z.string(),
  value: z.string(),
  explanation: z.string(),
  metadata: z.looseObject({
    sub_predicates: z.record(z.string(), z.unknown()).default({}),
    partial_score: z.number().nullable().optional(),
    predicates: z.array(VerifierPredicateSchema).default([]),
  }),
});
export type Verifier = z.infer<typeof VerifierSchema>;

export const TranscriptSchema = z.looseObject({
  schema_version: z.string(),
  model: z.string(),
  model_api: z.string().optional(),
  task_id: z.string(),
  trial: z.number().int(),
  /** `C` pass, `I` fail, `""` unscored. */
  verdict: z.enum(["C", "I", ""]),
  passed: z.boolean().nullable(),
  failure_reason: z.string().nullable().default(""),
  tokens: TokenUsageSchema.default({ input: 0, output: 0, cache: 0, total: 0 }),
  duration_s: z.number().nonnegative().default(0),
  messages: z.array(TranscriptMessageSchema),
  verifier: VerifierSchema.nullable(),
  provenance: z.record(z.string(), z.unknown()).default({}),
});
export type Transcript = z.infer<typeof TranscriptSchema>;
