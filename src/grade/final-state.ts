import type { JsonObject, JsonValue } from "../bank/json.js";
import type { RecordRef, RecordSelector } from "../bank/task-schema.js";
import { isCanaryRef, resolveCanaries } from "../world/canary.js";
import { pathValues } from "../world/canonical-request.js";
import type { TrialEvent } from "../world/event-log.js";
import { sameInWorld } from "./values-equal.js";

/**
 * The world's records when the trial ended, by resource: what end-state predicates and record
 * references read. Absent when the trial's records were not kept (a log stored before they were).
 */
export type FinalRecords = Readonly<Record<string, readonly JsonObject[]>>;

/**
 * Final records that can give, for a resource, its records whose stored JSON text holds every one
 * of some strings, without parsing the others (a stored log's, read lazily: a selector picks one
 * record of a catalogue of dozens). The answer holds every record the strings' owners could be, in
 * the resource's order, and may hold more: `selectRecords` still checks each. Undefined: no such
 * shortcut, read the resource.
 */
export const RECORDS_HOLDING: unique symbol = Symbol("records holding");
export interface RecordsHolding {
  [RECORDS_HOLDING]?: (resource: string, texts: readonly string[]) => readonly JsonObject[] | undefined;
}

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
  return selectPrepared(prepareSelector(selector), selector.resource, records, trialSeed);
}

function selectPrepared(
  prepared: PreparedSelector,
  resource: string,
  records: FinalRecords,
  trialSeed: string,
): JsonObject[] {
  const holding = (records as RecordsHolding)[RECORDS_HOLDING];
  let where = prepared.fixed;
  let texts = prepared.texts;
  if (prepared.minted.length > 0) {
    const minted = resolvedWhere(prepared.minted, trialSeed);
    where = [...minted, ...where];
    // The trial's own canary is the rarest text: asked first, it finds the fewest lines to check.
    const own = textsOf(minted);
    if (own) texts = texts ? [...own, ...texts] : own;
  }
  const list =
    (holding && (texts ? holding(resource, texts) : holdingNumber(holding, resource, prepared.number))) ??
    records[resource] ??
    [];
  const out: JsonObject[] = [];
  for (const r of list) if (holdsAll(r, where)) out.push(r);
  return out;
}

/**
 * The texts a record holding every field of `where` must show in its JSON: each plain string's
 * JSON form. Only strings that are no number (`sameInWorld` takes "3" for 3) and that JSON writes
 * without an escape; undefined when no field gives one.
 */
function textsOf(where: ReadonlyArray<readonly [string, JsonValue]>): string[] | undefined {
  let texts: string[] | undefined;
  for (const [, v] of where) {
    if (typeof v !== "string" || (v.trim() !== "" && Number.isFinite(Number(v)))) continue;
    const json = JSON.stringify(v);
    if (json.length !== v.length + 2) continue;
    texts ??= [];
    texts.push(json);
  }
  return texts;
}

/**
 * The text a record equal to a whole number a selector asks for as a string (`{"room_no": "512"}`)
 * shows in the stored log's JSON (JSON.stringify's numbers: the shortest digits, no exponent from
 * 1 to 1e21): `sameInWorld` takes the string itself, or a number within 1e-9 of 512. Those show
 * its digits (`"512"`, `512`, `512.0000000001`) but for numbers just below it, which show the
 * digits below it then eight nines (`511.99999999995`, see `JUST_BELOW`). Only a string spelled as
 * the number prints (a number in the selector equals strings in any spelling: `" 512 "`,
 * `"5.12e2"`), and only a positive whole number below 2^53 (near a fraction or zero, the digits of
 * close numbers differ more).
 */
function numberDigits(where: ReadonlyArray<readonly [string, JsonValue]>): string | undefined {
  for (const [, v] of where) {
    // Only a string can equal its number's print (a number, true or null never does).
    const n = Number(v);
    if (Number.isSafeInteger(n) && n > 0 && String(n) === v) return v;
  }
  return undefined;
}

/** What every number just below a whole number shows (`511.99999999995`), whichever the number. */
const JUST_BELOW = ".99999999";

/**
 * The records holding a whole number's digits (see `numberDigits`), when no record holds a number
 * just below a whole one; undefined (read the resource) otherwise.
 */
function holdingNumber(
  holding: NonNullable<RecordsHolding[typeof RECORDS_HOLDING]>,
  resource: string,
  digits: string | undefined,
): readonly JsonObject[] | undefined {
  if (digits === undefined) return undefined;
  const below = holding(resource, [JUST_BELOW]);
  return below === undefined || below.length > 0 ? undefined : holding(resource, [digits]);
}

function holdsAll(r: JsonObject, where: ReadonlyArray<readonly [string, JsonValue]>): boolean {
  for (const [k, v] of where) {
    const got = r[k];
    if (got === undefined || !sameInWorld(got, v)) return false;
  }
  return true;
}

/**
 * A selector with what picking its records needs from the selector alone: its fields that are the
 * same in every trial, resolved, with the texts they show, and apart those holding a canary
 * (resolved per trial: most selectors have none).
 */
interface PreparedSelector {
  /** The selector as written, known by its resource and fields (see `TrialFinalState`). */
  key: string;
  fixed: ReadonlyArray<readonly [string, JsonValue]>;
  minted: ReadonlyArray<readonly [string, unknown]>;
  texts: string[] | undefined;
  /** A whole number the fixed fields ask for as a string, when they show no text (see `numberDigits`). */
  number: string | undefined;
}

// Keyed by the selector object (bank data, never mutated once graded): prepared once, not per trial.
const preparedSelectors = new WeakMap<RecordSelector, PreparedSelector>();

function prepareSelector(selector: RecordSelector): PreparedSelector {
  let prepared = preparedSelectors.get(selector);
  if (prepared === undefined) {
    const fixed: Array<readonly [string, JsonValue]> = [];
    const minted: Array<readonly [string, unknown]> = [];
    for (const [k, v] of Object.entries(selector.where)) {
      // A value with no canary is the same in every trial: as written.
      if (holdsCanary(v)) minted.push([k, v]);
      else fixed.push([k, v as JsonValue]);
    }
    const texts = textsOf(fixed);
    prepared = {
      key: JSON.stringify([selector.resource, selector.where]),
      fixed,
      minted,
      texts,
      number: texts ? undefined : numberDigits(fixed),
    };
    preparedSelectors.set(selector, prepared);
  }
  return prepared;
}

function resolvedWhere(
  entries: ReadonlyArray<readonly [string, unknown]>,
  trialSeed: string,
): Array<readonly [string, JsonValue]> {
  return entries.map(([k, v]) => [k, resolveCanaries(v, trialSeed)] as const);
}

/** Whether a JSON value holds a canary reference at any depth (resolving it then depends on the seed). */
function holdsCanary(value: unknown): boolean {
  if (isCanaryRef(value)) return true;
  if (Array.isArray(value)) return value.some(holdsCanary);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsCanary);
  return false;
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
 * superseded — the last one deleted). When several live records hold the role, the one meant is
 * the one the trial's decisive action was applied to (see `decisiveRecord`): an abandoned
 * duplicate, never acted on again, is not it. A record reference with no record, with several
 * live ones none of which (or more than one of which) was acted on, or without final records is
 * unresolved, and the reason names the record the grader meant.
 *
 * @example resolveExpected({ $record: { resource: "runs", where: { sample_id: "S-12" } }, field: "run_id" }, seed, records)
 * // → { ok: true, value: "RUN-5KRT67" }
 */
export function resolveExpected(
  value: unknown,
  trialSeed: string,
  records: FinalRecords | undefined,
  removed?: FinalRecords,
  events?: readonly TrialEvent[],
): Resolved {
  if (!isRecordRef(value)) return { ok: true, value: resolveCanaries(value, trialSeed) };
  return resolveRecordRef(value, trialSeed, {
    picked: (selector) => records && selectRecords(selector, records, trialSeed),
    pickedRemoved: (selector) => removed && selectRecords(selector, removed, trialSeed),
    events,
  });
}

/** Where a record reference's records are picked: the final records and the removed ones (undefined when not kept). */
interface RecordPicker {
  picked(selector: RecordSelector): readonly JsonObject[] | undefined;
  pickedRemoved(selector: RecordSelector): readonly JsonObject[] | undefined;
  readonly events: readonly TrialEvent[] | undefined;
}

function resolveRecordRef(value: RecordRef, trialSeed: string, picker: RecordPicker): Resolved {
  // Described only for a reason (`meantRecord`): a resolved reference builds no words.
  let picked = picker.picked(value.$record);
  if (!picked)
    return {
      ok: false,
      reason: `${meantRecord(value, trialSeed)} is unknown: the world's final records were not kept`,
    };
  // None left at the end: the record may have been deleted later on (opened, then superseded).
  if (picked.length === 0) {
    const removed = picker.pickedRemoved(value.$record);
    if (removed) picked = removed.slice(-1);
  }
  if (picked.length === 0)
    return { ok: false, reason: `${meantRecord(value, trialSeed)}: no such record at the end of the trial` };
  if (picked.length > 1) {
    const decisive = picker.events ? decisiveRecord(picked, picker.events) : undefined;
    if (!decisive)
      return {
        ok: false,
        reason: `${meantRecord(value, trialSeed)}: ${picked.length} records match at the end of the trial, and no later write was applied to exactly one of them`,
      };
    picked = [decisive];
  }
  const got = (picked[0] as JsonObject)[value.field];
  if (got === undefined)
    return { ok: false, reason: `${meantRecord(value, trialSeed)}: that record has no ${value.field}` };
  return { ok: true, value: got };
}

/**
 * One trial's final state as its checks read it: the records each selector picks are picked once
 * per trial (a chain names one record in many predicates and answer fields), known by the selector
 * as written (the trial's seed resolves a canary in it alike every time). The records are read
 * from `state` when first needed (a stored log parses them on first read). Made per graded trial,
 * never shared across trials.
 *
 * @example const state = new TrialFinalState(input, trialSeed, input.events); state.resolve(field.expected)
 */
export class TrialFinalState implements RecordPicker {
  readonly #picked = new Map<string, readonly JsonObject[]>();
  readonly #pickedRemoved = new Map<string, readonly JsonObject[]>();

  constructor(
    private readonly state: {
      readonly finalRecords?: FinalRecords | undefined;
      readonly removedRecords?: FinalRecords | undefined;
    },
    readonly trialSeed: string,
    readonly events: readonly TrialEvent[] | undefined,
  ) {}

  get finalRecords(): FinalRecords | undefined {
    return this.state.finalRecords;
  }

  get removedRecords(): FinalRecords | undefined {
    return this.state.removedRecords;
  }

  /** The final records a selector picks; undefined when they were not kept. */
  picked(selector: RecordSelector): readonly JsonObject[] | undefined {
    const records = this.state.finalRecords;
    return records && pickOnce(this.#picked, selector, records, this.trialSeed);
  }

  /** The deleted records a selector picks; undefined when none were kept. */
  pickedRemoved(selector: RecordSelector): readonly JsonObject[] | undefined {
    const removed = this.state.removedRecords;
    return removed && pickOnce(this.#pickedRemoved, selector, removed, this.trialSeed);
  }

  /** `resolveExpected` of a value for this trial. */
  resolve(value: unknown): Resolved {
    if (!isRecordRef(value)) return { ok: true, value: resolveCanaries(value, this.trialSeed) };
    return resolveRecordRef(value, this.trialSeed, this);
  }
}

function pickOnce(
  picks: Map<string, readonly JsonObject[]>,
  selector: RecordSelector,
  records: FinalRecords,
  trialSeed: string,
): readonly JsonObject[] {
  const prepared = prepareSelector(selector);
  let picked = picks.get(prepared.key);
  if (picked === undefined) {
    picked = selectPrepared(prepared, selector.resource, records, trialSeed);
    picks.set(prepared.key, picked);
  }
  return picked;
}

/**
 * Among several records that hold one role, the one the trial's decisive action was applied to:
 * the only one a successful write (a 2xx answer to anything but GET or HEAD) addressed by a value
 * no other candidate has — its id, a whole segment of the request path (the run confirmed, the
 * order moved to `committed`). The create of each is not such a write (its path names none), so a
 * duplicate created and abandoned is never it; undefined when none, or more than one, was.
 *
 * @example decisiveRecord([{ id: "R-1", s: "S-12" }, { id: "R-2", s: "S-12" }], events) // the one PATCHed: { id: "R-2", … }
 */
export function decisiveRecord(
  candidates: readonly JsonObject[],
  events: readonly TrialEvent[],
): JsonObject | undefined {
  const written = new Set<string>();
  for (const e of events)
    if (e.type === "exchange" && e.status >= 200 && e.status < 300 && !/^(GET|HEAD)$/i.test(e.method))
      for (const segment of pathValues(e.url)) written.add(segment);
  const own = (r: JsonObject) =>
    Object.values(r).flatMap((v) => (typeof v === "string" || typeof v === "number" ? [String(v)] : []));
  const shared = new Map<string, number>();
  for (const r of candidates) for (const v of new Set(own(r))) shared.set(v, (shared.get(v) ?? 0) + 1);
  const acted = candidates.filter((r) => own(r).some((v) => shared.get(v) === 1 && written.has(v)));
  return acted.length === 1 ? acted[0] : undefined;
}

/** What an expected value refers to, in words, when it is a record reference; else undefined. */
export function meantRecord(value: unknown, trialSeed: string): string | undefined {
  return isRecordRef(value) ? `the ${value.field} of ${describeRecord(value.$record, trialSeed)}` : undefined;
}
