import { z } from "zod";
import { type JsonValue, JsonValueSchema } from "../bank/json.js";
import { ComparatorSchema } from "../bank/task-schema.js";
import { type AnswerCardErrorCode, extractAnswerCard } from "./answer-card.js";
import { normalString, pyStrip } from "./string-equality.js";

/**
 * G2, the delivery: one answer-card field against its expected value, with the comparators and
 * the failure reasons of the APIFlow-Bench 1.0 verifier (inferred from the recorded grades of the
 * published transcripts sample; see `answer-card.ts` for how the card is found).
 *
 * Values are compared through 1.0's normal form `norm(v)`: Python `str(v)` (a string as is,
 * anything else as its Python repr: `True`, `None`, `3`, `['a']`), stripped, lower-cased.
 *
 * - `string` — `norm(got) == norm(expected)`. So the comparison ignores case and surrounding
 *   whitespace (the grader's one string equality, `string-equality.ts`, which G1 shares), and JSON `true` matches the expected string `"true"` (the 1.0 bank states boolean
 *   answers as strings; five sample trials pass that way). Fail: `'checking' != expected 'committed'`.
 * - `numeric` — Python `float()` of both, `abs(got - expected) <= tolerance` (default 0.01).
 *   Numeric strings count (`"3"`, `" 2.5 "`, `"1e3"`, `"1_000"`), as do booleans (Python's bool is
 *   an int); anything else fails with `value 'abc' is not numeric` / `value None is not numeric`.
 *   Fail: `2.0 != 3.0 (tol ±0.01)`.
 * - `set` — unordered, duplicates ignored: a list gives its elements, anything else is split on
 *   commas (`"a, b"`, and a null becomes the one element `'none'`); each element is normalised as
 *   above. Fail: `set ['a'] != expected ['a', 'b']` (both sides sorted, normalised).
 * - `boolean` — not used by 1.0 (its bank says `string` with `"true"`); ours: JSON `true`/`false`
 *   or the strings `"true"`/`"false"` in any case. Fail: `False != expected True`, or
 *   `value 'maybe' is not boolean`.
 *
 * A field missing from the card, or no card at all, fails with
 * `field absent from the declared JSON answer card`; a present `null` is a value (`None`).
 */

export const TOLERANCE_DEFAULT = 0.01;
export const FIELD_ABSENT_REASON = "field absent from the declared JSON answer card";

export const AnswerFieldSpecSchema = z.object({
  field: z.string().min(1),
  comparator: ComparatorSchema,
  expected: JsonValueSchema,
  tolerance: z.number().nonnegative().optional(),
});
/** The grading part of a bank `AnswerField`, with any canary reference already resolved. */
export type AnswerFieldSpec = z.infer<typeof AnswerFieldSpecSchema>;

export const FieldGradeSchema = z.object({
  field: z.string(),
  comparator: ComparatorSchema,
  expected: JsonValueSchema,
  /** The card's value; absent when the card or the field is missing (as 1.0 records it). */
  got: JsonValueSchema.optional(),
  passed: z.boolean(),
  /** Why the field failed, in 1.0's words; absent when it passed. */
  reason: z.string().optional(),
});
export type FieldGrade = z.infer<typeof FieldGradeSchema>;

export const AnswerCardGradeSchema = z.object({
  card_found: z.boolean(),
  card_error: z
    .object({
      code: z.enum(["no-json-block", "card-not-json", "card-not-object", "card-ambiguous"]),
      message: z.string(),
    })
    .optional(),
  fields: z.array(FieldGradeSchema),
  /** Every field passed (and there is at least a card when any field is asked for). */
  passed: z.boolean(),
});
export type AnswerCardGrade = z.infer<typeof AnswerCardGradeSchema>;

/**
 * Grade one answer-card field; `card` is the extracted card, or null when there is none.
 *
 * @example
 * gradeAnswerField({ field: "count", comparator: "numeric", expected: 3 }, { count: "2" })
 * // → { field: "count", comparator: "numeric", expected: 3, got: "2", passed: false,
 * //     reason: "2.0 != 3.0 (tol ±0.01)" }
 */
export function gradeAnswerField(spec: AnswerFieldSpec, card: Record<string, unknown> | null): FieldGrade {
  const { field, comparator, expected } = spec;
  if (card === null || !Object.hasOwn(card, field)) {
    return { field, comparator, expected, passed: false, reason: FIELD_ABSENT_REASON };
  }
  const got = card[field] as JsonValue;
  const reason = compare(spec, got);
  return reason === undefined
    ? { field, comparator, expected, got, passed: true }
    : { field, comparator, expected, got, passed: false, reason };
}

/**
 * Find the card in the final message and grade every field against it.
 *
 * @example
 * gradeAnswerCard([{ field: "status", comparator: "string", expected: "committed" }],
 *   '```json\n{"status": "Committed "}\n```') // → { card_found: true, passed: true, fields: [...] }
 */
export function gradeAnswerCard(fields: readonly AnswerFieldSpec[], finalMessage: string): AnswerCardGrade {
  const card = extractAnswerCard(
    finalMessage,
    fields.map((f) => f.field),
  );
  const data = card.success ? card.data : null;
  const grades = fields.map((spec) => gradeAnswerField(spec, data));
  const result: AnswerCardGrade = {
    card_found: card.success,
    fields: grades,
    passed: grades.every((g) => g.passed),
  };
  if (!card.success) result.card_error = card.error as { code: AnswerCardErrorCode; message: string };
  return result;
}

/**
 * Whether G2 would pass the card value `got` for a field expecting `expected`, by the field's
 * comparator and tolerance. G1 reads a card value the same way where it checks that the card
 * carries what the API returned (a data flow to the card), so it never fails a value G2 accepts:
 * a numeric field reported within its tolerance of the API's value passes both, or neither.
 *
 * @example answerAccepts({ comparator: "numeric" }, 60.705, 60.7) // true (±0.01)
 */
export function answerAccepts(
  spec: Pick<AnswerFieldSpec, "comparator" | "tolerance">,
  got: JsonValue,
  expected: JsonValue,
): boolean {
  const { comparator, tolerance } = spec;
  // The numeric case without building a spec: G1 asks it of every candidate value of a flow.
  if (comparator === "numeric") return withinTolerance(pyFloat(got), pyFloat(expected), tolerance);
  return (
    compare({ field: "", comparator, expected, ...(tolerance === undefined ? {} : { tolerance }) }, got) ===
    undefined
  );
}

/** The numeric comparator's test on two parsed values (a value Python cannot parse never passes). */
function withinTolerance(
  value: number | undefined,
  expected: number | undefined,
  tolerance?: number,
): boolean {
  return (
    value !== undefined &&
    expected !== undefined &&
    Math.abs(value - expected) <= (tolerance ?? TOLERANCE_DEFAULT)
  );
}

/** The failure reason, or undefined when the value passes. */
function compare(spec: AnswerFieldSpec, got: JsonValue): string | undefined {
  switch (spec.comparator) {
    case "string":
      return norm(got) === norm(spec.expected)
        ? undefined
        : `${pyRepr(got)} != expected ${pyRepr(spec.expected)}`;
    case "numeric": {
      const value = pyFloat(got);
      if (value === undefined) return `value ${pyRepr(got)} is not numeric`;
      const expected = pyFloat(spec.expected);
      if (expected === undefined) return `expected ${pyRepr(spec.expected)} is not numeric`;
      const tolerance = spec.tolerance ?? TOLERANCE_DEFAULT;
      return withinTolerance(value, expected, tolerance)
        ? undefined
        : `${pyFloatRepr(value)} != ${pyFloatRepr(expected)} (tol ±${pyFloatRepr(tolerance)})`;
    }
    case "set": {
      const gotSet = normSet(got);
      const expectedSet = normSet(spec.expected);
      const same = gotSet.length === expectedSet.length && gotSet.every((v, i) => v === expectedSet[i]);
      return same ? undefined : `set ${pyRepr(gotSet)} != expected ${pyRepr(expectedSet)}`;
    }
    case "boolean": {
      const value = asBoolean(got);
      if (value === undefined) return `value ${pyRepr(got)} is not boolean`;
      const expected = asBoolean(spec.expected);
      if (expected === undefined) return `expected ${pyRepr(spec.expected)} is not boolean`;
      return value === expected ? undefined : `${pyRepr(value)} != expected ${pyRepr(expected)}`;
    }
  }
}

/** 1.0's normal form: Python `str(v).strip().lower()` (a string's is the grader's one `normalString`). */
function norm(value: JsonValue): string {
  return normalString(typeof value === "string" ? value : pyRepr(value));
}

/** 1.0's set: elements of a list, else the comma-separated parts of `str(v)`; sorted, unique. */
function normSet(value: JsonValue): string[] {
  const items = Array.isArray(value) ? value.map(norm) : norm(value).split(",").map(pyStrip);
  return [...new Set(items)].sort(compareCodePoints);
}

/** Python sorts strings by code point; JS's default sort compares UTF-16 units. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = (x[i]?.codePointAt(0) ?? 0) - (y[i]?.codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function asBoolean(value: JsonValue): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const v = norm(value);
    if (v === "true") return true;
    if (v === "false") return false;
  }
  return undefined;
}

/** Python's `float(str)` grammar: optional sign, digits with single underscores, inf, nan. */
const PY_FLOAT =
  /^[+-]?(?:(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/** Python `float(v)`, or undefined where it raises (None, lists, dicts, non-numeric strings). */
function pyFloat(value: JsonValue): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "string") return undefined;
  const s = pyStrip(value);
  if (!PY_FLOAT.test(s)) return undefined;
  const lower = s.replaceAll("_", "").toLowerCase();
  const sign = lower.startsWith("-") ? -1 : 1;
  const body = lower.replace(/^[+-]/, "");
  if (body.startsWith("inf")) return sign * Number.POSITIVE_INFINITY;
  if (body === "nan") return Number.NaN;
  return Number(lower);
}

/**
 * Python `repr(float)`: the shortest round-trip digits, in positional notation with at least one
 * decimal (`3.0`, `0.0001`) for exponents -4..15, else scientific with a two-digit exponent
 * (`1e-05`, `1e+16`).
 *
 * @example pyFloatRepr(3) // → "3.0"
 */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa = "", expText = "0"] = x.toExponential().split("e");
  const exp = Number(expText);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const sign = negative ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const frac = digits.slice(1);
    const e = `${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    return `${sign}${digits[0]}${frac ? `.${frac}` : ""}e${e}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const fracPart = digits.slice(exp + 1);
  return `${sign}${intPart}.${fracPart || "0"}`;
}

/**
 * Python `repr()` of a JSON value as 1.0 prints it in failure reasons: `'x'`, `None`, `True`,
 * `3`, `2.5`, `['a', 'b']`, `{'k': 1}`. A JSON number with an integral value prints as an int
 * (JSON.parse cannot tell `3.0` from `3`).
 *
 * @example pyRepr(["a", null]) // → "['a', None]"
 */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  if (typeof value === "number") {
    return Number.isInteger(value) ? BigInt(value).toString() : pyFloatRepr(value);
  }
  if (typeof value === "string") return pyStrRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`);
    return `{${entries.join(", ")}}`;
  }
  return String(value);
}

/** Python `repr(str)`: single quotes unless the text holds a `'` and no `"`. */
function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (isPyNonPrintable(code)) {
      const width = code < 0x100 ? 2 : code <= 0xffff ? 4 : 8;
      const tag = width === 2 ? "x" : width === 4 ? "u" : "U";
      out += `\\${tag}${code.toString(16).padStart(width, "0")}`;
    } else out += ch;
  }
  return `${quote}${out}${quote}`;
}

/** Separators, format and unassigned/private code points Python escapes in repr (approximation). */
const PY_NON_PRINTABLE = /[\p{Z}\p{C}]/u;

function isPyNonPrintable(code: number): boolean {
  if (code === 0x20) return false;
  return PY_NON_PRINTABLE.test(String.fromCodePoint(code));
}
