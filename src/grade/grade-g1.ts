import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import { type KeyPath, keyPath, lastKey, valuesAtKeyPath, valuesAtPath } from "../bank/key-path.js";
import type {
  AnswerField,
  CallMatch,
  Checkpoint,
  ForbidConstraint,
  G1Predicate,
  GraderSpec,
  OtherSource,
  UseSlot,
} from "../bank/task-schema.js";
import { pathValues, queryParam } from "../world/canonical-request.js";
import type { ExchangeEvent, TrialEvent, VariableWriteEvent } from "../world/event-log.js";
import { MAX_WAIT_SECONDS } from "../world/trial-world.js";
import {
  decisiveRecord,
  describeRecord,
  type FinalRecords,
  type Resolved,
  TrialFinalState,
} from "./final-state.js";
import { answerAccepts } from "./grade-answer-field.js";
import type { CheckpointResult, ConstraintResult, G1Result } from "./grade-schema.js";
import { sameInWorld, valuesEqual } from "./values-equal.js";

/**
 * Evaluate one G1 predicate over the trial's event log. Pure: the same log, card and seed always
 * give the same result.
 *
 * Data flow passes when one value found at `from_body_key` in a matching response reaches every
 * required destination (when the card is unreadable or lacks the field, the card destination is
 * G2's to fail: the predicate is `not_evaluated` if the rest holds): the answer card field, a variable written after that response
 * (`must_be_stored`), and a later request matching `used_in_request_url_pattern` (URL, body or
 * header, compared through the header digest when the header was redacted).
 *
 * @example gradeG1Predicate(task.grader.g1[0], log.events, { plan_id: "plan-7c2e" }, trialSeed)
 * // → { id: "plan-id-flows", kind: "data_flow", explain: "…", passed: true, value: "plan-7c2e" }
 */
export function gradeG1Predicate(
  predicate: G1Predicate,
  events: readonly TrialEvent[],
  card: Record<string, unknown> | null,
  trialSeed: string,
  finalRecords?: FinalRecords,
  removedRecords?: FinalRecords,
): G1Result {
  return gradePrepared(
    preparePredicate(predicate),
    new TrialContext(events, card, trialSeed, { finalRecords, removedRecords }),
  );
}

/**
 * A forbid constraint is violated by any call matching it.
 *
 * @example gradeConstraint({ kind: "forbid", id: "no-v2", explain: "", url_pattern: "^/v2/" }, events)
 * // → { id: "no-v2", kind: "forbid", violated: false, detail: "", explain: "" }
 */
export function gradeConstraint(
  constraint: ForbidConstraint,
  events: readonly TrialEvent[],
): ConstraintResult {
  return constraintResult(prepareConstraint(constraint), new LogIndex(events));
}

/**
 * Whether G1 fails the verdict: a forbid constraint is broken, or a predicate `graded` keeps fails
 * (one not evaluated does not). Stops at the first such finding: what `gradeLabour` would decide
 * of the verdict, without grading the rest (see `GradeOptions.verdictOnly`).
 *
 * @example labourFailsVerdict(task.grader, events, card, trialSeed, {}, () => true) // false for the golden's log
 */
export function labourFailsVerdict(
  grader: GraderSpec,
  events: readonly TrialEvent[],
  card: Record<string, unknown> | null,
  trialSeed: string,
  finalState: FinalState,
  graded: (segment: number | undefined) => boolean,
): boolean {
  const prepared = prepareGrader(grader);
  const ctx = new TrialContext(events, card, trialSeed, finalState);
  for (const c of prepared.constraints) if (constraintResult(c, ctx.log).violated) return true;
  for (const p of prepared.predicates) {
    if (!graded(p.predicate.segment)) continue;
    const r = gradePrepared(p, ctx);
    if (!r.passed && !r.not_evaluated) return true;
  }
  return false;
}

/**
 * Whether a checkpoint (a labour milestone, never gating) was reached.
 *
 * @example checkpointHit({ id: "minted", explain: "", url_pattern: "^/oauth/token$", status: 200 }, events)
 */
export function checkpointHit(checkpoint: Checkpoint, events: readonly TrialEvent[]): boolean {
  return reached(prepareCheckpoint(checkpoint), new LogIndex(events));
}

/**
 * The world's records when the trial ended and those deleted during it. Read only by the
 * predicates that need them (end state, record references), so a source that parses them on first
 * read (a stored log read lazily) is parsed only for those trials.
 */
export interface FinalState {
  readonly finalRecords?: FinalRecords | undefined;
  readonly removedRecords?: FinalRecords | undefined;
}

/** Every G1 result, constraint result and checkpoint result of one trial, in the grader's order. */
export interface LabourGrade {
  g1: G1Result[];
  constraints: ConstraintResult[];
  checkpoints: CheckpointResult[];
}

/**
 * G1 of a whole grader over one event log: every predicate, constraint and checkpoint, reading one
 * index of the log. The grader is prepared once per grader object (see `prepareGrader`), so a
 * bank's worth of stored trials pays only for scanning its logs.
 *
 * @example const { g1, constraints, checkpoints } = gradeLabour(task.grader, events, card, trialSeed, { finalRecords });
 */
export function gradeLabour(
  grader: GraderSpec,
  events: readonly TrialEvent[],
  card: Record<string, unknown> | null,
  trialSeed: string,
  finalState: FinalState = {},
): LabourGrade {
  const prepared = prepareGrader(grader);
  const ctx = new TrialContext(events, card, trialSeed, finalState);
  const log = ctx.log;
  const g1: G1Result[] = [];
  for (const p of prepared.predicates) g1.push(gradePrepared(p, ctx));
  const constraints: ConstraintResult[] = [];
  for (const c of prepared.constraints) constraints.push(constraintResult(c, log));
  const checkpoints: CheckpointResult[] = [];
  for (const c of prepared.checkpoints) {
    const { id, explain, segment } = c.checkpoint;
    const hit = reached(c, log);
    checkpoints.push(segment ? { id, hit, explain, segment } : { id, hit, explain });
  }
  return { g1, constraints, checkpoints };
}

// ---------------------------------------------------------------------------------------------
// Preparing a grader: everything that depends on the grader alone — URL patterns compiled, fixed
// failure reasons written, upper-cased methods — is done once per grader object, not per trial.

/** A data-flow predicate with what grading it needs from the grader alone. */
interface PreparedDataFlow {
  kind: "data_flow";
  predicate: Extract<G1Predicate, { kind: "data_flow" }>;
  from: RegExp;
  /** `from_body_key`, split. */
  fromKey: KeyPath;
  usedIn: RegExp | null;
  /** `also_from`: other routes serving the record's value, their patterns compiled and keys split. */
  others: PreparedSource[];
  /** `also_used_in`, compiled. */
  usedInOthers: RegExp[];
  noResponse: string;
  noValue: string;
  notInCard: string;
  notStored: string;
  notUsed: string;
  notEvaluated: string;
  fieldAbsent: string;
  /** The answer field's comparator, when the grader declares it: the card is read as G2 reads it. */
  cardField: Pick<AnswerField, "comparator" | "tolerance"> | undefined;
  /**
   * A chain's data flows that mint the same kind of value (a create's status and key; a refresh
   * token's source), by segment in segment order, when more than one segment has one (see
   * `gradeDataFlowClaimed`).
   */
  claimGroup?: Array<[number, PreparedDataFlow[]]>;
  notUsedOwn: string;
}

/** Another source of a data flow: its pattern, and its body key split at the object holding the value. */
interface PreparedSource {
  source: OtherSource;
  url: RegExp;
  holder: KeyPath;
  key: KeyPath;
  /** `where`'s fields, as written (resolved once per trial: see `TrialContext.sourceWhere`). */
  where: ReadonlyArray<readonly [string, unknown]>;
}

interface PreparedCall {
  kind: "call";
  predicate: Extract<G1Predicate, { kind: "call" }>;
  match: PreparedMatch;
  failure: string;
}

/** A call match with its pattern compiled, its method upper-cased and its words written. */
interface PreparedMatch {
  match: CallMatch;
  url: RegExp;
  method: string | undefined;
  /** `PATCH calls to /^…$/ on the target record answered 200`. */
  words: string;
}

interface PreparedCallCount {
  kind: "call_count";
  predicate: Extract<G1Predicate, { kind: "call_count" }>;
  match: PreparedMatch;
  /**
   * A chain's counts of one call stated by several segments (see `groupCounts`): the bounds the
   * whole log must meet for this segment, and how many segments state the count.
   */
  shared?: { min: number | undefined; max: number | undefined; segments: number };
}

interface PreparedOrder {
  kind: "order";
  predicate: Extract<G1Predicate, { kind: "order" }>;
  before: PreparedMatch;
  after: PreparedMatch;
  /** As for a data flow: earlier segments holding the same ordering, each with its own pair of calls. */
  rank: number;
}

interface PreparedEndState {
  kind: "end_state";
  predicate: Extract<G1Predicate, { kind: "end_state" }>;
}

interface PreparedCovered {
  kind: "covered";
  predicate: Extract<G1Predicate, { kind: "covered" }>;
  urls: RegExp[];
  /** `body_key`, split. */
  ids: KeyPath;
}

interface PreparedWorkspaceValue {
  kind: "workspace_value";
  predicate: Extract<G1Predicate, { kind: "workspace_value" }>;
  /** Final-variable keys to look in, in order (`scope:name`). */
  keys: string[];
  missing: string;
}

type PreparedPredicate =
  | PreparedDataFlow
  | PreparedCall
  | PreparedWorkspaceValue
  | PreparedCallCount
  | PreparedOrder
  | PreparedEndState
  | PreparedCovered;

interface PreparedConstraint {
  constraint: ForbidConstraint;
  url: RegExp;
  method: string | undefined;
}

interface PreparedCheckpoint {
  checkpoint: Checkpoint;
  url: RegExp;
  method: string | undefined;
}

interface PreparedGrader {
  predicates: PreparedPredicate[];
  constraints: PreparedConstraint[];
  checkpoints: PreparedCheckpoint[];
}

// Bank graders are immutable data loaded once and graded against thousands of logs; keyed by the
// object, an entry lives exactly as long as its grader (so a grader must not be edited in place
// once graded: a changed grader is a new object). Only grader-derived data is kept — no log, card
// or seed — so an entry can never carry one trial's findings into another.
const preparedGraders = new WeakMap<GraderSpec, PreparedGrader>();

function prepareGrader(grader: GraderSpec): PreparedGrader {
  let prepared = preparedGraders.get(grader);
  if (!prepared) {
    const ranks = rankSegments(grader.g1);
    const predicates = grader.g1.map((p, i) =>
      preparePredicate(
        p,
        ranks[i] ?? 0,
        p.kind === "data_flow" ? grader.answer.find((a) => a.field === p.answer_field) : undefined,
      ),
    );
    groupClaims(predicates);
    groupCounts(predicates);
    prepared = {
      predicates,
      constraints: grader.constraints.map(prepareConstraint),
      checkpoints: grader.checkpoints.map(prepareCheckpoint),
    };
    preparedGraders.set(grader, prepared);
  }
  return prepared;
}

/**
 * A chain states a requirement once per segment it belongs to, and two segments of one template
 * get predicates identical but for their segment (poll the job, then confirm it). Each segment
 * must be met by its own evidence: the k-th of such orderings (in segment order) needs k calls
 * each preceded by its own earlier call, or the work of segment 1 would hold segment 12's
 * requirement too (data flows: see `gradeDataFlowClaimed`). The rank of every predicate (0 for
 * all but such repeats, and for every solo task's).
 */
function rankSegments(g1: readonly G1Predicate[]): number[] {
  const seen = new Map<string, Array<{ index: number; segment: number }>>();
  g1.forEach((p, index) => {
    if (p.kind !== "order" || p.segment === undefined) return;
    const { id: _i, explain: _e, segment, requirement: _r, ...evidence } = p;
    const key = JSON.stringify(evidence);
    const group = seen.get(key) ?? [];
    group.push({ index, segment });
    seen.set(key, group);
  });
  const ranks = g1.map(() => 0);
  for (const group of seen.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => a.segment - b.segment || a.index - b.index);
    group.forEach((g, rank) => {
      ranks[g.index] = rank;
    });
  }
  return ranks;
}

/**
 * Sets `claimGroup` on a chain's data flows from a create (201, 202) that mint the same kind of
 * value as another segment's, or of a rotated refresh token that share their source with another
 * segment's.
 */
function groupClaims(predicates: readonly PreparedPredicate[]): void {
  const bySource = new Map<string, PreparedDataFlow[]>();
  for (const p of predicates) {
    // A create answers 201 (a record) or 202 (an async job): each segment mints its own, where a
    // token or a value an error lists may serve several segments. A refresh token under rotation
    // is single-use: each segment spends its own too.
    if (p.kind !== "data_flow" || p.predicate.segment === undefined) continue;
    const created = p.predicate.from_status === 201 || p.predicate.from_status === 202;
    if (!created && lastKey(p.predicate.from_body_key) !== "refresh_token") continue;
    const { from_response_url_pattern, from_status, from_body_key } = p.predicate;
    // Creates group by what they mint, not by route: one segment's flow may take its record from
    // another create route (`also_from`: the nested create under the parent), which is the route
    // another segment's own create goes to (hunter-7's irrigation chain: segment 11's nested create
    // held segment 17's "the new id is used next" when segment 17 used no id of its own).
    const key = created
      ? JSON.stringify([from_status, lastKey(from_body_key)])
      : JSON.stringify([from_response_url_pattern, from_status, from_body_key]);
    bySource.set(key, [...(bySource.get(key) ?? []), p]);
  }
  for (const members of bySource.values()) {
    const segments = [...new Set(members.map((m) => m.predicate.segment as number))].sort((a, b) => a - b);
    if (segments.length < 2) continue;
    const group = segments.map((s): [number, PreparedDataFlow[]] => [
      s,
      members.filter((m) => m.predicate.segment === s),
    ]);
    for (const m of members) m.claimGroup = group;
  }
}

/**
 * A chain's segments count the same call each in its own share (delete one record: two supersede
 * segments delete two; renew by refresh n times: the second renewal segment's refreshes come on
 * top of the first's). The log has no segment marks, so the bounds add up over the segments that
 * state the count, in segment order: a segment's `min` is its own plus the earlier segments'
 * (the second renewal is not met by the first's refreshes alone); its `max` is the sum over every
 * segment stating one (another segment's delete is not an extra one).
 */
function groupCounts(predicates: readonly PreparedPredicate[]): void {
  const byCall = new Map<string, PreparedCallCount[]>();
  for (const p of predicates) {
    if (p.kind !== "call_count" || p.predicate.segment === undefined) continue;
    const key = JSON.stringify(p.predicate.call);
    byCall.set(key, [...(byCall.get(key) ?? []), p]);
  }
  for (const members of byCall.values()) {
    if (new Set(members.map((m) => m.predicate.segment)).size < 2) continue;
    members.sort((a, b) => (a.predicate.segment as number) - (b.predicate.segment as number));
    const maxes = members.flatMap((m) => (m.predicate.max === undefined ? [] : [m.predicate.max]));
    const max = maxes.reduce((a, b) => a + b, 0);
    let min = 0;
    for (const m of members) {
      min += m.predicate.min ?? 0;
      m.shared = {
        min: m.predicate.min === undefined ? undefined : min,
        max: m.predicate.max === undefined ? undefined : max,
        segments: members.length,
      };
    }
  }
}

function preparePredicate(predicate: G1Predicate, rank = 0, answer?: AnswerField): PreparedPredicate {
  switch (predicate.kind) {
    case "data_flow": {
      const key = predicate.from_body_key;
      const used = predicate.used_in_request_url_pattern;
      return {
        kind: "data_flow",
        predicate,
        from: pattern(predicate.from_response_url_pattern),
        fromKey: keyPath(key),
        usedIn: used ? pattern(used) : null,
        others: (predicate.also_from ?? []).map(prepareSource),
        usedInOthers: used ? (predicate.also_used_in ?? []).map(pattern) : [],
        noResponse: `no response from /${predicate.from_response_url_pattern}/ with status ${predicate.from_status}`,
        noValue: `matching responses carry no value at ${key}`,
        notInCard: `answer field '${predicate.answer_field}' does not carry the ${key} the API returned`,
        notStored: `the ${key} from the response was not stored in a variable`,
        notUsed: `the ${key} was not used in a later request to /${used}/${slotWords(predicate.used_in_slot)}`,
        notEvaluated: `not evaluated: no readable answer card to find '${predicate.answer_field}' in`,
        fieldAbsent: `not evaluated: the answer card has no field '${predicate.answer_field}'`,
        cardField: answer ? cardFieldOf(answer) : undefined,
        notUsedOwn: predicate.used_in_request_url_pattern
          ? `used in a later request to /${used}/${slotWords(predicate.used_in_slot)}`
          : predicate.must_be_stored
            ? "stored in a variable"
            : `reported as '${predicate.answer_field}'`,
      };
    }
    case "call": {
      const { method, url_pattern, status, target, sent } = predicate;
      const match: CallMatch = {
        url_pattern,
        ...(method !== undefined ? { method } : {}),
        ...(status !== undefined ? { status } : {}),
        ...(target !== undefined ? { target } : {}),
        ...(sent !== undefined ? { sent } : {}),
      };
      return {
        kind: "call",
        predicate,
        match: prepareMatch(match),
        failure: `no ${predicate.method ?? "call"} to /${predicate.url_pattern}/${predicate.target !== undefined ? " on the target record" : ""}${predicate.status !== undefined ? ` answered ${predicate.status}` : ""}${predicate.sent ? ` sending ${Object.keys(predicate.sent).join(", ")} as required` : ""}${predicate.body_has_keys.length ? ` with body keys ${predicate.body_has_keys.join(", ")}` : ""}`,
      };
    }
    case "workspace_value": {
      const scopes = predicate.scope === "any" ? ["local", "global"] : [predicate.scope];
      return {
        kind: "workspace_value",
        predicate,
        keys: scopes.map((s) => `${s}:${predicate.name}`),
        missing: `no variable ${predicate.name} was stored in ${scopes.join(" or ")} scope`,
      };
    }
    case "call_count":
      return { kind: "call_count", predicate, match: prepareMatch(predicate.call) };
    case "order":
      return {
        kind: "order",
        predicate,
        before: prepareMatch(predicate.before),
        after: prepareMatch(predicate.after),
        rank,
      };
    case "end_state":
      return { kind: "end_state", predicate };
    case "covered":
      return {
        kind: "covered",
        predicate,
        urls: predicate.url_patterns.map(pattern),
        ids: keyPath(predicate.body_key),
      };
  }
}

/** What G1 needs of an answer field to read a card value as G2 does. */
function cardFieldOf(answer: AnswerField): Pick<AnswerField, "comparator" | "tolerance"> {
  return answer.tolerance === undefined
    ? { comparator: answer.comparator }
    : { comparator: answer.comparator, tolerance: answer.tolerance };
}

function prepareSource(source: OtherSource): PreparedSource {
  const cut = source.body_key.lastIndexOf(".");
  return {
    source,
    url: pattern(source.url_pattern),
    holder: keyPath(cut < 0 ? "" : source.body_key.slice(0, cut)),
    key: keyPath(cut < 0 ? source.body_key : source.body_key.slice(cut + 1)),
    where: Object.entries(source.where ?? {}),
  };
}

function prepareMatch(match: CallMatch): PreparedMatch {
  const parts = [`${match.method ?? "any"} calls to /${match.url_pattern}/`];
  if (match.target !== undefined) parts.push("on the target record");
  if (match.status !== undefined) parts.push(`answered ${match.status}`);
  if (match.sent) parts.push(`sending ${Object.keys(match.sent).join(", ")} as required`);
  if (match.returned) parts.push(`returning ${Object.keys(match.returned).join(", ")} as required`);
  if (match.headers) parts.push(`with header ${Object.keys(match.headers).join(", ")} as required`);
  return {
    match,
    url: pattern(match.url_pattern),
    method: upperMethod(match.method),
    words: parts.join(" "),
  };
}

function prepareConstraint(constraint: ForbidConstraint): PreparedConstraint {
  return { constraint, url: pattern(constraint.url_pattern), method: upperMethod(constraint.method) };
}

function prepareCheckpoint(checkpoint: Checkpoint): PreparedCheckpoint {
  return { checkpoint, url: pattern(checkpoint.url_pattern), method: upperMethod(checkpoint.method) };
}

/** The method to match, upper-cased; an empty or absent method matches any. */
function upperMethod(method: string | undefined): string | undefined {
  return method ? method.toUpperCase() : undefined;
}

// Patterns repeat across the predicates and graders of a bank, so compile each once.
const patternCache = new Map<string, RegExp>();
function pattern(source: string): RegExp {
  let re = patternCache.get(source);
  if (!re) {
    re = new RegExp(source);
    if (patternCache.size > 10_000) patternCache.clear();
    patternCache.set(source, re);
  }
  return re;
}

// ---------------------------------------------------------------------------------------------
// Grading a prepared predicate against one log.

function gradePrepared(prepared: PreparedPredicate, ctx: TrialContext): G1Result {
  const { log, card } = ctx;
  switch (prepared.kind) {
    case "call": {
      const { predicate } = prepared;
      const hits = ctx.matching(prepared.match);
      if (!Array.isArray(hits)) return g1Result(predicate, false, undefined, hits.reason);
      for (const i of hits) {
        const e = log.exchanges[i] as ExchangeEvent;
        if (predicate.body_has_keys.every((k) => valuesAtPath(e.response_body, k).length > 0))
          return g1Result(predicate, true);
      }
      return g1Result(predicate, false, undefined, prepared.failure);
    }
    case "call_count":
      return gradeCallCount(prepared, ctx);
    case "order":
      return gradeOrder(prepared, ctx);
    case "end_state":
      return gradeEndState(prepared.predicate, ctx);
    case "covered":
      return gradeCovered(prepared, ctx);
    case "workspace_value": {
      const { predicate } = prepared;
      let found: JsonValue | undefined;
      for (const key of prepared.keys) {
        found = log.finalVariables().get(key);
        if (found !== undefined) break;
      }
      if (found === undefined) return g1Result(predicate, false, undefined, prepared.missing);
      const want = ctx.resolve(predicate.value);
      if (!want.ok) return g1Result(predicate, false, found, want.reason);
      return sameInWorld(found, want.value)
        ? g1Result(predicate, true, found)
        : g1Result(
            predicate,
            false,
            found,
            `variable ${predicate.name} holds ${JSON.stringify(found)}, not the expected value`,
          );
    }
    case "data_flow": {
      const field = prepared.predicate.answer_field;
      if (field === undefined || (card !== null && Object.hasOwn(card, field)))
        return gradeDataFlow(prepared, ctx);
      // No readable card, or a card without the field: G2's delivery failure, not labour. Grade
      // the rest; when it holds, the predicate is not evaluated rather than failed.
      const labour = gradeDataFlow(prepared, ctx, false);
      if (!labour.passed) return labour;
      const { id, kind, explain, segment, requirement } = prepared.predicate;
      return {
        id,
        kind,
        explain,
        ...(segment ? { segment } : {}),
        ...(requirement ? { requirement } : {}),
        passed: false,
        not_evaluated: true,
        ...(labour.value !== undefined ? { value: labour.value } : {}),
        reason: card === null ? prepared.notEvaluated : prepared.fieldAbsent,
      };
    }
  }
}

/**
 * Covered: the ids shown at the predicate's key by the 200 responses of any of its
 * listings, against the ids it names; passes when none is missing and some page read said it was
 * the last (the value: how many were seen). Every record of the scope can sit before the last
 * page; a walk that stopped there saw them all by luck and did not read to the end (orchid-11's
 * irrigation scan: no clay zone on page 4 of 4).
 */
function gradeCovered(prepared: PreparedCovered, ctx: TrialContext): G1Result {
  const { predicate, urls } = prepared;
  const unseen = new Set(predicate.ids);
  let pages = 0;
  let ended = false;
  for (const i of ctx.log.anyUrlHits(urls)) {
    const e = ctx.log.exchanges[i] as ExchangeEvent;
    if (e.status !== 200) continue;
    pages++;
    if (!ended && isLastPage(e)) ended = true;
    for (const v of valuesAtKeyPath(e.response_body, prepared.ids))
      if (v !== null && typeof v !== "object") unseen.delete(String(v));
    // Every id shown and the end read: the pages after it change nothing but a failure's count, so
    // their bodies (a repeated walk's) are left unparsed.
    if (ended && unseen.size === 0) return g1Result(predicate, true, predicate.ids.length);
  }
  const missing = predicate.ids.filter((id) => unseen.has(id));
  if (missing.length === 0)
    return g1Result(
      predicate,
      false,
      predicate.ids.length,
      `the listing was not read through to its end: every page of the ${pages} read pointed to a next one`,
    );
  const listed = missing.slice(0, 3).join(", ") + (missing.length > 3 ? ", …" : "");
  return g1Result(
    predicate,
    false,
    predicate.ids.length - missing.length,
    pages === 0
      ? `no page of the listing was read (no 200 from ${predicate.url_patterns.map((u) => `/${u}/`).join(" or ")})`
      : `the listing was not read through to its end: ${missing.length} of ${predicate.ids.length} records never shown at ${predicate.body_key} (${listed}) in ${pages} page(s) read`,
  );
}

/**
 * Whether a listing response says nothing follows it: no pointer to a next page in its body
 * (`next_cursor`, `next_page`, `next_offset`) nor a `Link` header with rel="next" (a GraphQL or
 * MCP listing is logged as the REST reply it stands for). A listing that is not paged (a category
 * registry) says nothing of a next page: it is its own end.
 */
function isLastPage(e: ExchangeEvent): boolean {
  const link = e.response_headers.link;
  if (link !== undefined && /rel="?next"?/i.test(link)) return false;
  const body = e.response_body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return true;
  return NEXT_POINTERS.every((key) => body[key] === undefined || body[key] === null);
}

const NEXT_POINTERS = ["next_cursor", "next_page", "next_offset"];

/** Call count: how many exchanges match, against `min`..`max`. */
function gradeCallCount(prepared: PreparedCallCount, ctx: TrialContext): G1Result {
  const { predicate, match } = prepared;
  const hits = ctx.matching(match);
  if (!Array.isArray(hits)) return g1Result(predicate, false, undefined, hits.reason);
  const n = hits.length;
  const { min, max } = prepared.shared ?? predicate;
  if ((min === undefined || n >= min) && (max === undefined || n <= max)) return g1Result(predicate, true, n);
  const bound =
    min !== undefined && max !== undefined
      ? min === max
        ? `exactly ${min}`
        : `${min} to ${max}`
      : min !== undefined
        ? `at least ${min}`
        : `at most ${max}`;
  const few = min !== undefined && n < min;
  const shared = !prepared.shared
    ? ""
    : few
      ? ` for segment ${predicate.segment} and the segments before it that count them`
      : ` over the ${prepared.shared.segments} segments that count them`;
  return g1Result(predicate, false, n, `${n} ${match.words}; the ticket allows ${bound}${shared}`);
}

/** Ordering: the first `after` exchange has a `before` exchange earlier, by the wait when one is set. */
function gradeOrder(prepared: PreparedOrder, ctx: TrialContext): G1Result {
  const { predicate, before, after } = prepared;
  const afterHits = ctx.matching(after);
  if (!Array.isArray(afterHits)) return g1Result(predicate, false, undefined, afterHits.reason);
  const first = afterHits[0];
  if (first === undefined) return g1Result(predicate, false, undefined, `no ${after.words}`);
  const beforeHits = ctx.matching(before);
  if (!Array.isArray(beforeHits)) return g1Result(predicate, false, undefined, beforeHits.reason);
  if (predicate.from_first_before) return gradeOrderFromFirst(prepared, ctx, afterHits, beforeHits);
  if (prepared.rank > 0) return gradeOrderRanked(prepared, ctx, afterHits, beforeHits);
  const earlier = beforeHits.filter(
    (i) => i < first && (!predicate.same_record || ctx.log.addresses(i, first)),
  );
  if (earlier.length === 0)
    return g1Result(
      predicate,
      false,
      undefined,
      `the first of the ${after.words} came before any ${before.words}${predicate.same_record ? " of the same record" : ""}`,
    );
  const wait = predicate.min_wait_seconds;
  if (wait === undefined) return g1Result(predicate, true);
  const waited = ctx.log.clockAt(first) - ctx.log.clockAt(earlier[earlier.length - 1] as number);
  if (waited >= wait) return g1Result(predicate, true, waited);
  return g1Result(
    predicate,
    false,
    waited,
    `the first of the ${after.words} came ${waited} s after the last of the ${before.words}; at least ${wait} s were required`,
  );
}

/**
 * Ordering measured from the first `before` exchange to the first `after` exchange that follows it
 * (`from_first_before`): a sweep's pause, whichever route the read after it took.
 */
function gradeOrderFromFirst(
  prepared: PreparedOrder,
  ctx: TrialContext,
  afterHits: readonly number[],
  beforeHits: readonly number[],
): G1Result {
  const { predicate, before, after } = prepared;
  const start = beforeHits[0];
  if (start === undefined) return g1Result(predicate, false, undefined, `no ${before.words}`);
  const next = afterHits.find((i) => i > start);
  if (next === undefined)
    return g1Result(predicate, false, undefined, `no ${after.words} after the first of the ${before.words}`);
  const wait = predicate.min_wait_seconds;
  if (wait === undefined) return g1Result(predicate, true);
  const waited = ctx.log.clockAt(next) - ctx.log.clockAt(start);
  if (waited >= wait) return g1Result(predicate, true, waited);
  return g1Result(
    predicate,
    false,
    waited,
    `the first of the ${after.words} came ${waited} s after the first of the ${before.words}; at least ${wait} s were required`,
  );
}

/**
 * Ordering of a chain segment whose ordering earlier segments hold too (rank k > 0): k + 1 of the
 * `after` calls each have a `before` call since the `after` call before it (by the wait, when set).
 */
function gradeOrderRanked(
  prepared: PreparedOrder,
  ctx: TrialContext,
  afterHits: readonly number[],
  beforeHits: readonly number[],
): G1Result {
  const { predicate, before, after, rank } = prepared;
  const wait = predicate.min_wait_seconds;
  let ordered = 0;
  let since = -1;
  for (const a of afterHits) {
    let last = -1;
    for (const b of beforeHits)
      if (b > since && b < a && (!predicate.same_record || ctx.log.addresses(b, a))) last = b;
    since = a;
    if (last < 0) continue;
    if (wait !== undefined && ctx.log.clockAt(a) - ctx.log.clockAt(last) < wait) continue;
    ordered += 1;
    if (ordered > rank) return g1Result(predicate, true);
  }
  return g1Result(
    predicate,
    false,
    ordered,
    `${ordered} of the ${after.words} came after their own ${before.words}${wait !== undefined ? ` (${wait} s earlier)` : ""}; segment ${predicate.segment} needs one more, after the earlier segments' own`,
  );
}

/** End state: the records the selector picks when the trial ended. */
function gradeEndState(predicate: Extract<G1Predicate, { kind: "end_state" }>, ctx: TrialContext): G1Result {
  // Described only for a failure's reason: a passing predicate builds no words.
  const selector = predicate.record;
  if (!ctx.records)
    return g1Result(
      predicate,
      false,
      undefined,
      `${describeRecord(selector, ctx.seed)}: the world's final records were not kept`,
    );
  const picked = ctx.finalState.picked(predicate.record) ?? [];
  const { expect } = predicate;
  switch (expect.is) {
    case "absent":
      return picked.length === 0
        ? g1Result(predicate, true)
        : g1Result(
            predicate,
            false,
            picked.length,
            `${describeRecord(selector, ctx.seed)} is still there at the end of the trial`,
          );
    case "count": {
      const n = picked.length;
      const { min, max } = expect;
      if ((min === undefined || n >= min) && (max === undefined || n <= max))
        return g1Result(predicate, true, n);
      const bound =
        min !== undefined && max !== undefined
          ? min === max
            ? `exactly ${min}`
            : `${min} to ${max}`
          : min !== undefined
            ? `at least ${min}`
            : `at most ${max}`;
      return g1Result(
        predicate,
        false,
        n,
        `${n} records are ${describeRecord(selector, ctx.seed).replace(/^the |^every /, "")}; the ticket wants ${bound}`,
      );
    }
    case "field": {
      if (picked.length === 0)
        return g1Result(
          predicate,
          false,
          undefined,
          `${describeRecord(selector, ctx.seed)}: no such record at the end of the trial`,
        );
      // Several hold the role: the one meant is the one a later write acted on (an abandoned
      // duplicate is not it), as for a record reference.
      const record = picked.length === 1 ? picked[0] : decisiveRecord(picked, ctx.events);
      if (record === undefined)
        return g1Result(
          predicate,
          false,
          undefined,
          `${describeRecord(selector, ctx.seed)}: ${picked.length} records match at the end of the trial, and no later write was applied to exactly one of them`,
        );
      const want = ctx.resolve(expect.value);
      if (!want.ok) return g1Result(predicate, false, undefined, want.reason);
      const got = (record as Record<string, JsonValue>)[expect.field];
      if (got !== undefined && sameInWorld(got, want.value)) return g1Result(predicate, true, got);
      return g1Result(
        predicate,
        false,
        got,
        `${describeRecord(selector, ctx.seed)} ends with ${expect.field} ${got === undefined ? "unset" : JSON.stringify(got)}, not ${JSON.stringify(want.value)}`,
      );
    }
  }
}

/**
 * The grader's hottest loop. One candidate per distinct value, from its earliest response: a later
 * use or store of it counts from the first time the API showed it. The last failing destination
 * of the last candidate is the reason given. A response to one of the predicate's other sources
 * (`also_from`) offers the record's value as its own source does.
 */
function gradeDataFlow(
  prepared: PreparedDataFlow,
  ctx: TrialContext,
  toCard = true,
  claims = true,
): G1Result {
  const { predicate } = prepared;
  const { log, card } = ctx;
  const sources = ctx.sources(prepared);
  // No source, no claim either (a trial that called nothing: a third of a run's blank baseline).
  if (sources.at.length === 0) return g1Result(predicate, false, undefined, prepared.noResponse);
  if (claims && prepared.claimGroup) return gradeDataFlowClaimed(prepared, ctx, toCard);
  const got = predicate.answer_field === undefined ? undefined : card?.[predicate.answer_field];
  // Scalars are told apart by type and value (3 and "3" are two candidates), as a Set does.
  const seen = new Set<JsonValue>();
  let anyValue = false;
  let lastReason = "";
  for (const i of sources.at) {
    const source = log.exchanges[i] as ExchangeEvent;
    for (const value of offeredValues(prepared, sources, i, ctx)) {
      if (value === null || typeof value === "object") continue;
      anyValue = true;
      if (seen.has(value)) continue;
      seen.add(value);
      if (
        toCard &&
        predicate.answer_field !== undefined &&
        (got === undefined || !cardCarries(prepared, got as JsonValue, value))
      ) {
        lastReason = prepared.notInCard;
        continue;
      }
      if (predicate.must_be_stored && !log.storedAfter(value, source.seq)) {
        lastReason = prepared.notStored;
        continue;
      }
      if (prepared.usedIn && !usedLater(prepared, log, value, source.seq)) {
        lastReason = prepared.notUsed;
        continue;
      }
      return g1Result(predicate, true, value);
    }
  }
  return g1Result(predicate, false, undefined, anyValue ? lastReason : prepared.noValue);
}

/**
 * The values source exchange `i` offers: at the flow's key when it answered the flow's own route,
 * and the records' values of each other source it answered.
 */
function offeredValues(
  prepared: PreparedDataFlow,
  sources: FlowSources,
  i: number,
  ctx: TrialContext,
): JsonValue[] {
  const source = ctx.log.exchanges[i] as ExchangeEvent;
  const values =
    sources.matches[i] && source.status === prepared.predicate.from_status
      ? valuesAtKeyPath(source.response_body, prepared.fromKey)
      : [];
  for (let k = 0; k < prepared.others.length; k++) {
    const other = prepared.others[k] as PreparedSource;
    if ((sources.otherMatches[k] as readonly boolean[])[i] && source.status === other.source.status)
      pushRecordValues(other, source.response_body, ctx, values);
  }
  return values;
}

/**
 * Whether the card's value is the API's: equal as G1 compares what the card reports, or passing
 * the answer field's own G2 comparator (a numeric field within its tolerance). G1 and G2 then
 * agree on a card value, and a value G2 accepts is never charged to the labour (agent audit 20).
 */
function cardCarries(prepared: PreparedDataFlow, got: JsonValue, value: JsonValue): boolean {
  if (valuesEqual(got, value)) return true;
  const field = prepared.cardField;
  if (field === undefined) return false;
  // Two strings the string comparator would equate are already equal here (the one string equality):
  // the comparator is asked only where it can differ (a tolerance; a set's order, "b, a" for "a, b").
  if (typeof got === "string" && typeof value === "string" && field.comparator === "string") return false;
  return answerAccepts(field, got, value);
}

/**
 * Push the values at another source's key held by an object with every field of its `where` onto
 * `out` (none when a `where` value is unknown in this trial).
 */
function pushRecordValues(
  other: PreparedSource,
  body: JsonValue | null,
  ctx: TrialContext,
  out: JsonValue[],
): void {
  const where = ctx.sourceWhere(other);
  if (where === null) return;
  for (const held of valuesAtKeyPath(body, other.holder)) {
    if (Array.isArray(held)) {
      for (const item of held) pushHeld(other, item, where, out);
    } else pushHeld(other, held, where, out);
  }
}

function pushHeld(
  other: PreparedSource,
  item: JsonValue,
  where: ReadonlyArray<readonly [string, JsonValue]>,
  out: JsonValue[],
): void {
  if (item === null || typeof item !== "object" || Array.isArray(item)) return;
  for (const [field, v] of where) if (!sameInWorld(item[field] ?? null, v)) return;
  for (const value of valuesAtKeyPath(item, other.key)) out.push(value);
}

/** Whether the value is used after `seq` in a request to the predicate's destination or one of its others. */
function usedLater(prepared: PreparedDataFlow, log: LogIndex, value: JsonValue, seq: number): boolean {
  const slot = prepared.predicate.used_in_slot;
  if (prepared.usedIn && log.usedAfter(prepared.usedIn, value, seq, slot)) return true;
  return prepared.usedInOthers.some((re) => log.usedAfter(re, value, seq, slot));
}

/**
 * A data flow of a chain segment whose source (response URL pattern, status and key) data flows of
 * earlier segments share: each segment claims, in segment order, the earliest source response after
 * the earlier segments' claims whose value went where that segment's predicate says. The create of
 * segment 3 then cannot hold segment 5's "the id the create minted is used next": segment 5 needs
 * a create of its own. Without an earlier claim, the flow is graded as any other.
 */
function gradeDataFlowClaimed(prepared: PreparedDataFlow, ctx: TrialContext, toCard: boolean): G1Result {
  const { predicate } = prepared;
  const bound = claimedBefore(prepared, ctx);
  if (bound < 0) return gradeDataFlow(prepared, ctx, toCard, false);
  const claim = claimFrom(prepared, ctx, toCard, bound);
  if (claim !== undefined) return g1Result(predicate, true, claim.value);
  return g1Result(
    predicate,
    false,
    undefined,
    `no ${predicate.from_body_key} shown after the ones earlier segments used went where it must: segment ${predicate.segment} needs its own (${prepared.notUsedOwn})`,
  );
}

/** The exchange index before which the earlier segments of a data flow's source group claimed their sources (-1: none). */
function claimedBefore(prepared: PreparedDataFlow, ctx: TrialContext): number {
  const segment = prepared.predicate.segment as number;
  const group = prepared.claimGroup ?? [];
  const sharing = ctx.claimSharing(group);
  let bound = -1;
  for (const [s, members] of group) {
    if (s >= segment) break;
    let earliest = Number.POSITIVE_INFINITY;
    for (const q of members) {
      if (sharing.get(q) !== sharing.get(prepared)) continue;
      // Each earlier flow claims as it is graded: by the card's field when the card has it, else
      // (G2's to fail) by the rest of its destinations.
      const field = q.predicate.answer_field;
      const toCard = field !== undefined && ctx.card !== null && Object.hasOwn(ctx.card, field);
      const c = claimFrom(q, ctx, toCard, bound);
      if (c !== undefined && c.index < earliest) earliest = c.index;
    }
    if (earliest !== Number.POSITIVE_INFINITY) bound = Math.max(bound, earliest);
  }
  return bound;
}

/**
 * The members of a claim group, numbered by which share a source in this log: two flows share when
 * one exchange could be the source of both, and sharing is transitive. Flows that mint the same
 * kind of value from routes this agent never mixed keep their own claims, whatever the order of
 * their segments' work.
 */
function sharedSources(
  group: Array<[number, PreparedDataFlow[]]>,
  ctx: TrialContext,
): Map<PreparedDataFlow, number> {
  const members = group.flatMap(([, m]) => m);
  const parent = members.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const firstAt = new Map<number, number>();
  members.forEach((q, k) => {
    for (const i of ctx.sources(q).at) {
      const other = firstAt.get(i);
      if (other === undefined) firstAt.set(i, k);
      else parent[find(k)] = find(other);
    }
  });
  return new Map(members.map((q, k) => [q, find(k)]));
}

/**
 * The earliest source response after exchange `after` whose value went where the predicate says
 * (its own source or one of its others: a create nested under the parent mints a segment's record too).
 */
function claimFrom(
  prepared: PreparedDataFlow,
  ctx: TrialContext,
  toCard: boolean,
  after: number,
): { index: number; value: JsonValue } | undefined {
  const { predicate } = prepared;
  const { log, card } = ctx;
  const sources = ctx.sources(prepared);
  const got = predicate.answer_field === undefined ? undefined : card?.[predicate.answer_field];
  for (const i of sources.at) {
    if (i <= after) continue;
    const source = log.exchanges[i] as ExchangeEvent;
    for (const value of offeredValues(prepared, sources, i, ctx)) {
      if (value === null || typeof value === "object") continue;
      if (
        toCard &&
        predicate.answer_field !== undefined &&
        (got === undefined || !cardCarries(prepared, got as JsonValue, value))
      )
        continue;
      if (predicate.must_be_stored && !log.storedAfter(value, source.seq)) continue;
      if (prepared.usedIn && !usedLater(prepared, log, value, source.seq)) continue;
      return { index: i, value };
    }
  }
  return undefined;
}

/** A result in one fixed key order (stored grades and their JSON stay byte-identical). */
function g1Result(predicate: G1Predicate, passed: boolean, value?: JsonValue, reason?: string): G1Result {
  const { id, kind, explain, segment, requirement } = predicate;
  // The requirement goes before `passed`, so results with one keep one key order too (written as
  // literals: deleting and re-adding `passed` left every such result a slow dictionary object).
  const result: G1Result =
    requirement === undefined
      ? segment
        ? { id, kind, explain, segment, passed }
        : { id, kind, explain, passed }
      : segment
        ? { id, kind, explain, segment, requirement, passed }
        : { id, kind, explain, requirement, passed };
  if (value !== undefined) result.value = value;
  if (reason !== undefined) result.reason = reason;
  return result;
}

function constraintResult(prepared: PreparedConstraint, log: LogIndex): ConstraintResult {
  const { id, explain, segment, requirement } = prepared.constraint;
  const hit = log.firstCall(prepared.url, prepared.method, undefined);
  const violated = hit !== undefined;
  const detail = hit ? `${hit.method} ${hit.url}` : "";
  const result: ConstraintResult = segment
    ? { id, kind: "forbid", violated, detail, explain, segment }
    : { id, kind: "forbid", violated, detail, explain };
  if (requirement !== undefined) result.requirement = requirement;
  return result;
}

function reached(prepared: PreparedCheckpoint, log: LogIndex): boolean {
  return log.firstCall(prepared.url, prepared.method, prepared.checkpoint.status) !== undefined;
}

// ---------------------------------------------------------------------------------------------
// The log index: what every predicate of one trial reads, computed once per trial and only on
// demand. Chains carry dozens of predicates over hundreds of exchanges; re-filtering and
// re-matching per predicate made grading quadratic. Built fresh for every log (never cached
// across calls), so grading stays a pure function of its input.

/**
 * Everything one trial's predicates read: the log index, the card, the seed, the final records,
 * and the expected values and call matches resolved for this trial (each once).
 */
class TrialContext {
  readonly log: LogIndex;
  private readonly resolvedValues = new Map<unknown, Resolved>();
  private readonly matched = new Map<PreparedMatch, number[] | { reason: string }>();
  private readonly sharing = new Map<unknown, Map<PreparedDataFlow, number>>();
  private readonly wheres = new Map<PreparedSource, ReadonlyArray<readonly [string, JsonValue]> | null>();
  private readonly sourceHits = new Map<PreparedDataFlow, FlowSources>();

  /** The final state, its records read when first needed; shared with G2 when the caller made it. */
  readonly finalState: TrialFinalState;

  constructor(
    readonly events: readonly TrialEvent[],
    readonly card: Record<string, unknown> | null,
    readonly seed: string,
    state: FinalState,
  ) {
    this.log = new LogIndex(events);
    this.finalState =
      state instanceof TrialFinalState && state.trialSeed === seed && state.events === events
        ? state
        : new TrialFinalState(state, seed, events);
  }

  /** A claim group's members numbered by the sources they share in this log (see `sharedSources`). */
  claimSharing(group: Array<[number, PreparedDataFlow[]]>): Map<PreparedDataFlow, number> {
    let sharing = this.sharing.get(group);
    if (!sharing) {
      sharing = sharedSources(group, this);
      this.sharing.set(group, sharing);
    }
    return sharing;
  }

  /**
   * The indexes of the exchanges a data flow may take its value from, in log order: answered with
   * the status of its own route or of one of its others (`also_from`), to that route.
   */
  sources(prepared: PreparedDataFlow): FlowSources {
    let found = this.sourceHits.get(prepared);
    if (!found) {
      found = sourceIndexes(prepared, this.log);
      this.sourceHits.set(prepared, found);
    }
    return found;
  }

  /** The final records, read from the state when first needed. */
  get records(): FinalRecords | undefined {
    return this.finalState.finalRecords;
  }

  /** An expected value for this trial (canaries minted, record references read from the end state). */
  resolve(value: unknown): Resolved {
    let r = this.resolvedValues.get(value);
    if (!r) {
      r = this.finalState.resolve(value);
      this.resolvedValues.set(value, r);
    }
    return r;
  }

  /** Another source's `where` resolved for this trial; null when one of its values is unknown. */
  sourceWhere(other: PreparedSource): ReadonlyArray<readonly [string, JsonValue]> | null {
    let where = this.wheres.get(other);
    if (where === undefined) {
      const resolved: Array<readonly [string, JsonValue]> = [];
      for (const [field, v] of other.where) {
        const r = this.resolve(v);
        if (!r.ok) {
          this.wheres.set(other, null);
          return null;
        }
        resolved.push([field, r.value]);
      }
      where = resolved;
      this.wheres.set(other, where);
    }
    return where;
  }

  /**
   * The indexes (in `log.exchanges`) of the exchanges a call match picks, in log order; or why
   * none can be picked (its target or a value it needs is a record the final state does not have).
   */
  matching(prepared: PreparedMatch): number[] | { reason: string } {
    let hits = this.matched.get(prepared);
    if (hits) return hits;
    hits = this.computeMatching(prepared);
    this.matched.set(prepared, hits);
    return hits;
  }

  /** A call match's expected values (`sent`, `returned`, `headers`) resolved for this trial. */
  private expectedValues(
    map: Record<string, unknown> | undefined,
  ): Array<readonly [string, JsonValue]> | { reason: string } {
    const out: Array<readonly [string, JsonValue]> = [];
    if (map === undefined) return out;
    for (const key in map) {
      const r = this.resolve(map[key]);
      if (!r.ok) return { reason: `the value expected at ${key} is unknown: ${r.reason}` };
      out.push([key, r.value]);
    }
    return out;
  }

  private computeMatching(prepared: PreparedMatch): number[] | { reason: string } {
    const { match, method } = prepared;
    let target: JsonValue | undefined;
    if (match.target !== undefined) {
      const r = this.resolve(match.target);
      if (!r.ok) return { reason: `the target record is unknown: ${r.reason}` };
      target = r.value;
    }
    const sent = this.expectedValues(match.sent);
    if (!Array.isArray(sent)) return sent;
    const returned = this.expectedValues(match.returned);
    if (!Array.isArray(returned)) return returned;
    const headers = this.expectedValues(match.headers);
    if (!Array.isArray(headers)) return headers;
    const exchanges = this.log.exchanges;
    const hits: number[] = [];
    for (const i of this.log.urlHits(prepared.url)) {
      const e = exchanges[i] as ExchangeEvent;
      if (
        (method === undefined || e.method.toUpperCase() === method) &&
        (match.status === undefined || e.status === match.status) &&
        sent.every(([key, v]) => valuesAtPath(e.request_body, key).some((got) => sameInWorld(got, v))) &&
        returned.every(([key, v]) => valuesAtPath(e.response_body, key).some((got) => sameInWorld(got, v))) &&
        headers.every(([name, v]) => sameInWorld(e.request_headers[name.toLowerCase()] ?? null, v)) &&
        (target === undefined || pathValues(e.url).some((seg) => sameInWorld(seg, target as JsonValue)))
      )
        hits.push(i);
    }
    return hits;
  }
}

/** A data flow's sources in one log (see `TrialContext.sources`). */
interface FlowSources {
  /** The exchanges answered as one of the flow's sources (its own route's or another's), in log order. */
  at: readonly number[];
  /** Whether each exchange's URL is the flow's own route (aligned with `log.exchanges`), and each other source's. */
  matches: readonly boolean[];
  otherMatches: ReadonlyArray<readonly boolean[]>;
}

function sourceIndexes(prepared: PreparedDataFlow, log: LogIndex): FlowSources {
  let at: readonly number[] = answered(log.urlHits(prepared.from), prepared.predicate.from_status, log);
  for (const o of prepared.others) at = mergeHits(at, answered(log.urlHits(o.url), o.source.status, log));
  return {
    at,
    matches: log.urlMatches(prepared.from),
    otherMatches: prepared.others.map((o) => log.urlMatches(o.url)),
  };
}

/** The exchanges among `hits` answered with `status`. */
function answered(hits: readonly number[], status: number, log: LogIndex): number[] {
  const out: number[] = [];
  for (const i of hits) if ((log.exchanges[i] as ExchangeEvent).status === status) out.push(i);
  return out;
}

class LogIndex {
  readonly exchanges: ExchangeEvent[] = [];
  private clocks: number[] | undefined;
  /** Variable writes outside the vault, in log order (the vault is the task's, not the agent's). */
  private readonly writes: VariableWriteEvent[] = [];
  private finals: Map<string, JsonValue> | undefined;
  private readonly byPattern = new Map<RegExp, UrlHits>();
  private urls: { sorted: string[]; at: Map<string, number[]> } | undefined;
  private bodies: Array<string | undefined> | undefined;
  private paths: Array<string[] | undefined> | undefined;

  constructor(private readonly events: readonly TrialEvent[]) {
    for (const e of events) {
      if (e.type === "exchange") this.exchanges.push(e);
      else if (e.scope !== "vault") this.writes.push(e);
    }
  }

  /**
   * The world's logical clock when exchange `i` was served, as the log shows it: every request
   * ticks it by one second, and a valid `x-apiflow-wait` header adds its seconds first.
   */
  clockAt(i: number): number {
    if (!this.clocks) {
      this.clocks = new Array<number>(this.exchanges.length);
      let now = 0;
      for (let k = 0; k < this.exchanges.length; k++) {
        const wait = (this.exchanges[k] as ExchangeEvent).request_headers["x-apiflow-wait"];
        if (wait !== undefined && /^\d{1,4}$/.test(wait.trim())) {
          const seconds = Number(wait.trim());
          if (seconds <= MAX_WAIT_SECONDS) now += seconds;
        }
        now += 1;
        this.clocks[k] = now;
      }
    }
    return this.clocks[i] as number;
  }

  /** The last value of every variable, keyed `scope:name` (vault included). */
  finalVariables(): Map<string, JsonValue> {
    if (!this.finals) {
      this.finals = new Map();
      for (const e of this.events)
        if (e.type === "variable_write") this.finals.set(`${e.scope}:${e.name}`, e.value);
    }
    return this.finals;
  }

  /** For a URL pattern: whether each exchange's URL matches it (aligned with `exchanges`; see `urlMatchesPattern`). */
  urlMatches(re: RegExp): readonly boolean[] {
    const found = this.urlHitsOf(re);
    if (!found.matches) {
      const matches = new Array<boolean>(this.exchanges.length).fill(false);
      for (const i of found.hits) matches[i] = true;
      found.matches = matches;
    }
    return found.matches;
  }

  /** For a URL pattern: the indexes of the exchanges whose URL matches it, in log order. */
  urlHits(re: RegExp): readonly number[] {
    return this.urlHitsOf(re).hits;
  }

  /** The indexes of the exchanges whose URL matches any of the patterns, in log order. */
  anyUrlHits(res: readonly RegExp[]): readonly number[] {
    let all: readonly number[] = [];
    for (const re of res) all = mergeHits(all, this.urlHits(re));
    return all;
  }

  private urlHitsOf(re: RegExp): UrlHits {
    let found = this.byPattern.get(re);
    if (!found) {
      found = { hits: this.testUrls(re) };
      this.byPattern.set(re, found);
    }
    return found;
  }

  /**
   * The exchanges whose URL matches the pattern (see `urlMatchesPattern`). Only a URL starting with
   * the pattern's literal start can (its path is a prefix of it): a log's calls go to many routes
   * and a chain's grader names dozens, so each pattern is tested on its range of the log's distinct
   * URLs sorted, not on every call.
   */
  private testUrls(re: RegExp): number[] {
    const start = literalStart(re);
    const { sorted, at } = this.byUrl();
    const hits: number[] = [];
    for (let k = firstAtLeast(sorted, start); k < sorted.length; k++) {
      const url = sorted[k] as string;
      if (!url.startsWith(start)) break;
      if (urlMatchesPattern(re, url)) hits.push(...(at.get(url) as number[]));
    }
    // Found by URL; every predicate reads them in log order.
    return hits.sort((a, b) => a - b);
  }

  /** The log's distinct URLs sorted (in code-unit order), and the exchanges calling each. */
  private byUrl(): { sorted: string[]; at: Map<string, number[]> } {
    if (!this.urls) {
      const at = new Map<string, number[]>();
      this.exchanges.forEach((e, i) => {
        const calls = at.get(e.url);
        if (calls) calls.push(i);
        else at.set(e.url, [i]);
      });
      this.urls = { sorted: [...at.keys()].sort(), at };
    }
    return this.urls;
  }

  /** The first exchange matching the URL pattern, method (upper case) and status, if any. */
  firstCall(re: RegExp, method: string | undefined, status: number | undefined): ExchangeEvent | undefined {
    for (const i of this.urlHits(re)) {
      const e = this.exchanges[i] as ExchangeEvent;
      if (
        (method === undefined || e.method.toUpperCase() === method) &&
        (status === undefined || e.status === status)
      ) {
        return e;
      }
    }
    return undefined;
  }

  /** Whether a variable written after `seq` (outside the vault) holds the value, at any depth. */
  storedAfter(value: JsonValue, seq: number): boolean {
    for (const w of this.writes) if (w.seq > seq && containsValue(w.value, value)) return true;
    return false;
  }

  /**
   * Whether a request after `seq` to a URL matching `re` carries the value in `slot` (see
   * `UseSlotSchema`). Without a slot (a grader from before slots), anywhere: in its URL (as is or
   * URI-encoded), its JSON body, or a header (as is, or through the digest of a redacted one).
   */
  usedAfter(re: RegExp, value: JsonValue, seq: number, slot: UseSlot | undefined): boolean {
    if (slot) return this.usedInSlot(re, value, seq, slot);
    const needle = String(value);
    const json = JSON.stringify(value);
    const inBody = typeof value === "string" ? json.slice(1, -1) : json;
    // Encoded and hashed once, when first needed (encoding throws on a lone surrogate, as it did
    // per exchange).
    let encoded: string | undefined;
    let digest: string | undefined;
    for (const i of this.urlHits(re)) {
      const e = this.exchanges[i] as ExchangeEvent;
      if (e.seq <= seq) continue;
      if (e.url.includes(needle)) return true;
      encoded ??= encodeURIComponent(needle);
      if (e.url.includes(encoded) || this.bodyText(i).includes(inBody)) return true;
      for (const name in e.request_headers) {
        const h = e.request_headers[name] as string;
        if (h.includes(needle)) return true;
        if (h.includes("<redacted:")) {
          digest ??= `<redacted:${shortDigest(needle)}>`;
          if (h.endsWith(digest)) return true;
        }
      }
    }
    return false;
  }

  /**
   * A request the API refused (any 4xx: invalid, unauthenticated, forbidden, conflicting,
   * throttled) used nothing: the value it carried did not count (a rejected first attempt that
   * sent `ELEVATED`, equal to `elevated` but for case; the live value sent once without a token,
   * answered 401, before a made-up one was written — agent audit 20). A 5xx may have been applied
   * (a partial write), so it still counts.
   */
  private usedInSlot(re: RegExp, value: JsonValue, seq: number, slot: UseSlot): boolean {
    for (const i of this.urlHits(re)) {
      const e = this.exchanges[i] as ExchangeEvent;
      if (e.seq <= seq || (e.status >= 400 && e.status < 500)) continue;
      if (slot.in === "path" ? anyEqual(this.pathOf(i), value) : inSlot(e, slot, value)) return true;
    }
    return false;
  }

  /** Whether exchange `i` addresses the record exchange `j` does: the last segment of `i`'s path is a segment of `j`'s. */
  addresses(i: number, j: number): boolean {
    const id = this.pathOf(i).at(-1);
    return id !== undefined && this.pathOf(j).includes(id);
  }

  /** The decoded path segments of exchange `i`'s URL, split at most once. */
  private pathOf(i: number): string[] {
    this.paths ??= new Array<string[] | undefined>(this.exchanges.length);
    let segments = this.paths[i];
    if (segments === undefined) {
      segments = pathValues((this.exchanges[i] as ExchangeEvent).url);
      this.paths[i] = segments;
    }
    return segments;
  }

  /** The request body of exchange `i` as JSON text ("" without a body), serialised at most once. */
  private bodyText(i: number): string {
    this.bodies ??= new Array<string | undefined>(this.exchanges.length);
    let text = this.bodies[i];
    if (text === undefined) {
      const body = (this.exchanges[i] as ExchangeEvent).request_body;
      text = body === null ? "" : JSON.stringify(body);
      this.bodies[i] = text;
    }
    return text;
  }
}

/**
 * Whether a predicate's URL pattern matches a logged (canonical) URL: the URL as logged, or its
 * path alone when it has a query. A pattern anchored on a route (`^/v3/vessels/V-916$`) names the
 * call whatever query the client added, which that route ignores (`?fields=all`, or the empty pair
 * of `?api-version=3&` that a query-versioned world leaves as `?`): the world served the same
 * call, so it is the same call to every predicate and forbid (agent audit 20). A pattern that
 * names a query (`\?category=`) still needs it.
 *
 * @example urlMatchesPattern(/^\/v3\/vessels\/V-9$/, "/v3/vessels/V-9?fields=all") // true
 */
export function urlMatchesPattern(re: RegExp, url: string): boolean {
  if (re.test(url)) return true;
  const q = url.indexOf("?");
  return q !== -1 && pathMayMatch(re) && re.test(url.slice(0, q));
}

/**
 * Whether a pattern may match a URL's path and not the URL: one anchored at its end with no query
 * part. A prefix pattern or one allowing any query (`(\?.*)?$`) that matches the path matches the
 * URL too, so it is tested once.
 */
function pathMayMatch(re: RegExp): boolean {
  return re.source.endsWith("$") && !re.source.endsWith("(\\?.*)?$");
}

/** A URL pattern's matches in one log: the matching exchanges' indexes, and per exchange (when first read). */
interface UrlHits {
  hits: readonly number[];
  matches?: readonly boolean[];
}

/** The first position in `sorted` (texts in code-unit order) whose text is not below `text`. */
function firstAtLeast(sorted: readonly string[], text: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < text) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two ascending lists of indexes as one, without repeats. */
function mergeHits(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = i < a.length ? (a[i] as number) : Number.POSITIVE_INFINITY;
    const y = j < b.length ? (b[j] as number) : Number.POSITIVE_INFINITY;
    if (x <= y) i++;
    if (y <= x) j++;
    out.push(Math.min(x, y));
  }
  return out;
}

// A pattern's literal start is a pure function of the pattern: found once per pattern object.
const literalStarts = new WeakMap<RegExp, string>();

/**
 * The text every string a pattern matches starts with: the literal characters after its leading
 * `^`, up to the first that is not plain or carries a quantifier; for a leading group of
 * alternatives, the start they share. "" when the pattern has a flag, no leading `^`, or an
 * alternative at its top level (`^\/a|\/b` matches "/b" too).
 *
 * @example literalStart(/^\/v3\/jobs\/[^/]+$/) // "/v3/jobs/"
 * @example literalStart(/^(?:\/v3\/a\/1|\/v3\/a\/2)$/) // "/v3/a/"
 */
export function literalStart(re: RegExp): string {
  let start = literalStarts.get(re);
  if (start === undefined) {
    const { flags, source } = re;
    start =
      flags === "" && source.startsWith("^") && alternatives(source, 0).bars.length === 0
        ? leadingText(source)
        : "";
    literalStarts.set(re, start);
  }
  return start;
}

/** The literal start of a source after its `^` (see `literalStart`). */
function leadingText(source: string): string {
  if (!source.startsWith("^(?:")) return literalRun(source, 1);
  const { bars, end } = alternatives(source, 4);
  // An optional or repeated group may match nothing, or start with any of its alternatives' ends.
  if (QUANTIFIER.test(source.charAt(end + 1))) return "";
  // Each alternative's run stops at the `|` or `)` ending it (both special).
  let shared = literalRun(source, 4);
  for (const bar of bars) shared = commonStart(shared, literalRun(source, bar + 1));
  return shared;
}

/** The literal characters of `source` from `at` (see `literalStart`). */
function literalRun(source: string, at: number): string {
  let out = "";
  while (at < source.length) {
    const c = source[at] as string;
    let char: string;
    let next: number;
    if (c === "\\") {
      const escaped = source[at + 1] as string;
      // `\d`, `\b`, `\1`, `\u…`: a class, an assertion or a reference, not the letter.
      if (/[A-Za-z0-9]/.test(escaped)) break;
      char = escaped;
      next = at + 2;
    } else if (SPECIAL.includes(c)) break;
    else {
      char = c;
      next = at + 1;
    }
    // A quantified character may be absent or repeated.
    if (QUANTIFIER.test(source.charAt(next))) break;
    out += char;
    at = next;
  }
  return out;
}

const SPECIAL = ".*+?()[]{}|^$";
const QUANTIFIER = /[?*+{]/;

/**
 * The alternatives of a pattern's source from `from`: where each `|` outside every nested group
 * and class is, and where they end (the `)` closing the group they are in, or the source's end).
 */
function alternatives(source: string, from: number): { bars: number[]; end: number } {
  const bars: number[] = [];
  let depth = 0;
  let inClass = false;
  for (let at = from; at < source.length; at++) {
    const c = source[at];
    if (c === "\\") at++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) return { bars, end: at };
      depth--;
    } else if (c === "|" && depth === 0) bars.push(at);
  }
  return { bars, end: source.length };
}

/** The longest text both start with. */
function commonStart(a: string, b: string): string {
  let n = 0;
  while (n < a.length && a[n] === b[n]) n++;
  return a.slice(0, n);
}

/** Whether an exchange's request carries the value in the slot. */
function inSlot(e: ExchangeEvent, slot: UseSlot, value: JsonValue): boolean {
  switch (slot.in) {
    case "path":
      return anyEqual(pathValues(e.url), value);
    case "query":
      return anyEqual(queryParam(e.url, slot.name), value);
    case "body":
      return anyEqual(valuesAtPath(e.request_body, slot.key), value);
    case "header": {
      const h = e.request_headers[slot.name.toLowerCase()];
      if (h === undefined) return false;
      if (sameInWorld(h, value)) return true;
      const last = h.slice(h.lastIndexOf(" ") + 1);
      if (last !== h && sameInWorld(last, value)) return true;
      return h.includes("<redacted:") && h.endsWith(`<redacted:${shortDigest(String(value))}>`);
    }
  }
}

/** Whether any of the values equals `value` (a loop, not a closure per call: this is the hot path). */
function anyEqual(values: readonly JsonValue[], value: JsonValue): boolean {
  for (const got of values) if (sameInWorld(got, value)) return true;
  return false;
}

/** A slot in words, for failure reasons: ` in its body at asset_link`. */
function slotWords(slot: UseSlot | undefined): string {
  if (!slot) return "";
  switch (slot.in) {
    case "path":
      return " in its path";
    case "query":
      return ` in its query parameter ${slot.name}`;
    case "body":
      return ` in its body at ${slot.key}`;
    case "header":
      return ` in its ${slot.name} header`;
  }
}

// The same values (ids, tokens) recur across the predicates and trials of a bank; hashing each once
// keeps the redacted-header comparison off the hot path. Bounded, and a pure function of its key.
const digestCache = new Map<string, string>();
function shortDigest(value: string): string {
  let d = digestCache.get(value);
  if (d === undefined) {
    d = sha256Hex(value).slice(0, 8);
    if (digestCache.size > 50_000) digestCache.clear();
    digestCache.set(value, d);
  }
  return d;
}

function containsValue(haystack: JsonValue, value: JsonValue): boolean {
  if (sameInWorld(haystack, value)) return true;
  if (Array.isArray(haystack)) return haystack.some((h) => containsValue(h, value));
  if (haystack !== null && typeof haystack === "object")
    return Object.values(haystack).some((h) => containsValue(h, value));
  return false;
}
