import type { JsonObject, JsonValue } from "../bank/json.js";
import type { RecordRef, RecordSelector } from "../bank/task-schema.js";
import { resolveCanaries } from "../world/canary.js";
import { sameInWorld } from "./values-equal.js";

/**
 * The world's records when the trial ended, by resource: what end-state predicates and record
 * references read. Absent when the trial's records were not kept (a log stored before they were).
 */
export type FinalRecords = Readonly<Record<string, readonly JsonObject[]>>;

/** An expected value resolved for one trial, or why it could not be. */
export type Resolved = { ok: true; value: JsonValue } | { ok: false; reason: string };

/** True for `{"$record": {…}, "field": "…"}` and nothing else. */
export function isRecordRef(value: unknown): value is RecordRef {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const v = value as { $record?: unknown; field?: unknown };
  return (
    typeof v.field === "string" &&
    v.$record !== null &&
    typeof v.$record === "object" &&
    Object.keys(value).every((k) => k === "$record" || k === "field")
  );
}

/**
 * The records a selector picks in the final state: every record of its resource whose fields equal
 * `where` (canaries resolved for the trial; strings compared exactly, as the world compares: `sameInWorld`).
 *
 * @example selectRecords({ resource: "runs", where: { status: "confirmed" } }, records, seed).length // 1
 */
export function selectRecords(
  selector: RecordSelector,
  records: FinalRecords,
  trialSeed: string,
): JsonObject[] {
  const where = Object.entries(selector.where).map(([k, v]) => [k, resolveCanaries(v, trialSeed)] as const);
  const list = records[selector.resource] ?? [];
  return list.filter((r) =>
    where.every(([k, v]) => {
      const got = r[k];
      return got !== undefined && sameInWorld(got, v);
    }),
  );
}

/**
 * The record a selector means, in words, for failure reasons: its `role`, else its resource and
 * fields (`the runs record with sample_id=S-12, status=confirmed`).
 *
 * @example describeRecord({ resource: "runs", where: { sample_id: "S-12" } }, seed) // "the runs record with sample_id=S-12"
 */
export function describeRecord(selector: RecordSelector, trialSeed: string): string {
  if (selector.role) return selector.role;
  const fields = Object.entries(selector.where).map(
    ([k, v]) => `${k}=${String(resolveCanaries(v, trialSeed))}`,
  );
  return fields.length
    ? `the ${selector.resource} record with ${fields.join(", ")}`
    : `every ${selector.resource} record`;
}

/**
 * An expected value for one trial: canary references minted from the seed, record references read
 * from the final state (the `field` of the one record the selector picks among the records at the
 * end; when none is left, among the records deleted during the trial — the run opened, then
 * superseded — the last one deleted). A record reference with no record, with several live ones,
 * or without final records is unresolved, and the reason names the record the grader meant.
 *
 * @example resolveExpected({ $record: { resource: "runs", where: { sample_id: "S-12" } }, field: "run_id" }, seed, records)
 * // → { ok: true, value: "RUN-5KRT67" }
 */
export function resolveExpected(
  value: unknown,
  trialSeed: string,
  records: FinalRecords | undefined,
  removed?: FinalRecords,
): Resolved {
  if (!isRecordRef(value)) return { ok: true, value: resolveCanaries(value, trialSeed) };
  const meant = `the ${value.field} of ${describeRecord(value.$record, trialSeed)}`;
  if (!records) return { ok: false, reason: `${meant} is unknown: the world's final records were not kept` };
  let picked = selectRecords(value.$record, records, trialSeed);
  // None left at the end: the record may have been deleted later on (opened, then superseded).
  if (picked.length === 0 && removed) picked = selectRecords(value.$record, removed, trialSeed).slice(-1);
  if (picked.length === 0) return { ok: false, reason: `${meant}: no such record at the end of the trial` };
  if (picked.length > 1)
    return { ok: false, reason: `${meant}: ${picked.length} records match at the end of the trial, not one` };
  const got = (picked[0] as JsonObject)[value.field];
  if (got === undefined) return { ok: false, reason: `${meant}: that record has no ${value.field}` };
  return { ok: true, value: got };
}

/** What an expected value refers to, in words, when it is a record reference; else undefined. */
export function meantRecord(value: unknown, trialSeed: string): string | undefined {
  return isRecordRef(value) ? `the ${value.field} of ${describeRecord(value.$record, trialSeed)}` : undefined;
}
