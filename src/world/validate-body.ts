import type { JsonObject, JsonValue } from "../bank/json.js";
import type { BodyField, FieldType, Validator } from "../bank/world-schema.js";

/** One problem the live validator found, naming its field. */
export interface FieldProblem {
  [key: string]: JsonValue;
  field: string;
  code: "missing" | "wrong_name" | "unknown_field" | "invalid_enum" | "invalid_type";
  message: string;
}

/**
 * Check a request body against a route's live validator (schema repair) and report every
 * problem at once, each naming its field. Wrong case is recognised: `duration_min` where the
 * validator declares `durationMin` is reported as `wrong_name` with `expected: "durationMin"`.
 * Problems come in the order of the field names, sorted, whatever the order of the body's keys or
 * of the validator's fields: a bank written to disk (keys sorted) answers word for word as the bank
 * in memory did, so a ticket quoting the error stays true.
 *
 * @example validateBody({ fields: { durationMin: { type: "integer", required: true } } }, { duration_min: 5 }, "create")
 * // [{ field: "duration_min", code: "wrong_name", expected: "durationMin", … }, { field: "durationMin", code: "missing", … }]
 */
export function validateBody(
  validator: Validator,
  body: JsonObject,
  action: "create" | "update",
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const byLoose = new Map<string, string>();
  for (const name of Object.keys(validator.fields)) byLoose.set(loose(name), name);
  const renamed = new Set<string>();
  for (const name of Object.keys(body).sort()) {
    const value = body[name] as JsonValue;
    const def = validator.fields[name];
    if (def) {
      const problem = checkValue(name, def, value);
      if (problem) problems.push(problem);
      continue;
    }
    const expected = byLoose.get(loose(name));
    if (expected !== undefined) {
      renamed.add(expected);
      problems.push({
        field: name,
        code: "wrong_name",
        expected,
        message: `unknown field ${name}`,
      });
    } else if (validator.reject_unknown) {
      problems.push({ field: name, code: "unknown_field", message: `unknown field ${name}` });
    }
  }
  if (action === "create") {
    for (const name of Object.keys(validator.fields).sort()) {
      const def = validator.fields[name] as BodyField;
      if (def.required && isAbsent(body[name])) {
        problems.push({
          field: name,
          code: "missing",
          message: renamed.has(name) ? `missing (sent under another name)` : "missing",
        });
      }
    }
  }
  return problems;
}

/**
 * The problems a hard task's error reports: every one, except the `missing` entry of a field the
 * body sent under another name. Beside "unknown field duration_min", "durationMin: missing" would
 * name the renamed field, which is the fix; the unknown name says what is wrong, and the spec's
 * request schema gives the name it should have.
 *
 * @example terseProblems(validateBody(v, { duration_min: 5 }, "create")).map((p) => p.code) // ["wrong_name"]
 */
export function terseProblems(problems: readonly FieldProblem[]): FieldProblem[] {
  const renamed = new Set(problems.flatMap((p) => (p.code === "wrong_name" ? [String(p.expected)] : [])));
  return problems.filter((p) => !(p.code === "missing" && renamed.has(p.field)));
}

/**
 * One line naming every problem. `full` names each fix (the name a field expects, the type or values
 * it accepts); `terse`, for a hard task's error, says only what is wrong (each problem's own
 * message, which never names the fix, over `terseProblems`).
 *
 * @example summarizeProblems(problems) // "unknown field duration_min, did you mean durationMin?; priority: must be one of low, high, got \"HIGH\""
 * @example summarizeProblems(problems, "terse") // "unknown field duration_min; priority: not an accepted value: \"HIGH\""
 */
export function summarizeProblems(
  problems: readonly FieldProblem[],
  level: "full" | "terse" = "full",
): string {
  if (level === "terse")
    return terseProblems(problems)
      .map((p) => terseLine(p))
      .join("; ");
  const fixed = (p: FieldProblem): string => {
    switch (p.code) {
      case "wrong_name":
        return `${p.message}, did you mean ${String(p.expected)}?`;
      case "invalid_type":
        return `${p.field}: must be of type ${String(p.expected)}, got ${String(p.got)}`;
      case "invalid_enum":
        return `${p.field}: must be one of ${(p.allowed as JsonValue[]).map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")}, got ${JSON.stringify(p.got)}`;
      default:
        return `${p.field}: ${p.message}`;
    }
  };
  return problems.map(fixed).join("; ");
}

function terseLine(p: FieldProblem): string {
  return p.code === "wrong_name" ? p.message : `${p.field}: ${p.message}`;
}

export function isAbsent(value: JsonValue | undefined): boolean {
  return value === undefined || value === null || value === "";
}

function loose(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, "");
}

function checkValue(field: string, def: BodyField, value: JsonValue): FieldProblem | null {
  if (value === null) return null;
  const got = typeOf(value);
  if (!matchesType(def.type, value)) {
    return {
      field,
      code: "invalid_type",
      expected: def.type,
      got,
      message: `wrong type, got ${got}`,
    };
  }
  if (def.enum && !def.enum.some((allowed) => JSON.stringify(allowed) === JSON.stringify(value))) {
    return {
      field,
      code: "invalid_enum",
      allowed: def.enum,
      got: value,
      message: `not an accepted value: ${JSON.stringify(value)}`,
    };
  }
  return null;
}

function matchesType(type: FieldType, value: JsonValue): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
  }
}

function typeOf(value: JsonValue): string {
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
