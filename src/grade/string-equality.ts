/**
 * The grader's string equality for what the card reports, shared by G2's `string` comparator and
 * G1's checks of a card value against the API's (`valuesEqual`: a data flow to the card): two
 * strings are equal when they are equal after removing surrounding whitespace (Python's
 * `str.strip()` set) and lower-casing. The case rule is 1.0's (its verifier compares
 * `str(v).strip().lower()`, and `regrade-official` holds our G2 to its recorded verdicts), so G1
 * follows G2 rather than the reverse: a card `"status": "Queued"` where the API said `queued`
 * passes both, or neither. What the agent wrote into the world or its workspace (a value sent or
 * stored, a record's field at the end) is compared as the world compares, exactly (`sameInWorld`).
 *
 * @example sameString(" Queued ", "queued") // true
 */
export function sameString(a: string, b: string): boolean {
  return a === b || normalString(a) === normalString(b);
}

/**
 * A string in the grader's normal form: stripped as Python strips, lower-cased.
 *
 * @example normalString("  FW-Ab12 \n") // "fw-ab12"
 */
export function normalString(s: string): string {
  return pyStrip(s).toLowerCase();
}

/** Characters Python's `str.strip()` removes (`str.isspace`). */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/** Python's `str.strip()`. @example pyStrip("\u3000x ") // "x" */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, "");
}
