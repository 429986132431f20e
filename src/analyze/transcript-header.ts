import { z } from "zod";
import { TokenUsageSchema, TranscriptSchema } from "../trial/transcript-schema.js";

const full = TranscriptSchema.shape;
const flag = z.unknown().transform((v) => (typeof v === "boolean" ? v : null));

/**
 * What the importer reads of a published 1.0 transcript: ids, verdict, tokens, duration and the
 * verifier's summary, checked as `TranscriptSchema` checks them. The bulk is not validated — the
 * messages (86% of the bytes) must be an array and are then only counted — because validating every
 * message was most of the import's time and the store keeps none of it. Strict objects (unknown
 * keys stripped): the header holds only the fields below, every string of them exact (see
 * `parseTranscriptBytes`). The viewer and `regrade-official` read transcripts with the full
 * `TranscriptSchema`.
 */
export const TranscriptHeaderSchema = z
  .object({
    schema_version: full.schema_version,
    model: full.model,
    model_api: full.model_api,
    task_id: full.task_id,
    trial: full.trial,
    verdict: full.verdict,
    passed: full.passed,
    failure_reason: full.failure_reason,
    tokens: z.object(TokenUsageSchema.shape).default({ input: 0, output: 0, cache: 0, total: 0 }),
    duration_s: full.duration_s,
    messages: z.array(z.unknown()),
    verifier: z
      .object({
        scorer: z.string(),
        value: z.string(),
        explanation: z.string(),
        metadata: z.object({
          sub_predicates: z
            .object({ g1_passed: flag, g2_passed: flag })
            .default({ g1_passed: null, g2_passed: null }),
          partial_score: z.number().nullable().optional(),
        }),
      })
      .nullable(),
  })
  .transform(({ messages, ...header }) => ({ ...header, message_count: messages.length }));
export type TranscriptHeader = z.infer<typeof TranscriptHeaderSchema>;

export type TranscriptParseError = { code: "invalid_json" | "schema"; message: string };

const NON_ASCII = /[\u0080-\uffff]/;
const RAW_BYTES = /[\x80-\xff]+/g;

/**
 * Parse a transcript file's bytes and check its header.
 *
 * Speed: the bytes are parsed as Latin-1, not UTF-8. Transcripts carry some non-ASCII text (`✓`,
 * `—`), which makes a UTF-8 decode produce a two-byte string that V8 decodes and parses about 1.7×
 * slower; a Latin-1 decode maps byte n to char n and keeps the string one-byte. JSON's syntax is
 * ASCII, so the parse accepts and rejects exactly the same files. Only string values differ: a UTF-8
 * sequence reads as one char per byte. The header's strings (the only ones it keeps) are mended afterwards
 * (each run of chars 0x80–0xFF turned back into the UTF-8 text it encodes); that is exact unless
 * the file also escapes a char in 0x80–0xFF (`\u00e9`), which reads the same as a raw byte — such
 * a file is parsed again as UTF-8.
 *
 * @example
 * const r = parseTranscriptBytes(readFileSync("gpt-5-mini/v56-w03-sub07-t2.json"));
 * if (r.success) console.log(r.data.verdict, r.data.tokens.total);
 */
export function parseTranscriptBytes(
  bytes: Buffer,
): { success: true; data: TranscriptHeader } | { success: false; error: TranscriptParseError } {
  const latin1 = bytes.toString("latin1");
  let json: unknown;
  try {
    json = JSON.parse(latin1);
  } catch (e) {
    // Parse again as UTF-8 so the message names the same position and token a UTF-8 reader would.
    return { success: false, error: { code: "invalid_json", message: utf8ParseError(bytes, e) } };
  }
  const header = TranscriptHeaderSchema.safeParse(json);
  if (!header.success) return { success: false, error: schemaError(header.error) };
  const h = header.data;
  const strings = [
    h.schema_version,
    h.model,
    h.model_api,
    h.task_id,
    h.failure_reason,
    h.verifier?.scorer,
    h.verifier?.value,
    h.verifier?.explanation,
  ];
  if (!strings.some((s) => s && NON_ASCII.test(s))) return header;
  if (hasHighLatin1Escape(bytes)) {
    const again = TranscriptHeaderSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    return again.success ? again : { success: false, error: schemaError(again.error) };
  }
  h.schema_version = mendUtf8(h.schema_version);
  h.model = mendUtf8(h.model);
  if (h.model_api !== undefined) h.model_api = mendUtf8(h.model_api);
  h.task_id = mendUtf8(h.task_id);
  if (h.failure_reason !== null) h.failure_reason = mendUtf8(h.failure_reason);
  if (h.verifier) {
    h.verifier.scorer = mendUtf8(h.verifier.scorer);
    h.verifier.value = mendUtf8(h.verifier.value);
    h.verifier.explanation = mendUtf8(h.verifier.explanation);
  }
  return header;
}

const BACKSLASH_U00 = Buffer.from("\\u00", "latin1");
const HEX_8_TO_F = /[89a-fA-F]/;

/**
 * Whether the JSON text escapes a char in 0x80–0xFF (`\u00e9`): the one thing that makes a
 * Latin-1 parse ambiguous. A byte search, several times faster than a regular expression over the
 * text; an escaped backslash followed by `u00e9` also matches, which only costs a second parse.
 */
function hasHighLatin1Escape(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(BACKSLASH_U00); i >= 0; i = bytes.indexOf(BACKSLASH_U00, i + 1)) {
    if (HEX_8_TO_F.test(String.fromCharCode(bytes[i + 4] ?? 0))) return true;
  }
  return false;
}

/** Turn each run of chars 0x80–0xFF (raw UTF-8 bytes read as Latin-1) back into its text. */
function mendUtf8(s: string): string {
  return NON_ASCII.test(s) ? s.replace(RAW_BYTES, (run) => Buffer.from(run, "latin1").toString("utf8")) : s;
}

function utf8ParseError(bytes: Buffer, latin1Error: unknown): string {
  try {
    JSON.parse(bytes.toString("utf8"));
  } catch (e) {
    return (e as Error).message;
  }
  return (latin1Error as Error).message;
}

function schemaError(error: z.ZodError): TranscriptParseError {
  const issue = error.issues[0];
  return { code: "schema", message: `${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}` };
}
