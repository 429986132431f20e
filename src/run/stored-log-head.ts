import { STOP_REASONS } from "../trial/agent.js";

/**
 * The fast check of a stored log's head as `JSON.parse` made it: true only for a head the head's
 * zod schema (`V4HeadSchema` or `V5HeadSchema` in `stored-trial-log.ts`, by `version`) accepts as it is — every key known, every
 * field of its type, no default to fill in — so the decoder can use it without zod's copy. Any
 * other value, valid or not, is false: the decoder then runs the schema, which fills defaults or
 * names what is wrong. A head is most of what a re-grade validates per trial, and zod's deep copy
 * of its events was a tenth of a re-grade's time. `stored-log-head.test.ts` holds the two to each
 * other: on valid heads and on thousands of broken ones, this never accepts what the schema refuses.
 *
 * Version 5's head differs in two places: an exchange has no `response_body` (the k-th exchange's
 * body is the head member's line k), and `final_resources` gives each resource with its number of
 * records (one line each). Version 6's is version 5's without `answer_key` (a line of its own) and
 * with each resource's `inline` (its records' lines in the head's member or a member of its own).
 *
 * @example if (!isPlainHead(head, 6)) V6HeadSchema.safeParse(head)
 */
export function isPlainHead(v: unknown, version: 4 | 5 | 6): boolean {
  if (!isObject(v)) return false;
  let keys = 0;
  for (const key in v) {
    keys++;
    if (!HEAD_KEYS.has(key)) return false;
  }
  const h = v as Record<string, unknown>;
  if (h.log_version !== version) return false;
  if (!isNonEmptyString(h.bank_hash) || !isNonEmptyString(h.agent) || !isNonEmptyString(h.task_id))
    return false;
  if (!Number.isSafeInteger(h.epoch) || (h.epoch as number) <= 0) return false;
  if (typeof h.trial_seed !== "string" || typeof h.grader_version !== "string") return false;
  if (!STOP_REASON_SET.has(h.stop_reason as string) || typeof h.stop_detail !== "string") return false;
  if (h.final_message !== null && typeof h.final_message !== "string") return false;
  if (version === 6 ? "answer_key" in h : !isAnswerKey(h.answer_key)) return false;
  if (
    h.final_resources !== null &&
    !(version === 4 ? isResourceNames(h.final_resources) : isResourceCounts(h.final_resources, version === 6))
  )
    return false;
  let optional = 0;
  if ("removed_records" in h) {
    optional++;
    if (!isRecordsByResource(h.removed_records)) return false;
  }
  // Version 6's answer key is a line of its own.
  if (keys !== REQUIRED_KEYS - (version === 6 ? 1 : 0) + optional) return false;
  if (!Array.isArray(h.events)) return false;
  let line = 0;
  for (const e of h.events) {
    if (!isObject(e)) return false;
    if (e.type === "exchange") {
      if (!isExchange(e, version === 4 ? ++line : undefined)) return false;
    } else if (!isVariableWrite(e)) return false;
  }
  return true;
}

const REQUIRED = [
  "log_version",
  "bank_hash",
  "agent",
  "task_id",
  "epoch",
  "trial_seed",
  "grader_version",
  "answer_key",
  "stop_reason",
  "stop_detail",
  "final_message",
  "events",
  "final_resources",
] as const;
const REQUIRED_KEYS = REQUIRED.length;
const HEAD_KEYS = new Set<string>([...REQUIRED, "removed_records"]);
const STOP_REASON_SET = new Set<string>(STOP_REASONS);
const PROTOCOLS = new Set(["rest", "graphql", "mcp"]);
const SCOPES = new Set(["vault", "local", "global"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function isNonEmptyString(v: unknown): boolean {
  return typeof v === "string" && v.length > 0;
}

/**
 * A stored answer key as JSON.parse made it, true only when its schema (`answer_key` of
 * `StoredTrialLogSchema`) takes it as it is.
 *
 * @example isAnswerKey([{ field: "vessel_id", expected: "V-1" }]) // true
 */
export function isAnswerKey(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const a of v) if (!isAnswer(a)) return false;
  return true;
}

function isAnswer(v: unknown): boolean {
  if (!isObject(v)) return false;
  let keys = 0;
  for (const key in v) {
    keys++;
    if (key !== "field" && key !== "expected") return false;
  }
  // `expected` present: JSON has no undefined, and the schema would copy the key's absence otherwise.
  return keys === 2 && typeof v.field === "string";
}

function isResourceNames(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const name of v) if (typeof name !== "string") return false;
  return new Set(v).size === v.length;
}

/**
 * Version 5's `final_resources`: `{ resource, records }` each, every resource once; version 6's
 * (`inline`) also with a boolean `inline`.
 */
function isResourceCounts(v: unknown, inline: boolean): boolean {
  if (!Array.isArray(v)) return false;
  const names = new Set<string>();
  for (const r of v) {
    if (!isObject(r)) return false;
    let keys = 0;
    for (const key in r) {
      keys++;
      if (key !== "resource" && key !== "records" && !(inline && key === "inline")) return false;
    }
    if (keys !== (inline ? 3 : 2) || typeof r.resource !== "string" || !isSeq(r.records)) return false;
    if (inline && typeof r.inline !== "boolean") return false;
    names.add(r.resource);
  }
  return names.size === v.length;
}

function isRecordsByResource(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const key in v) {
    const records = v[key];
    if (!Array.isArray(records)) return false;
    for (const r of records) if (!isObject(r)) return false;
  }
  return true;
}

function isHeaders(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const key in v) if (typeof v[key] !== "string") return false;
  return true;
}

const EXCHANGE_KEYS = new Set([
  "type",
  "seq",
  "protocol",
  "method",
  "url",
  "raw_url",
  "request_headers",
  "request_body",
  "status",
  "response_headers",
  "response_body",
]);

/**
 * An exchange of the head: in version 4 its `response_body` is the number of its body's line,
 * `line`; in version 5 (`line` undefined) it has none.
 */
function isExchange(e: Record<string, unknown>, line: number | undefined): boolean {
  let keys = 0;
  for (const key in e) {
    keys++;
    if (!EXCHANGE_KEYS.has(key)) return false;
  }
  // `protocol` present (the schema would fill in its default), `raw_url` optional.
  if (keys !== ("raw_url" in e ? 11 : 10) - (line === undefined ? 1 : 0)) return false;
  if ("raw_url" in e && typeof e.raw_url !== "string") return false;
  return (
    isSeq(e.seq) &&
    PROTOCOLS.has(e.protocol as string) &&
    typeof e.method === "string" &&
    typeof e.url === "string" &&
    isHeaders(e.request_headers) &&
    "request_body" in e &&
    Number.isSafeInteger(e.status) &&
    isHeaders(e.response_headers) &&
    (line === undefined ? !("response_body" in e) : e.response_body === line)
  );
}

function isVariableWrite(e: Record<string, unknown>): boolean {
  let keys = 0;
  for (const key in e) {
    keys++;
    if (key !== "type" && key !== "seq" && key !== "scope" && key !== "name" && key !== "value") return false;
  }
  return (
    keys === 5 &&
    e.type === "variable_write" &&
    isSeq(e.seq) &&
    SCOPES.has(e.scope as string) &&
    typeof e.name === "string"
  );
}

function isSeq(v: unknown): boolean {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}
