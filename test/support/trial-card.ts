import type { JsonValue } from "../../src/bank/json.js";
import { extractAnswerCard, finalAssistantText } from "../../src/grade/answer-card.js";
import type { TrialResult } from "../../src/run/run-trial.js";

/** The answer card a trial ended with (tests only: a trial without one is a failed test). */
export function cardOf(r: TrialResult): Record<string, JsonValue> {
  const card = extractAnswerCard(finalAssistantText(r.messages));
  if (!card.success) throw new Error(`no card: ${card.error.message}`);
  return card.data as Record<string, JsonValue>;
}
