import type { TranscriptMessage } from "../trial/transcript-schema.js";

/**
 * Finding the answer card in the agent's final message, exactly the way the APIFlow-Bench 1.0
 * verifier does, so that our G2 grades of 1.0 transcripts agree with the recorded ones.
 *
 * The rules were inferred by regrading every G2 field of the published 1.0 transcripts sample
 * (242 trials, 502 G2 fields) and comparing verdict, the `got` value 1.0 read out of the card,
 * and the failure reason (`apiflow regrade-official`; the sample test in
 * `official-regrade.test.ts`). Rules the sample pins down (a rival rule disagrees with it):
 *
 * 1. Several ```` ```json ```` blocks: the LAST one is the card. Fifteen sample messages hold two
 *    or three blocks, the earlier ones quoting a response body; taking the first block instead
 *    disagrees with 1.0 on 6 trials.
 * 2. Only the text of the final assistant message is read, never its `reasoning` parts (reading
 *    them too disagrees on 12 trials: models draft the card in their reasoning).
 * 3. Text before or after the block is irrelevant; values are kept as JSON gives them (numbers
 *    in strings stay strings — the numeric comparator accepts them; `null` is a present field,
 *    graded `None != expected ...`, not "field absent"); fields are looked up at the top level.
 *
 * Rules the sample does not exercise, chosen to match the 1.0 prompt ("a single JSON object
 * inside a ```json code block") and DESIGN.md §3, each changing no sample grade:
 *
 * 4. Only a fence opened with exactly ```` ```json ```` followed by whitespace counts: bare
 *    ```` ``` ````, ```` ```JSON ````, ```` ```jsonc ```` blocks and JSON outside any fence are not
 *    cards (the sample's bare blocks all precede a ```` ```json ```` block; the prose `{...}` in
 *    five card-less messages holds none of the fields).
 * 5. The last ```` ```json ```` block is the card even when it does not parse or is not an
 *    object: the message then has no card. No fall-back to an earlier block (that would grade a
 *    quoted response body as the answer).
 *
 * Known divergence from 1.0 (Python `json.loads`), absent from the sample: 1.0 accepts the
 * literals `NaN`/`Infinity`, keeps `3.0` apart from `3` (it prints `3.0` in string reasons) and
 * big integers exact; `JSON.parse` rejects the literals and reads numbers as doubles.
 */

/** Why a final message yields no answer card (stable codes). */
export type AnswerCardErrorCode = "no-json-block" | "card-not-json" | "card-not-object";

export interface AnswerCardError {
  code: AnswerCardErrorCode;
  message: string;
}

export type AnswerCardResult =
  | { success: true; data: Record<string, unknown> }
  | { success: false; error: AnswerCardError };

/** A ```json fence (lower-case tag, then whitespace) up to the next closing fence. */
const JSON_FENCE = /```json(?=\s)([\s\S]*?)```/g;

/**
 * Extract the answer card from the final assistant message (rules in the module comment).
 *
 * @example
 * extractAnswerCard('Done.\n```json\n{"plan_id": "plan-7c2e"}\n```')
 * // → { success: true, data: { plan_id: "plan-7c2e" } }
 */
export function extractAnswerCard(finalMessage: string): AnswerCardResult {
  let last: string | undefined;
  for (const match of finalMessage.matchAll(JSON_FENCE)) last = match[1];
  if (last === undefined) {
    return fail("no-json-block", "the final message has no ```json fenced block");
  }
  let value: unknown;
  try {
    value = JSON.parse(last.trim());
  } catch (e) {
    return fail("card-not-json", `the last \`\`\`json block is not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return fail("card-not-object", `the last \`\`\`json block holds ${kind}, not a JSON object`);
  }
  return { success: true, data: value as Record<string, unknown> };
}

function fail(code: AnswerCardErrorCode, message: string): AnswerCardResult {
  return { success: false, error: { code, message } };
}

/**
 * The text of the final assistant message as 1.0 reads it: the last message with role
 * `assistant`, whatever follows it (tool results), and whether or not it also calls tools — a
 * trial cut off by a limit ends on a tool call; its text is still the final word, and (with no
 * fall-back to earlier messages) usually holds no card, so every field fails as absent.
 * String content is taken as is; in a list of parts only `text` parts count, joined with a
 * newline — `reasoning` parts are the model's scratchpad, not its answer. No assistant message,
 * or one with no text part, gives `""` (and so no card).
 *
 * @example
 * finalAssistantText([{ role: "assistant", content: [{ type: "reasoning", reasoning: "..." },
 *   { type: "text", text: "```json\n{}\n```" }] }]) // → "```json\n{}\n```"
 */
export function finalAssistantText(messages: readonly TranscriptMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role !== "assistant") continue;
    if (typeof message.content === "string") return message.content;
    return message.content
      .filter((part) => part.type === "text" && typeof part.text === "string")
      .map((part) => part.text)
      .join("\n");
  }
  return "";
}
