import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import { mayHavePlaceholder, splitAtPlaceholders, wholePlaceholder } from "../bank/placeholder-grammar.js";
import type { GoldenNativeRequest, GoldenStep } from "../bank/task-schema.js";
import type { Versioning } from "../bank/versioning-schema.js";
import { type ToolResult, toolResultValue } from "../workspace/workspace.js";
import { wireRequest } from "../world/versioning.js";
import type { AgentToolCall, GoldenRun, StepResult, TrialSession } from "./agent.js";

/** A tool result's content as JSON: the workspace's own value when it kept one, else parsed. */
function contentOf(result: ToolResult): unknown {
  return toolResultValue(result) ?? JSON.parse(result.content);
}

// A golden string split at its placeholders — literal, name, literal, …, literal — once per string:
// the same golden strings are resolved in every trial of a task, and the regex passes were a
// few percent of certification.
const splits = new Map<string, string[]>();
function splitOnce(text: string): string[] {
  let parts = splits.get(text);
  if (!parts) {
    parts = splitAtPlaceholders(text);
    if (splits.size >= 20_000) splits.clear();
    splits.set(text, parts);
  }
  return parts;
}

/**
 * Interpret a golden solution through the real tools, the way a careful agent would: it reads the
 * vault values it needs, sends literal values it has observed, reads each response in full,
 * stores what the ticket asks to store and answers with the card. It is the one interpreter of golden
 * steps: the golden agent plays a task's golden with it, the harness replays a task's setup with it
 * (`run/replay-setup`), and the exploits and gates play edited goldens with it.
 *
 * `tamper` lets the certification gates break one load-bearing step (sabotaged exams).
 *
 * @example await playGolden(task.golden, session); // the answer key
 */
export async function playGolden(
  steps: readonly GoldenStep[],
  session: TrialSession,
  options: {
    finish?: boolean;
    tamper?: (step: GoldenStep, index: number) => GoldenStep | null;
    /** The task's `versioning`: golden URLs name the version in the path; this sends it the world's way. */
    versioning?: Versioning;
  } = {},
): Promise<Map<string, JsonValue>> {
  // A session with a memo of golden runs skips the steps another trial played from here (a task's
  // versioning is fixed, so the memo's recorded wire form is this run's).
  const run = options.tamper || session.ended ? undefined : session.goldenMemo?.begin(steps);
  const player = new GoldenPlayer(session, run, options.versioning);
  for (let index = run?.played ?? 0; index < steps.length; index++) {
    const original = steps[index] as GoldenStep;
    const step = options.tamper ? options.tamper(original, index) : original;
    if (step === null || session.ended) continue;
    if ((await player.play(step, options.finish !== false)) === "stop") break;
    // An answer step finishes the session or, not finishing, is skipped: runs are kept up to it.
    if (step.op !== "answer" && !session.ended) run?.reached(index + 1, player.takeBound());
  }
  return player.bindings;
}

const NOTHING_BOUND: ReadonlyArray<readonly [string, JsonValue]> = Object.freeze([]);

/** One golden run: the values bound so far (captures and vault reads) and how each step is played. */
class GoldenPlayer {
  readonly bindings: Map<string, JsonValue>;
  /** What was bound since `takeBound` was last called, in order; null when no memo asks. */
  private bound: Array<readonly [string, JsonValue]> | null;

  constructor(
    private readonly session: TrialSession,
    run: GoldenRun | undefined,
    private readonly versioning?: Versioning,
  ) {
    this.bindings = run?.bindings ?? new Map();
    this.bound = run ? [] : null;
  }

  /** What was bound since the last call (see `GoldenRun.reached`). */
  takeBound(): ReadonlyArray<readonly [string, JsonValue]> {
    const bound = this.bound;
    if (!bound || bound.length === 0) return NOTHING_BOUND;
    this.bound = [];
    return bound;
  }

  private bind(name: string, value: JsonValue): void {
    this.bindings.set(name, value);
    this.bound?.push([name, value]);
  }

  /** Play one step; "stop" when the run ends here (a failed call, an abstention, the answer). */
  async play(step: GoldenStep, finish: boolean): Promise<"next" | "stop"> {
    switch (step.op) {
      case "read_spec":
        return (await this.act({ name: "read", arguments: { entity_ref: { kind: "spec", id: "openapi" } } }))
          ? "next"
          : "stop";
      case "execute": {
        const request = await this.resolved(() => this.restRequest(step.request));
        return request !== null && (await this.send(request, step.capture)) ? "next" : "stop";
      }
      case "execute_native": {
        const request = await this.resolved(() => this.nativeRequest(step.request));
        return request !== null && (await this.send(request, step.capture)) ? "next" : "stop";
      }
      case "store": {
        const value = this.bindings.get(step.from);
        if (value === undefined) return "next";
        const r = await this.act({
          name: "write",
          arguments: {
            entity_ref: { kind: "variable", id: step.name },
            content: { value },
            scope: step.scope,
          },
        });
        return r ? "next" : "stop";
      }
      case "answer": {
        if (!finish) return "next";
        const card: Record<string, JsonValue> = {};
        for (const [field, binding] of Object.entries(step.fields))
          card[field] = this.bindings.get(binding) ?? null;
        this.session.finish(`Done.\n\n\`\`\`json\n${JSON.stringify(card, null, 2)}\n\`\`\``);
        return "stop";
      }
    }
  }

  private async act(call: AgentToolCall): Promise<StepResult | null> {
    const result = await this.session.step({ toolCalls: [call] });
    return result.stopped ? null : result;
  }

  /**
   * What `build` resolves from the bindings, reading the vault values it names that are unbound.
   * `build` is synchronous and stops (null) at the first unbound name, leaving it in `missing`: the
   * name is read and `build` runs again. Each name is read where a walk that read names as it met
   * them would have read it (the names before it are bound, so the walk up to it is the same), and
   * a build that stops (a placeholder bound to null) stops before what follows. A name whose read
   * fails resolves to null where it is met in the next run, as that walk's string would have (a
   * REST body then goes unsent, the rest of the request stops); the walk stops there, so no later
   * name is read. Resolving without awaiting each string was most of the interpreter's allocation.
   */
  private async resolved<T>(build: () => T | null): Promise<T | null> {
    this.unreadable = null;
    for (;;) {
      this.missing = null;
      const out = build();
      const key = this.missing as string | null;
      if (key === null) return out;
      const r = await this.act({ name: "read", arguments: { entity_ref: { kind: "variable", id: key } } });
      const content = r?.results[0];
      if (!r || !content?.ok) this.unreadable = key;
      else this.bind(key, (JSON.parse(content.content) as { value: JsonValue }).value);
    }
  }

  /** The first unbound name the current build met (see `resolved`). */
  private missing: string | null = null;
  /** A name of the current build whose read failed (see `resolved`). */
  private unreadable: string | null = null;

  /** A string with its placeholders filled from the bindings, or null (an unbound name: `missing`). */
  private resolve(text: string): string | null {
    // Most strings hold no placeholder: skip the two regex passes.
    if (!mayHavePlaceholder(text)) return text;
    const parts = splitOnce(text);
    for (let i = 1; i < parts.length; i += 2) {
      const key = parts[i] as string;
      if (this.bindings.has(key)) continue;
      if (key !== this.unreadable) this.missing = key;
      return null;
    }
    let out = parts[0] as string;
    for (let i = 1; i < parts.length; i += 2) {
      const v = this.bindings.get(parts[i] as string);
      out += `${typeof v === "string" ? v : JSON.stringify(v)}${parts[i + 1]}`;
    }
    return out;
  }

  private resolveDeep(value: JsonValue): JsonValue | null {
    if (typeof value === "string") {
      // A body value that is exactly one placeholder keeps the bound value's JSON type.
      const whole = wholePlaceholder(value);
      if (whole !== null) {
        if (this.resolve(value) === null) return null;
        return this.bindings.get(whole) ?? null;
      }
      return this.resolve(value);
    }
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (const v of value) {
        const r = this.resolveDeep(v);
        if (r === null && v !== null) return null;
        out.push(r);
      }
      return out;
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(value)) {
        const r = this.resolveDeep(v);
        if (r === null && v !== null) return null;
        out[k] = r;
      }
      return out;
    }
    return value;
  }

  private resolveHeaders(given: Record<string, string> | undefined): Record<string, string> | null {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(given ?? {})) {
      const r = this.resolve(v);
      if (r === null) return null;
      headers[k] = r;
    }
    return headers;
  }

  /** Send one request through `execute`, then read the stored response in full when a value is captured. */
  private async send(request: Record<string, JsonValue>, capture: Record<string, string>): Promise<boolean> {
    const sent = await this.act({ name: "execute", arguments: { request } });
    const result = sent?.results[0];
    if (!sent || !result?.ok) return false;
    const { response_ref } = contentOf(result) as { response_ref: string };
    if (Object.keys(capture).length === 0) return true;
    const read = await this.act({ name: "read", arguments: { entity_ref: response_ref } });
    const readResult = read?.results[0];
    if (!read || !readResult?.ok) return false;
    const responseBody = (contentOf(readResult) as { content: { body: JsonValue } }).content.body;
    for (const [name, path] of Object.entries(capture)) {
      const [first] = valuesAtPath(responseBody, path);
      if (first !== undefined) this.bind(name, first);
    }
    return true;
  }

  /** A golden REST request with its placeholders resolved, as the `execute` tool takes it. */
  private restRequest(
    given: Extract<GoldenStep, { op: "execute" }>["request"],
  ): Record<string, JsonValue> | null {
    const url = this.resolve(given.url);
    if (url === null) return null;
    const headers = this.resolveHeaders(given.headers);
    if (headers === null) return null;
    const body = given.body === undefined ? undefined : this.resolveDeep(given.body);
    const wire = wireRequest(this.versioning, { url, headers });
    return {
      protocol: "rest",
      method: given.method,
      url: wire.url,
      ...(Object.keys(wire.headers).length ? { headers: wire.headers } : {}),
      ...(body !== undefined && body !== null ? { body } : {}),
      // The signer's secret stays a placeholder: the workspace resolves it, so it never travels.
      ...(given.sign ? { sign: { ...given.sign } } : {}),
    };
  }

  /** A GraphQL or MCP request with its placeholders resolved, as the `execute` tool takes it. */
  private nativeRequest(request: GoldenNativeRequest): Record<string, JsonValue> | null {
    const headers = this.resolveHeaders(request.headers);
    if (headers === null) return null;
    const out: Record<string, JsonValue> = { protocol: request.protocol };
    if (request.protocol === "graphql") {
      const query = this.resolve(request.query);
      if (query === null) return null;
      out.query = query;
      if (request.variables !== undefined) {
        const variables = this.resolveDeep(request.variables);
        if (variables === null) return null;
        out.variables = variables;
      }
      if (request.operationName !== undefined) out.operationName = request.operationName;
    } else {
      out.tool = request.tool;
      if (request.arguments !== undefined) {
        const args = this.resolveDeep(request.arguments);
        if (args === null) return null;
        out.arguments = args;
      }
    }
    if (Object.keys(headers).length) out.headers = headers;
    return out;
  }
}
