import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import type { Checkpoint, ForbidConstraint, G1Predicate } from "../bank/task-schema.js";
import { resolveCanaries } from "../world/canary.js";
import type { ExchangeEvent, TrialEvent, VariableWriteEvent } from "../world/event-log.js";
import type { ConstraintResult, G1Result } from "./grade-schema.js";
import { valuesEqual } from "./values-equal.js";

/**
 * Evaluate one G1 predicate over the trial's event log. Pure: the same log, card and seed always
 * give the same result.
 *
 * Data flow passes when one value found at `from_body_key` in a matching response reaches every
 * required destination: the answer card field, a variable written after that response
 * (`must_be_stored`), and a later request matching `used_in_request_url_pattern` (URL, body or
 * header, compared through the header digest when the header was redacted).
 */
export function gradeG1Predicate(
  predicate: G1Predicate,
  events: readonly TrialEvent[],
  card: Record<string, unknown> | null,
  trialSeed: string,
): G1Result {
  const base = {
    id: predicate.id,
    kind: predicate.kind,
    explain: predicate.explain,
    ...(predicate.segment ? { segment: predicate.segment } : {}),
  };
  const log = indexLog(events);
  const exchanges = log.exchanges;
  switch (predicate.kind) {
    case "call": {
      const matches = log.urlMatches(predicate.url_pattern);
      const hit = exchanges.find(
        (e, i) =>
          matches[i] &&
          (!predicate.method || e.method.toUpperCase() === predicate.method.toUpperCase()) &&
          (predicate.status === undefined || e.status === predicate.status) &&
          predicate.body_has_keys.every((k) => valuesAtPath(e.response_body, k).length > 0),
      );
      return hit
        ? { ...base, passed: true }
        : {
            ...base,
            passed: false,
            reason: `no ${predicate.method ?? "call"} to /${predicate.url_pattern}/${predicate.status !== undefined ? ` answered ${predicate.status}` : ""}${predicate.body_has_keys.length ? ` with body keys ${predicate.body_has_keys.join(", ")}` : ""}`,
          };
    }
    case "workspace_value": {
      const expected = resolveCanaries(predicate.value, trialSeed);
      const final = log.finalVariables;
      const scopes = predicate.scope === "any" ? ["local", "global"] : [predicate.scope];
      const found = scopes.map((s) => final.get(`${s}:${predicate.name}`)).find((v) => v !== undefined);
      if (found === undefined) {
        return {
          ...base,
          passed: false,
          reason: `no variable ${predicate.name} was stored in ${scopes.join(" or ")} scope`,
        };
      }
      return valuesEqual(found, expected)
        ? { ...base, passed: true, value: found }
        : {
            ...base,
            passed: false,
            value: found,
            reason: `variable ${predicate.name} holds ${JSON.stringify(found)}, not the expected value`,
          };
    }
    case "data_flow": {
      const matches = log.urlMatches(predicate.from_response_url_pattern);
      const sources = exchanges.filter((e, i) => matches[i] && e.status === predicate.from_status);
      if (sources.length === 0) {
        return {
          ...base,
          passed: false,
          reason: `no response from /${predicate.from_response_url_pattern}/ with status ${predicate.from_status}`,
        };
      }
      // One candidate per distinct value, from its earliest response: a later use or store of it
      // counts from the first time the API showed it. Walked in place (no candidate list): this is
      // the grader's hottest loop.
      const seen = new Set<string>();
      const got = predicate.answer_field === undefined ? undefined : card?.[predicate.answer_field];
      let found = false;
      let lastReason = "";
      for (const source of sources) {
        for (const { value, key } of log.scalarsAt(source, predicate.from_body_key)) {
          found = true;
          if (seen.has(key)) continue;
          seen.add(key);
          const seq = source.seq;
          if (predicate.answer_field !== undefined) {
            if (got === undefined || !valuesEqual(got as JsonValue, value)) {
              lastReason = `answer field '${predicate.answer_field}' does not carry the ${predicate.from_body_key} the API returned`;
              continue;
            }
          }
          if (predicate.must_be_stored && !storedAfter(events, value, seq)) {
            lastReason = `the ${predicate.from_body_key} from the response was not stored in a variable`;
            continue;
          }
          if (
            predicate.used_in_request_url_pattern &&
            !usedLater(log, predicate.used_in_request_url_pattern, value, seq)
          ) {
            lastReason = `the ${predicate.from_body_key} was not used in a later request to /${predicate.used_in_request_url_pattern}/`;
            continue;
          }
          return { ...base, passed: true, value };
        }
      }
      if (!found) {
        return {
          ...base,
          passed: false,
          reason: `matching responses carry no value at ${predicate.from_body_key}`,
        };
      }
      return { ...base, passed: false, reason: lastReason };
    }
  }
}

/** A forbid constraint is violated by any call matching it. */
export function gradeConstraint(
  constraint: ForbidConstraint,
  events: readonly TrialEvent[],
): ConstraintResult {
  const log = indexLog(events);
  const matches = log.urlMatches(constraint.url_pattern);
  const hit = log.exchanges.find(
    (e, i) =>
      matches[i] && (!constraint.method || e.method.toUpperCase() === constraint.method.toUpperCase()),
  );
  return {
    id: constraint.id,
    kind: "forbid",
    violated: Boolean(hit),
    detail: hit ? `${hit.method} ${hit.url}` : "",
    explain: constraint.explain,
    ...(constraint.segment ? { segment: constraint.segment } : {}),
  };
}

export function checkpointHit(checkpoint: Checkpoint, events: readonly TrialEvent[]): boolean {
  const log = indexLog(events);
  const matches = log.urlMatches(checkpoint.url_pattern);
  return log.exchanges.some(
    (e, i) =>
      matches[i] &&
      (!checkpoint.method || e.method.toUpperCase() === checkpoint.method.toUpperCase()) &&
      (checkpoint.status === undefined || e.status === checkpoint.status),
  );
}

// Grading runs over thousands of stored trials; patterns repeat across them, so compile each once.
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

/**
 * What every predicate of one trial reads, computed once per event log: chains carry dozens of
 * predicates over hundreds of exchanges, and re-filtering and re-matching per predicate made
 * grading quadratic. Memoised per log array, so grading stays a pure function of its input.
 */
interface LogIndex {
  exchanges: ExchangeEvent[];
  finalVariables: Map<string, JsonValue>;
  /** For a URL pattern: whether each exchange's URL matches it (aligned with `exchanges`). */
  urlMatches(source: string): boolean[];
  /** The request body of exchange `i` as JSON text ("" without a body). */
  bodyText(i: number): string;
  /** The scalars (no null, no object) at `path` in the response body of `event`, with dedup keys. */
  scalarsAt(event: ExchangeEvent, path: string): Array<{ value: JsonValue; key: string }>;
}

const logIndexes = new WeakMap<readonly TrialEvent[], LogIndex>();

function indexLog(events: readonly TrialEvent[]): LogIndex {
  const hit = logIndexes.get(events);
  if (hit) return hit;
  const exchanges: ExchangeEvent[] = [];
  const finalVariables = new Map<string, JsonValue>();
  for (const e of events) {
    if (e.type === "exchange") exchanges.push(e);
    else finalVariables.set(`${e.scope}:${e.name}`, e.value);
  }
  const byPattern = new Map<string, boolean[]>();
  const bodies: Array<string | undefined> = [];
  const scalars = new Map<string, Array<{ value: JsonValue; key: string }>>();
  const index: LogIndex = {
    bodyText(i) {
      let text = bodies[i];
      if (text === undefined) {
        const e = exchanges[i] as ExchangeEvent;
        text = e.request_body === null ? "" : JSON.stringify(e.request_body);
        bodies[i] = text;
      }
      return text;
    },
    scalarsAt(event, path) {
      const key = `${event.seq}\u0000${path}`;
      let out = scalars.get(key);
      if (!out) {
        out = [];
        for (const value of valuesAtPath(event.response_body, path)) {
          if (value === null || typeof value === "object") continue;
          out.push({ value, key: `${typeof value}:${String(value)}` });
        }
        scalars.set(key, out);
      }
      return out;
    },
    exchanges,
    finalVariables,
    urlMatches(source) {
      let matches = byPattern.get(source);
      if (!matches) {
        const re = pattern(source);
        matches = exchanges.map((e) => re.test(e.url));
        byPattern.set(source, matches);
      }
      return matches;
    },
  };
  logIndexes.set(events, index);
  return index;
}

function storedAfter(events: readonly TrialEvent[], value: JsonValue, seq: number): boolean {
  return events.some(
    (e): e is VariableWriteEvent =>
      e.type === "variable_write" && e.seq > seq && e.scope !== "vault" && containsValue(e.value, value),
  );
}

function usedLater(log: LogIndex, urlPattern: string, value: JsonValue, seq: number): boolean {
  const matches = log.urlMatches(urlPattern);
  const needle = String(value);
  // Encoded once, when first needed (it throws on a lone surrogate, as it did per exchange).
  let encoded: string | undefined;
  const inUrl = (url: string) => {
    if (url.includes(needle)) return true;
    encoded ??= encodeURIComponent(needle);
    return url.includes(encoded);
  };
  const inBody = JSON.stringify(value).replace(/^"|"$/g, "");
  let digest: string | null = null;
  const redactedMatch = (h: string) => {
    if (!h.includes("<redacted:")) return false;
    digest ??= `<redacted:${shortDigest(needle)}>`;
    return h.endsWith(digest);
  };
  return log.exchanges.some(
    (e, i) =>
      e.seq > seq &&
      matches[i] &&
      (inUrl(e.url) ||
        log.bodyText(i).includes(inBody) ||
        Object.values(e.request_headers).some((h) => h.includes(needle) || redactedMatch(h))),
  );
}

function containsValue(haystack: JsonValue, value: JsonValue): boolean {
  if (valuesEqual(haystack, value)) return true;
  if (Array.isArray(haystack)) return haystack.some((h) => containsValue(h, value));
  if (haystack !== null && typeof haystack === "object")
    return Object.values(haystack).some((h) => containsValue(h, value));
  return false;
}
