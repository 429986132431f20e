import { visit } from "graphql";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { worldSpec } from "../workspace/workspace.js";
import { resolveCanaries } from "../world/canary.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { renderOpenApi } from "../world/openapi.js";
import {
  describeStep,
  isSendStep,
  jsonAtoms,
  occursAsToken,
  routeFor,
  tokenPattern,
  worldOf,
} from "./certify-kit.js";
import { type GateFailure, type GateReport, gateReport } from "./certify-schema.js";
import { type NativeRequest, nativeOperations, parseGraphql } from "./native-request.js";
import { freshTrials, sharedTrials, type TrialRunner } from "./trial-tree.js";

export const DISCOVERABILITY_VERSION = "1.1.0";

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
    | "body value"
    | "graphql field"
    | "graphql argument"
    | "graphql type"
    | "graphql value"
    | "input field"
    | "variable field"
    | "variable value"
    | "tool name"
    | "tool argument"
    | "argument value";
  value: string;
}

/** A request as `execute` takes it: REST (no `protocol`, or `"rest"`), GraphQL or MCP. */
export type SentRequest =
  | { protocol?: "rest"; url: string; headers?: Record<string, string>; body?: JsonValue }
  | NativeRequest;

/**
 * Every literal one request sends. REST: path segments, query names and values, header names and
 * values (an `Authorization` value split into scheme and credential), body field names and scalar
 * values. GraphQL: the document's field, argument, input-field and type names and its inline
 * values, then the variables' field names and values (operation, alias, variable and fragment
 * names are the agent's own words, not the world's). MCP: the tool name, argument names, and the
 * arguments' field names and values. Headers as for REST. Booleans and null are left out: the
 * spec's types already say which values exist.
 *
 * @example sentLiterals({ url: "/v3/vessels/V-204?page=2" }).map((l) => l.value)
 * // ["v3", "vessels", "V-204", "page", "2"]
 * @example sentLiterals({ protocol: "mcp", tool: "get_vessel", arguments: { vessel_id: "V-204" } }).map((l) => l.value)
 * // ["get_vessel", "vessel_id", "V-204"]
 */
export function sentLiterals(request: SentRequest): SentLiteral[] {
  const out: SentLiteral[] = [];
  const walk = (v: JsonValue | undefined, field: SentLiteral["where"], value: SentLiteral["where"]) => {
    if (v === undefined || v === null || typeof v === "boolean") return;
    if (Array.isArray(v)) for (const x of v) walk(x, field, value);
    else if (typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        out.push({ where: field, value: k });
        walk(x, field, value);
      }
    } else out.push({ where: value, value: String(v) });
  };
  if (request.protocol === "graphql") {
    out.push(...graphqlLiterals(request.query));
    for (const v of Object.values(request.variables ?? {})) walk(v, "variable field", "variable value");
  } else if (request.protocol === "mcp") {
    out.push({ where: "tool name", value: request.tool });
    for (const [name, v] of Object.entries(request.arguments ?? {})) {
      out.push({ where: "tool argument", value: name });
      walk(v, "body field", "argument value");
    }
  } else {
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
  }
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    out.push({ where: "header name", value: name });
    for (const part of value.split(/\s+/)) if (part) out.push({ where: "header value", value: part });
  }
  if (request.protocol === undefined || request.protocol === "rest")
    walk(request.body, "body field", "body value");
  return out;
}

/** GraphQL's own names: built-in scalars and directives are the language's, not the world's. */
const GRAPHQL_BUILTINS = new Set(["String", "Int", "Float", "Boolean", "ID", "include", "skip"]);

/** The world's words a GraphQL document uses; every identifier when it does not parse. */
function graphqlLiterals(query: string): SentLiteral[] {
  const doc = parseGraphql(query);
  if (!doc)
    return [...new Set(query.match(/[_A-Za-z][_0-9A-Za-z]*/g) ?? [])].map((value) => ({
      where: "graphql field" as const,
      value,
    }));
  const out: SentLiteral[] = [];
  const add = (where: SentLiteral["where"], value: string) => {
    if (!GRAPHQL_BUILTINS.has(value)) out.push({ where, value });
  };
  visit(doc, {
    Field: (n) => {
      if (!n.name.value.startsWith("__")) add("graphql field", n.name.value);
    },
    Argument: (n) => add("graphql argument", n.name.value),
    ObjectField: (n) => add("input field", n.name.value),
    NamedType: (n) => add("graphql type", n.name.value),
    Directive: (n) => add("graphql field", n.name.value),
    StringValue: (n) => {
      if (n.value !== "") add("graphql value", n.value);
    },
    IntValue: (n) => add("graphql value", n.value),
    FloatValue: (n) => add("graphql value", n.value),
    EnumValue: (n) => add("graphql value", n.value),
  });
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
/**
 * Whether `literal` occurs as a token (`occursAsToken`) in the texts joined by newlines. A newline
 * is no letter or digit, so a literal without one occurs in the joined text exactly when it occurs
 * in one of the texts: each text is searched alone, and the joined text is built only for a
 * literal that holds a newline.
 */
function occursInCorpus(corpus: Corpus, literal: string, caseInsensitive: boolean): boolean {
  const { spec, texts } = corpus;
  if (literal.includes("\n"))
    return occursAsToken([texts[0], spec.text, ...texts.slice(1)].join("\n"), literal, caseInsensitive);
  if (literal === "") return true;
  const token = tokenPattern(literal, caseInsensitive);
  if (texts.some((t) => token.test(t))) return true;
  const key = `${caseInsensitive ? "i" : "s"}${literal}`;
  let found = spec.found.get(key);
  if (found === undefined) {
    found = token.test(spec.text);
    spec.found.set(key, found);
  }
  return found;
}

/**
 * What a golden send is searched in: a spec text of the world, and the texts of the task and the
 * run (the ticket first; the spec's place among them does not matter to whether a literal without
 * a newline occurs).
 */
interface Corpus {
  spec: SpecText;
  texts: readonly string[];
}

/**
 * A spec text of a world, with whether each literal searched in it occurs there: the world's tasks
 * search its spec for the same path words, header names and field names (a spec is the longest text
 * searched, and one run's literals were searched in it again for every later response).
 */
interface SpecText {
  text: string;
  found: Map<string, boolean>;
}

const specTexts = new WeakMap<World, { atoms: SpecText; fields: SpecText }>();
function specTextsOf(world: World): { atoms: SpecText; fields: SpecText } {
  let texts = specTexts.get(world);
  if (!texts) {
    texts = {
      atoms: { text: specAtoms(world), found: new Map() },
      fields: { text: specFieldNames(world), found: new Map() },
    };
    specTexts.set(world, texts);
  }
  return texts;
}

/** Where a literal is the name of a field of a body (REST, GraphQL input or variables, MCP arguments). */
const FIELD_NAMES: ReadonlySet<SentLiteral["where"]> = new Set([
  "body field",
  "input field",
  "variable field",
  "tool argument",
]);

/**
 * The names a world's spec gives as fields, one per line: schema properties and `required`
 * entries, documented parameters, and the keys of example bodies, in the OpenAPI document and in
 * the spec entity (an MCP tool's input schema; a GraphQL input's JSON Schema is the OpenAPI
 * body's). A word the spec uses only in prose is not among them.
 *
 * @example specFieldNames(world).split("\n").includes("crewSize") // true when a body schema has it
 */
export function specFieldNames(world: World): string {
  let names = specFieldsOf.get(world);
  if (names === undefined) {
    const out = new Set<string>();
    const keysOf = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(keysOf);
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          out.add(k);
          keysOf(x);
        }
    };
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          if (k === "properties" && x !== null && typeof x === "object" && !Array.isArray(x))
            for (const name of Object.keys(x)) out.add(name);
          if (k === "required" && Array.isArray(x))
            for (const name of x) if (typeof name === "string") out.add(name);
          if (k === "parameters" && Array.isArray(x))
            for (const p of x) {
              const name = (p as { name?: unknown } | null)?.name;
              if (typeof name === "string") out.add(name);
            }
          if (k === "example" || k === "examples") keysOf(x);
          walk(x);
        }
    };
    walk(renderOpenApi(world));
    walk(worldSpec(world));
    names = [...out].join("\n");
    specFieldsOf.set(world, names);
  }
  return names;
}
const specFieldsOf = new WeakMap<World, string>();

/** Every key and scalar of a world's spec entity (`jsonAtoms`), built once per world. */
const specAtomsOf = new WeakMap<World, string>();
function specAtoms(world: World): string {
  let atoms = specAtomsOf.get(world);
  if (atoms === undefined) {
    atoms = jsonAtoms(worldSpec(world));
    specAtomsOf.set(world, atoms);
  }
  return atoms;
}

function exchangeText(e: ExchangeEvent): string {
  return `${jsonAtoms(e.response_body)}\n${jsonAtoms(e.response_headers)}`;
}

/**
 * How many exchanges of the log, from `from` on, one served `execute` call produced: one for REST;
 * for GraphQL/MCP one per operation the log shows in order (a refused document or call is logged
 * once, at the carrier path). The log holds protocol-neutral exchanges, so a native call is
 * matched to them by the routes its operations name.
 */
function exchangesOfCall(
  world: World,
  request: SentRequest,
  exchanges: readonly ExchangeEvent[],
  from: number,
): number {
  if (request.protocol !== "graphql" && request.protocol !== "mcp") return 1;
  const ops = nativeOperations(world, request) ?? [];
  let n = 0;
  for (const op of ops) {
    const e = exchanges[from + n];
    if (!e) break;
    const path = e.url.split("?")[0];
    const hit =
      op.target === "token"
        ? path === world.auth.token_path
        : routeFor(world, e.method, e.url)?.route.id === op.target.id;
    if (hit) n += 1;
  }
  const carrier = exchanges[from];
  if (n === 0 && carrier && (carrier.url === "/graphql" || carrier.url === "/mcp")) return 1;
  return n;
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
  // The spec entity the agent can read: OpenAPI for REST, the SDL or the tool list for GraphQL/MCP.
  const spec = specTextsOf(world);
  const known = [task.ticket, jsonAtoms(seeds)];
  const exchanges = r.events.filter((e): e is ExchangeEvent => e.type === "exchange");
  const texts: string[] = [];
  const textOf = (i: number) => {
    texts[i] ??= exchangeText(exchanges[i] as ExchangeEvent);
    return texts[i];
  };
  const goldenSends = task.golden.flatMap((s, i) => (isSendStep(s) ? [{ step: s, index: i }] : []));
  const results = new Map<string, string>();
  for (const m of r.messages) if (m.role === "tool" && m.tool_call_id) results.set(m.tool_call_id, m.content);
  let sent = 0;
  let seen = 0;
  // Literals found so far: what the agent has seen only grows, so a literal found for an earlier
  // call is found for every later one (one not found ends the check).
  const found = new Set<string>();
  for (const m of r.messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.tool_calls ?? []) {
      if (call.name !== "execute") continue;
      const golden = goldenSends[sent];
      sent += 1;
      const request = (call.arguments as { request?: SentRequest }).request;
      if (!request || !golden)
        return `execute call ${sent} of the golden run has no request or no golden step`;
      const served = results.get(call.id ?? "")?.includes('"response_ref"') ?? false;
      // What the agent has seen: the known texts and the responses so far, one after another.
      const responses = Array.from({ length: seen }, (_, i) => textOf(i));
      const texts = [...known, ...responses];
      const corpus = { spec: spec.atoms, texts };
      // A body field's name counts as discoverable from the spec only where the spec names it as a
      // field (see `specFieldNames`), not wherever its prose uses the word.
      const fieldCorpus = { spec: spec.fields, texts };
      for (const literal of sentLiterals(request)) {
        const header = literal.where === "header name";
        if (header && PROTOCOL_HEADERS.has(literal.value.toLowerCase())) continue;
        const fieldName = FIELD_NAMES.has(literal.where);
        const caseInsensitive = header || literal.value.toLowerCase() === "bearer";
        const key = `${fieldName ? "f" : "a"}${caseInsensitive ? "i" : "s"}${literal.value}`;
        if (found.has(key)) continue;
        if (occursInCorpus(fieldName ? fieldCorpus : corpus, literal.value, caseInsensitive)) {
          found.add(key);
          continue;
        }
        return `golden step ${golden.index + 1} (${describeStep(golden.step)}) sends ${literal.where} ${JSON.stringify(literal.value)}, which is not in the ticket, the spec, the workspace or any earlier response`;
      }
      if (served) seen += exchangesOfCall(world, request, exchanges, seen);
    }
  }
  if (sent < goldenSends.length)
    return `the golden run sent ${sent} of ${goldenSends.length} requests (${r.grade.failure_reason || r.stop_detail}); the rest cannot be checked`;
  return null;
}
