import type { JsonValue } from "../bank/json.js";
import { sameString } from "./string-equality.js";

/**
 * Loose equality for provenance checks: strings by the grader's one string equality (`sameString`:
 * stripped, case ignored, as G2's `string` comparator), numbers within 1e-9, and a number equals
 * its decimal string ("3" and 3), because models re-type values they copy.
 *
 * @example valuesEqual("Queued", "queued") // true
 */
export function valuesEqual(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === "string" && typeof b === "string") return sameString(a, b);
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== null && nb !== null && (typeof a === "number" || typeof b === "number"))
    return Math.abs(na - nb) < 1e-9;
  if (typeof a === "boolean" || typeof b === "boolean") return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

function asNumber(v: JsonValue): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}
