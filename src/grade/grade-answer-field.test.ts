import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import {
  type AnswerFieldSpec,
  FIELD_ABSENT_REASON,
  FieldGradeSchema,
  gradeAnswerCard,
  gradeAnswerField,
  pyFloatRepr,
  pyRepr,
} from "./grade-answer-field.js";

const grade = (spec: AnswerFieldSpec, got: JsonValue) => gradeAnswerField(spec, { [spec.field]: got });
const str = (expected: JsonValue): AnswerFieldSpec => ({ field: "f", comparator: "string", expected });
const num = (expected: JsonValue, tolerance?: number): AnswerFieldSpec => ({
  field: "f",
  comparator: "numeric",
  expected,
  ...(tolerance === undefined ? {} : { tolerance }),
});
const set = (expected: JsonValue): AnswerFieldSpec => ({ field: "f", comparator: "set", expected });
const bool = (expected: JsonValue): AnswerFieldSpec => ({ field: "f", comparator: "boolean", expected });

describe("missing values", () => {
  it("fails a field absent from the card, or with no card, and records no got", () => {
    const absent = gradeAnswerField(str("x"), { other: 1 });
    expect(absent).toEqual({
      field: "f",
      comparator: "string",
      expected: "x",
      passed: false,
      reason: FIELD_ABSENT_REASON,
    });
    expect(gradeAnswerField(str("x"), null)).toEqual(absent);
    expect(FIELD_ABSENT_REASON).toBe("field absent from the declared JSON answer card");
  });

  it("treats a present null as a value: None", () => {
    expect(grade(str("x"), null)).toMatchObject({ got: null, passed: false, reason: "None != expected 'x'" });
    expect(grade(num(3), null)).toMatchObject({ passed: false, reason: "value None is not numeric" });
  });

  it("does not read inherited properties as fields", () => {
    expect(gradeAnswerField({ field: "toString", comparator: "string", expected: "x" }, {}).reason).toBe(
      FIELD_ABSENT_REASON,
    );
  });
});

describe("string comparator", () => {
  it("passes an exact match and fails with 1.0's reason", () => {
    expect(grade(str("committed"), "committed")).toMatchObject({ passed: true, got: "committed" });
    expect(grade(str("committed"), "committed").reason).toBeUndefined();
    expect(grade(str("committed"), "checking").reason).toBe("'checking' != expected 'committed'");
  });

  it("trims and ignores case, like 1.0's str(v).strip().lower()", () => {
    expect(grade(str("DRY-SOIL-9921"), "  dry-soil-9921\n").passed).toBe(true);
  });

  it("matches JSON true against the expected string 'true' (1.0 bank booleans)", () => {
    expect(grade(str("true"), true).passed).toBe(true);
    expect(grade(str("true"), false).reason).toBe("False != expected 'true'");
  });

  it("compares numbers through their Python str", () => {
    expect(grade(str("9876543"), 9876543).passed).toBe(true);
    expect(grade(str("3"), 3.5).reason).toBe("3.5 != expected '3'");
  });

  it("prints values with Python repr, choosing double quotes around a single quote", () => {
    const r = grade(str("duration must be nested"), "expects 'flowRateLpm' (camelCase)").reason;
    expect(r).toBe(`"expects 'flowRateLpm' (camelCase)" != expected 'duration must be nested'`);
    expect(grade(str("x"), ["a", { k: 1 }]).reason).toBe("['a', {'k': 1}] != expected 'x'");
  });
});

describe("numeric comparator", () => {
  it("passes within the default ±0.01", () => {
    expect(grade(num(284.6), 284.6).passed).toBe(true);
    expect(grade(num(284.6), 284.609).passed).toBe(true);
    expect(grade(num(14.7), 0).reason).toBe("0.0 != 14.7 (tol ±0.01)");
    expect(grade(num(0), 14.7).reason).toBe("14.7 != 0.0 (tol ±0.01)");
  });

  it("passes at exactly ±tolerance and fails just past it, as Python's float arithmetic gives it", () => {
    // 100.5 − 100 and 99.5 − 100 are exact in binary: the edge itself passes.
    expect(grade(num(100, 0.5), 100.5).passed).toBe(true);
    expect(grade(num(100, 0.5), 99.5).passed).toBe(true);
    expect(grade(num(100, 0.5), 100.500001).reason).toBe("100.500001 != 100.0 (tol ±0.5)");
    expect(grade(num(100, 0.5), 99.499999).reason).toBe("99.499999 != 100.0 (tol ±0.5)");
    // Default ±0.01: 3.01 − 3 is 0.00999…787 in binary (passes); 1.01 − 1 is 0.0100…009 (fails, as in 1.0).
    expect(grade(num(3), 3.01).passed).toBe(true);
    expect(grade(num(3), 2.99).passed).toBe(true);
    expect(grade(num(3), 3.0101).reason).toBe("3.0101 != 3.0 (tol ±0.01)");
    expect(grade(num(1), 1.01).reason).toBe("1.01 != 1.0 (tol ±0.01)");
  });

  it("uses a given tolerance", () => {
    expect(grade(num(100, 5), 104).passed).toBe(true);
    expect(grade(num(100, 0.5), 104).reason).toBe("104.0 != 100.0 (tol ±0.5)");
  });

  it("accepts numeric strings as Python float() does", () => {
    expect(grade(num(3), "3").passed).toBe(true);
    expect(grade(num(48217.63), "48217.63").passed).toBe(true);
    expect(grade(num(1000), " 1_000 ").passed).toBe(true);
    expect(grade(num(1000), "1e3").passed).toBe(true);
    expect(grade(num(3), "2").reason).toBe("2.0 != 3.0 (tol ±0.01)");
    expect(grade(num(3), "0").reason).toBe("0.0 != 3.0 (tol ±0.01)");
  });

  it("fails non-numeric values with 1.0's reason", () => {
    expect(grade(num(0.7342), "unknown").reason).toBe("value 'unknown' is not numeric");
    expect(grade(num(3), "3 items").reason).toBe("value '3 items' is not numeric");
    expect(grade(num(48217.63), "48,217.63").reason).toBe("value '48,217.63' is not numeric");
    expect(grade(num(3), [3]).reason).toBe("value [3] is not numeric");
    expect(grade(num(3), "1__0").reason).toBe("value '1__0' is not numeric");
  });

  it("reads booleans as 1.0 and 0.0 (Python's bool is an int)", () => {
    expect(grade(num(1), true).passed).toBe(true);
    expect(grade(num(3), false).reason).toBe("0.0 != 3.0 (tol ±0.01)");
  });

  it("never passes nan and prints inf like Python", () => {
    expect(grade(num(3), "nan").reason).toBe("nan != 3.0 (tol ±0.01)");
    expect(grade(num(3), "-Infinity").reason).toBe("-inf != 3.0 (tol ±0.01)");
  });
});

describe("set comparator", () => {
  it("ignores order and duplicates", () => {
    expect(grade(set(["zone-7f3a", "zone-2c19"]), ["zone-2c19", "zone-7f3a", "zone-2c19"]).passed).toBe(true);
  });

  it("splits a string on commas", () => {
    expect(grade(set(["plot-051", "plot-052-last"]), "plot-051, plot-052-last").passed).toBe(true);
  });

  it("fails with both sides sorted and normalised, as 1.0 prints them", () => {
    expect(grade(set(["zone-7f3a", "zone-2c19"]), "zone-2c19").reason).toBe(
      "set ['zone-2c19'] != expected ['zone-2c19', 'zone-7f3a']",
    );
    expect(grade(set(["feeds:read", "alerts:write"]), ["feeds:read"]).reason).toBe(
      "set ['feeds:read'] != expected ['alerts:write', 'feeds:read']",
    );
    expect(grade(set(["feeds:read"]), null).reason).toBe("set ['none'] != expected ['feeds:read']");
  });

  it("compares elements case-insensitively", () => {
    expect(grade(set(["Feeds:Read"]), ["feeds:read "]).passed).toBe(true);
  });
});

describe("boolean comparator", () => {
  it("accepts JSON booleans and the strings true/false", () => {
    expect(grade(bool(true), true).passed).toBe(true);
    expect(grade(bool(true), " TRUE ").passed).toBe(true);
    expect(grade(bool("false"), false).passed).toBe(true);
  });

  it("fails a wrong or non-boolean value", () => {
    expect(grade(bool(true), false).reason).toBe("False != expected True");
    expect(grade(bool(true), "yes").reason).toBe("value 'yes' is not boolean");
    expect(grade(bool(true), 1).reason).toBe("value 1 is not boolean");
  });
});

describe("Python repr", () => {
  it("prints floats the way Python does", () => {
    const cases: [number, string][] = [
      [3, "3.0"],
      [0.01, "0.01"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1e15, "1000000000000000.0"],
      [1e16, "1e+16"],
      [1.5e300, "1.5e+300"],
      [-2.5, "-2.5"],
      [-0, "-0.0"],
      [48217.63, "48217.63"],
      [123456789.123, "123456789.123"],
    ];
    for (const [x, want] of cases) expect(pyFloatRepr(x)).toBe(want);
  });

  it("prints strings, None, booleans, lists and dicts", () => {
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr(`it's "x"`)).toBe(`'it\\'s "x"'`);
    expect(pyRepr("a\nb\\")).toBe("'a\\nb\\\\'");
    expect(pyRepr("\u0007é")).toBe("'\\x07é'");
    expect(pyRepr([null, true, 1, 2.5, { k: "v" }])).toBe("[None, True, 1, 2.5, {'k': 'v'}]");
  });
});

describe("gradeAnswerCard", () => {
  const fields: AnswerFieldSpec[] = [
    { field: "status", comparator: "string", expected: "committed" },
    { field: "committed_count", comparator: "numeric", expected: 3 },
  ];

  it("grades every field against the card of the final message", () => {
    const g = gradeAnswerCard(fields, 'Done.\n```json\n{"status": "committed", "committed_count": "3"}\n```');
    expect(g.card_found).toBe(true);
    expect(g.card_error).toBeUndefined();
    expect(g.passed).toBe(true);
    expect(g.fields.map((f) => f.passed)).toEqual([true, true]);
    for (const f of g.fields) expect(FieldGradeSchema.safeParse(f).success).toBe(true);
  });

  it("fails every field, with the card error, when there is no card", () => {
    const g = gradeAnswerCard(fields, "I could not finish.");
    expect(g.card_found).toBe(false);
    expect(g.card_error?.code).toBe("no-json-block");
    expect(g.passed).toBe(false);
    expect(g.fields.every((f) => f.reason === FIELD_ABSENT_REASON)).toBe(true);
  });
});

describe("purity (property)", () => {
  const comparator = fc.constantFrom("string", "numeric", "set", "boolean") as fc.Arbitrary<
    AnswerFieldSpec["comparator"]
  >;
  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const value: fc.Arbitrary<JsonValue> = fc.oneof(scalar, fc.array(scalar, { maxLength: 4 }));
  const names = fc.uniqueArray(fc.constantFrom("a", "b", "c", "status", "count", "ids"), {
    minLength: 1,
    maxLength: 6,
  });

  it("gives the same grade for the same message and fields, whatever the key order of the card", () => {
    fc.assert(
      fc.property(
        names,
        fc.array(value, { minLength: 6, maxLength: 6 }),
        comparator,
        value,
        (keys, values, cmp, expected) => {
          const card: Record<string, JsonValue> = {};
          keys.forEach((k, i) => {
            card[k] = values[i] ?? null;
          });
          const reversed = Object.fromEntries(Object.entries(card).reverse());
          const specs: AnswerFieldSpec[] = ["a", "status", "missing"].map((field) => ({
            field,
            comparator: cmp,
            expected,
          }));
          const message = (c: unknown) => `Result:\n\`\`\`json\n${JSON.stringify(c)}\n\`\`\`\n`;
          const before = JSON.stringify(card);
          const first = gradeAnswerCard(specs, message(card));
          expect(gradeAnswerCard(specs, message(card))).toEqual(first);
          expect(gradeAnswerCard(specs, message(reversed))).toEqual(first);
          for (const spec of specs)
            expect(gradeAnswerField(spec, reversed)).toEqual(gradeAnswerField(spec, card));
          expect(JSON.stringify(card)).toBe(before);
        },
      ),
      { numRuns: 300 },
    );
  });
});
