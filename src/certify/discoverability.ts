import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
import { resolveCanaries } from "../world/canary.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { renderOpenApi } from "../world/openapi.js";
import { jsonAtoms, occursAsToken, worldOf } from "./certify-kit.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";
import { freshTrials, sharedTrials, type TrialRunner } from "./trial-tree.js";

export const DISCOVERABILITY_VERSION = "1.0.0";

/**
 * Header names that are HTTP's own vocabulary (RFC 9110/6750), not the world's: knowing to send
 * `Content-Type` or `Authorization` is not a guess. Their values still have to be discoverable.
 */
const PROTOCOL_HEADERS = new Set(["content-type", "accept", "authorization"]);

/** One literal a request sends, and where in the request it sits. */
export interface SentLiteral {
  where:
    | "path segment"
    | "query parameter"
    | "query value"
    | "header name"
    | "header value"
    | "body field"
    | "body value";
  value: string;
}

/**
 * Every literal one REST request sends: path segments, query names and values, header names and
 * values (an `Authorization` value split into scheme and credential), body field names and scalar
 * values. Booleans and null are left out: the spec's types already say which values exist.
 *
 * @example sentLiterals({ method: "GET", url: "/v3/vessels/V-204?page=2" }).map((l) => l.value)
 * // ["v3", "vessels", "V-204", "page", "2"]
 */
export function sentLiterals(request: {
  url: string;
  headers?: Record<string, string>;
  body?: JsonValue;
}): SentLiteral[] {
  const out: SentLiteral[] = [];
  const [path = "", query = ""] = request.url.split("?", 2);
  for (const segment of path.split("/")) {
    if (segment) out.push({ where: "path segment", value: safeDecode(segment) });
  }
  if (query) {
    for (const [name, value] of new URLSearchParams(query)) {
      out.push({ where: "query parameter", value: name });
      if (value) out.push({ where: "query value", value });
    }
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    out.push({ where: "header name", value: name });
    for (const part of value.split(/\s+/)) if (part) out.push({ where: "header value", value: part });
  }
  const walk = (v: JsonValue | undefined) => {
    if (v === undefined || v === null || typeof v === "boolean") return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        out.push({ where: "body field", value: k });
        walk(x);
      }
    } else out.push({ where: "body value", value: String(v) });
  };
  walk(request.body);
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Text of what an agent has seen of the world by an exchange: response bodies and headers. */
function exchangeText(e: ExchangeEvent): string {
  return `${jsonAtoms(e.response_body)}\n${jsonAtoms(e.response_headers)}`;
}

/**
 * Gate 3, discoverability: a data-flow check over the golden run. Every literal the golden sends
 * must occur (as a whole token) before it is sent: in the ticket, the spec, the seeded workspace
 * (vault, local, global), or an earlier response or error (body or headers). The first literal
 * that does not is reported with the golden step that sent it.
 *
 * @example (await discoverabilityGate(bank, bank.tasks)).first_failure
 */
export async function discoverabilityGate(
  bank: Bank,
  tasks: readonly Task[],
  runner: TrialRunner = sharedTrials(bank),
): Promise<GateReport> {
  const failures: GateFailure[] = [];
  for (const task of tasks) {
    failures.push(...(await discoverabilityFindings(bank, task, runner)));
    runner.release(task);
  }
  return gateReport(
    DISCOVERABILITY_VERSION,
    tasks.map((t) => t.id),
    failures,
  );
}

/**
 * Discoverability on one task: an `undiscoverable_literal` failure naming the first one, if any.
 *
 * @example await discoverabilityFindings(bank, task, sharedTrials(bank)) // []
 */
export async function discoverabilityFindings(
  bank: Bank,
  task: Task,
  runner: TrialRunner,
): Promise<GateFailure[]> {
  const failure = await firstUndiscoverable(bank, task, runner);
  return failure ? [{ task_id: task.id, check: "undiscoverable_literal", message: failure }] : [];
}

/** The first undiscoverable literal of a task's golden run, as a sentence; null when there is none. */
export async function firstUndiscoverable(
  bank: Bank,
  task: Task,
  runner: TrialRunner = freshTrials(bank),
): Promise<string | null> {
  const world = worldOf(bank, task);
  const r = await runner.run(task, goldenAgentFactory, 1);
  const seeds = resolveCanaries(task.workspace, r.trial_seed);
  const known = [task.ticket, jsonAtoms(renderOpenApi(world)), jsonAtoms(seeds)];
  const exchanges = r.events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const goldenExecutes = task.golden.flatMap((s, i) => (s.op === "execute" ? [{ step: s, index: i }] : []));
  const results = new Map<string, string>();
  for (const m of r.messages) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m.content);
  let sent = 0;
  let seen = 0;
  for (const m of r.messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      if (call.name !== "execute") continue;
      const golden = goldenExecutes[sent];
      sent += 1;
      const request = (
        call.arguments as { request?: { url: string; headers?: Record<string, string>; body?: JsonValue } }
      ).request;
      const exchange = exchanges[seen];
      if (!request || !golden)
        return `execute call ${sent} of the golden run has no request or no golden step`;
      const served = results.get(call.id ?? "")?.includes('"response_ref"') ?? false;
      const before =
        served && exchange ? exchanges.filter((e) => e.seq < exchange.seq) : exchanges.slice(0, seen);
      const corpus = [...known, ...before.map(exchangeText)].join("\n");
      for (const literal of sentLiterals(request)) {
        const header = literal.where === "header name";
        if (header && PROTOCOL_HEADERS.has(literal.value.toLowerCase())) continue;
        if (occursAsToken(corpus, literal.value, header || literal.value.toLowerCase() === "bearer"))
          continue;
        const { method, url } = golden.step.op === "execute" ? golden.step.request : { method: "", url: "" };
        return `golden step ${golden.index + 1} (${method} ${url}) sends ${literal.where} ${JSON.stringify(literal.value)}, which is not in the ticket, the spec, the workspace or any earlier response`;
      }
      if (served) seen += 1;
    }
  }
  if (sent < goldenExecutes.length)
    return `the golden run sent ${sent} of ${goldenExecutes.length} requests (${r.grade.failure_reason || r.stop_detail}); the rest cannot be checked`;
  return null;
}
