import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import {
  type AnswerFieldSpec,
  gradeAnswerCard,
  gradeAnswerField,
  pyFloatRepr,
  pyRepr,
} from "./grade-answer-field.js";

/**
 * G2's comparators and 1.0's Python printing at their edges (issue 21: mutation testing): the
 * float grammar, code-point order of sets, escapes of repr and the reasons of a bad expected value.
 */
const grade = (spec: AnswerFieldSpec, got: JsonValue) => gradeAnswerField(spec, { [spec.field]: got });
const num = (expected: JsonValue, tolerance?: number): AnswerFieldSpec => ({
  field: "f",
  comparator: "numeric",
  expected,
  ...(tolerance === undefined ? {} : { tolerance }),
});
const set = (expected: JsonValue): AnswerFieldSpec => ({ field: "f", comparator: "set", expected });
const bool = (expected: JsonValue): AnswerFieldSpec => ({ field: "f", comparator: "boolean", expected });

describe("numeric: Python float() grammar", () => {
  for (const [text, value] of [
    ["+3", 3],
    [".5", 0.5],
    ["5.", 5],
    ["-2.5e-1", -0.25],
    ["1_0.2_5", 10.25],
    [" \t7\n", 7],
  ] as const) {
    it(`reads ${JSON.stringify(text)} as ${value}`, () => {
      expect(grade(num(value, 0), text).passed).toBe(true);
    });
  }

  for (const text of ["1_", "_1", "1e", "e3", ".", "--1", "0x10", "1.2.3", "", "infinite"]) {
    it(`refuses ${JSON.stringify(text)} as not numeric`, () => {
      expect(grade(num(3), text).reason).toMatch(/^value .* is not numeric$/);
    });
  }

  it("inf and nan in any case and sign; inf never equals a finite value", () => {
    expect(grade(num(3), "INF").reason).toBe("inf != 3.0 (tol ±0.01)");
    expect(grade(num(3), "+Infinity").reason).toBe("inf != 3.0 (tol ±0.01)");
    expect(grade(num(3), "-inf").reason).toBe("-inf != 3.0 (tol ±0.01)");
    expect(grade(num(3), "NaN").reason).toBe("nan != 3.0 (tol ±0.01)");
  });

  it("a value equal to the expected one passes with tolerance 0; the distance is symmetric", () => {
    expect(grade(num(2.5, 0), 2.5).passed).toBe(true);
    expect(grade(num(2.5, 0.5), 2).passed).toBe(true);
    expect(grade(num(2.5, 0.5), 3).passed).toBe(true);
    expect(grade(num(2.5, 0.5), 1.9).passed).toBe(false);
  });

  it("an expected value that is not numeric is named", () => {
    expect(grade(num("n/a"), 3).reason).toBe("expected 'n/a' is not numeric");
    expect(grade(num(null), 3).reason).toBe("expected None is not numeric");
  });

  it("None, dicts and lists are not numeric", () => {
    expect(grade(num(3), null).reason).toBe("value None is not numeric");
    expect(grade(num(3), { a: 1 }).reason).toBe("value {'a': 1} is not numeric");
  });
});

describe("set: Python's order and normal form", () => {
  it("sorts by code point, as Python does (not by UTF-16 unit, not by locale)", () => {
    // U+FF5A (fullwidth z) sorts before U+1D7D8 (double-struck 0) by code point, after it by UTF-16 unit.
    expect(grade(set(["\u{1D7D8}", "\uFF5A"]), ["x"]).reason).toBe(
      "set ['x'] != expected ['\uFF5A', '\u{1D7D8}']",
    );
    expect(grade(set(["b", "a", "B", "ab"]), ["zz"]).reason).toBe("set ['zz'] != expected ['a', 'ab', 'b']");
    expect(grade(set(["é", "z"]), ["x"]).reason).toBe("set ['x'] != expected ['z', 'é']");
  });

  it("same elements pass; one more or one other element fails", () => {
    expect(grade(set(["a", "b"]), "b,a").passed).toBe(true);
    expect(grade(set(["a", "b"]), ["a", "b", "c"]).passed).toBe(false);
    expect(grade(set(["a", "b"]), ["a", "c"]).passed).toBe(false);
    expect(grade(set(["a", "b"]), ["a"]).passed).toBe(false);
  });

  it("a scalar is split on commas after Python str(): numbers and booleans", () => {
    expect(grade(set(["3"]), 3).passed).toBe(true);
    expect(grade(set(["true"]), true).passed).toBe(true);
    expect(grade(set(["1", "2"]), "1 ,2 ").passed).toBe(true);
  });
});

describe("boolean: the expected side", () => {
  it("an expected value that is not boolean is named; false matches false", () => {
    expect(grade(bool("maybe"), true).reason).toBe("expected 'maybe' is not boolean");
    expect(grade(bool(false), "False").passed).toBe(true);
    expect(grade(bool(false), true).reason).toBe("True != expected False");
    expect(grade(bool(true), null).reason).toBe("value None is not boolean");
  });
});

describe("Python repr: the rest", () => {
  it("floats: nan, infinities, zero, and the -4/16 exponent edges", () => {
    expect(pyFloatRepr(Number.NaN)).toBe("nan");
    expect(pyFloatRepr(Number.POSITIVE_INFINITY)).toBe("inf");
    expect(pyFloatRepr(Number.NEGATIVE_INFINITY)).toBe("-inf");
    expect(pyFloatRepr(0)).toBe("0.0");
    expect(pyFloatRepr(-0.00012)).toBe("-0.00012");
    expect(pyFloatRepr(-0.000012)).toBe("-1.2e-05");
    expect(pyFloatRepr(9999999999999998)).toBe("9999999999999998.0");
    expect(pyFloatRepr(2.5e-7)).toBe("2.5e-07");
    expect(pyFloatRepr(-3e20)).toBe("-3e+20");
    expect(pyFloatRepr(1.25e123)).toBe("1.25e+123");
    expect(pyFloatRepr(120)).toBe("120.0");
    expect(pyFloatRepr(0.5)).toBe("0.5");
  });

  it("numbers: integral values as ints (big ones whole), others as floats", () => {
    expect(pyRepr(-7)).toBe("-7");
    expect(pyRepr(1e21)).toBe("1000000000000000000000");
    expect(pyRepr(-0.5)).toBe("-0.5");
    expect(pyRepr(undefined)).toBe("None");
    expect(pyRepr(false)).toBe("False");
    expect(pyRepr({})).toBe("{}");
    expect(pyRepr([])).toBe("[]");
    expect(pyRepr({ "it's": [1, "a"] })).toBe(`{"it's": [1, 'a']}`);
  });

  it("strings: control characters, separators and astral non-printables escaped as Python does", () => {
    expect(pyRepr("a\rb\tc")).toBe("'a\\rb\\tc'");
    expect(pyRepr("a b")).toBe("'a b'");
    expect(pyRepr("\u00a0")).toBe("'\\xa0'");
    expect(pyRepr("\u2028")).toBe("'\\u2028'");
    expect(pyRepr("\u{E0001}")).toBe("'\\U000e0001'");
    expect(pyRepr("\uffff")).toBe("'\\uffff'");
    expect(pyRepr({ a: 1, b: "x" })).toBe("{'a': 1, 'b': 'x'}");
    expect(pyRepr('say "hi"')).toBe(`'say "hi"'`);
    expect(pyRepr('it\'s "x" \\')).toBe(`'it\\'s "x" \\\\'`);
    expect(pyRepr(`it's`)).toBe(`"it's"`);
  });
});

describe("gradeAnswerCard: every field must pass", () => {
  const fields: AnswerFieldSpec[] = [
    { field: "a", comparator: "string", expected: "x" },
    { field: "b", comparator: "string", expected: "y" },
  ];

  it("one passing field of two is a fail; a found card carries no card_error key", () => {
    const half = gradeAnswerCard(fields, '```json\n{"a": "x", "b": "no"}\n```');
    expect(half.passed).toBe(false);
    expect(half.fields.map((f) => f.passed)).toEqual([true, false]);
    expect(Object.keys(half)).not.toContain("card_error");
    const whole = gradeAnswerCard(fields, '```json\n{"a": "x", "b": "y"}\n```');
    expect(whole.passed).toBe(true);
    expect(Object.keys(whole)).not.toContain("card_error");
  });
});
