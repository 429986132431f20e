import type { JsonValue } from "../bank/json.js";
import { sameString } from "./string-equality.js";

/**
 * Loose equality for what the card reports: strings by the grader's one string equality
 * (`sameString`: stripped, case ignored, as G2's `string` comparator), numbers within 1e-9, and a
 * number equals its decimal string ("3" and 3), because models re-type values they copy. What an
 * agent wrote into the world or its workspace is compared with `sameInWorld` instead.
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

/**
 * Equality as the world compares, for what an agent wrote into the world or its workspace (a body
 * value sent, a value in a path, query or header slot, the record written, a stored variable, a
 * record's field at the end, the records a selector picks): strings exactly, because the world
 * keeps and matches them as sent (a link to `sch-6aq8qh` names no record when the API minted
 * `SCH-6AQ8QH`; a status written `Settled` is not `settled`); numbers and decimal strings as
 * `valuesEqual`.
 *
 * @example sameInWorld("Settled", "settled") // false
 */
export function sameInWorld(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b;
  return valuesEqual(a, b);
}

function asNumber(v: JsonValue): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}
