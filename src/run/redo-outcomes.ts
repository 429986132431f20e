import { OUTCOMES, type Outcome } from "./trial-record.js";

/**
 * What a rerun of a run directory redoes by default: the trials that were not scored because the
 * provider or the harness broke. Scored trials (a pass, a fail, an agent's own error…) are kept.
 */
export const DEFAULT_REDO: ReadonlySet<Outcome> = new Set(["provider_error", "harness_error"]);

/**
 * Parse `--redo`: a comma-separated list of outcomes, or `none`.
 *
 * @example parseRedo("provider_error,limit") // { success: true, data: Set { "provider_error", "limit" } }
 */
export function parseRedo(
  text: string,
):
  | { success: true; data: ReadonlySet<Outcome> }
  | { success: false; error: { code: "bad_redo"; message: string } } {
  const words = text
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "");
  if (words.length === 1 && words[0] === "none") return { success: true, data: new Set() };
  const unknown = words.filter((w) => !(OUTCOMES as readonly string[]).includes(w));
  if (words.length === 0 || unknown.length > 0) {
    return {
      success: false,
      error: {
        code: "bad_redo",
        message: `--redo takes "none" or outcomes separated by commas (${OUTCOMES.join(", ")}); got ${JSON.stringify(text)}`,
      },
    };
  }
  return { success: true, data: new Set(words as Outcome[]) };
}
