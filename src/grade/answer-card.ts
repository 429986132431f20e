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
 * 1. Several ```` ```json ```` blocks: the card is the block that holds the most of the fields
 *    the ticket declares (issue 15 item 5). Ties go to the block with the fewest other keys, then
 *    to the last one. In the full 1.0 set about 40 trials put the card first and then quote the
 *    request body sent; 1.0 passes them, and so does this rule. In the sample, ten final messages
 *    hold two blocks, the card always last: six earlier blocks quote a response with none of the
 *    declared fields (the last one wins; taking the first block disagrees on 6 trials) and four
 *    quote a whole record holding every declared field and more (the fewest other keys win, so a
 *    record quoted after the card would not displace it either). When no block holds a declared
 *    field, or the caller names none, the last block is the card, as before.
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
 *    Several cards of that one shape (the same declared fields, as many other keys) that disagree
 *    on a declared value hedge between answers: the message has no card (`card-ambiguous`), so
 *    writing one card per plausible value never passes. Repeating one card is fine. The sample has
 *    no such message (its tied blocks agree).
 * 5. A block that does not parse still holds the keys written in it (a quoted name before a
 *    colon), so a card broken by a trailing comma is still the card, and unreadable: the
 *    message then has no card, rather than the quoted response body before it being graded as
 *    the answer. A block holding JSON that is not an object holds no field.
 *
 * Known divergence from 1.0 (Python `json.loads`), absent from the sample: 1.0 accepts the
 * literals `NaN`/`Infinity`, keeps `3.0` apart from `3` (it prints `3.0` in string reasons) and
 * big integers exact; `JSON.parse` rejects the literals and reads numbers as doubles.
 */

/** Why a final message yields no answer card (stable codes). */
export type AnswerCardErrorCode = "no-json-block" | "card-not-json" | "card-not-object" | "card-ambiguous";

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
 * `declaredFields` are the fields the ticket asks for; they choose among several blocks.
 *
 * @example
 * extractAnswerCard('Done.\n```json\n{"plan_id": "plan-7c2e"}\n```', ["plan_id"])
 * // → { success: true, data: { plan_id: "plan-7c2e" } }
 */
export function extractAnswerCard(
  finalMessage: string,
  declaredFields: readonly string[] = [],
): AnswerCardResult {
  // Most messages hold no fence, or one: the one is the card (as the rules below find it, unweighed).
  const bodies = finalMessage.includes("```json")
    ? [...finalMessage.matchAll(JSON_FENCE)].map((match) => match[1] ?? "")
    : [];
  if (bodies.length === 0) {
    return fail("no-json-block", "the final message has no ```json fenced block");
  }
  if (bodies.length === 1) return parseBlock(bodies[0] as string, "the last");
  const fields = new Set(declaredFields);
  type Candidate = { index: number; parsed: AnswerCardResult; declared: number; others: number };
  let best: Candidate | undefined;
  const candidates: Candidate[] = [];
  bodies.forEach((body, index) => {
    const parsed = parseBlock(body, index === bodies.length - 1 ? "the last" : `block ${index + 1} of the`);
    // A block that does not parse counts its keys as written; a value that is no object, none.
    const keys = parsed.success
      ? Object.keys(parsed.data)
      : parsed.error.code === "card-not-json"
        ? keysAsWritten(body)
        : [];
    let declared = 0;
    for (const field of fields) if (keys.includes(field)) declared++;
    const others = keys.length - declared;
    candidates.push({ index, parsed, declared, others });
    // `<=` on the other keys: a later block wins a full tie.
    if (
      declared > 0 &&
      (best === undefined ||
        declared > best.declared ||
        (declared === best.declared && others <= best.others))
    ) {
      best = { index, parsed, declared, others };
    }
  });
  if (best === undefined) return parseBlock(bodies.at(-1) ?? "", "the last");
  const card = best.parsed;
  const { declared, others } = best;
  // Two cards of one shape that disagree on a declared field: the message hedges between answers.
  if (card.success) {
    for (const rival of candidates) {
      // The card agrees with itself: not compared (its fields written twice per trial, for nothing).
      if (rival.index === best.index) continue;
      if (rival.declared !== declared || rival.others !== others || !rival.parsed.success) continue;
      const theirs = rival.parsed.data;
      const differs = [...fields].find(
        (f) => Object.hasOwn(card.data, f) && JSON.stringify(theirs[f]) !== JSON.stringify(card.data[f]),
      );
      if (differs !== undefined)
        return fail(
          "card-ambiguous",
          `blocks ${rival.index + 1} and ${best.index + 1} are both cards and disagree on '${differs}': one answer per message`,
        );
    }
  }
  return card;
}

/** One ```json block's body as a card, or why it is none (`where` names the block). */
function parseBlock(body: string, where: string): AnswerCardResult {
  let value: unknown;
  try {
    value = JSON.parse(body.trim());
  } catch (e) {
    return fail("card-not-json", `${where} \`\`\`json block is not valid JSON: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return fail("card-not-object", `${where} \`\`\`json block holds ${kind}, not a JSON object`);
  }
  return { success: true, data: value as Record<string, unknown> };
}

/** A quoted name followed by a colon: a key as written, at any depth. */
const KEY_AS_WRITTEN = /"((?:[^"\\]|\\.)*)"\s*:/g;

/**
 * The keys a block that does not parse holds as written, so that a card broken by a trailing
 * comma is still the card (and unreadable) rather than giving way to a quoted response body.
 */
function keysAsWritten(body: string): string[] {
  return [...new Set([...body.matchAll(KEY_AS_WRITTEN)].map((match) => match[1] ?? ""))];
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
