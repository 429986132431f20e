import type { Bank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import { placeholder, placeholderNames, replacePlaceholders } from "../bank/placeholder-grammar.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { runTrial, type TrialResult } from "../run/run-trial.js";
import type { AgentFactory, TrialSession } from "../trial/agent.js";
import { playGolden } from "../trial/play-golden.js";
import { matchRoute } from "../world/route-path.js";
import { cardFailsAlone } from "./card-fails-alone.js";
import { nativeOperations, nativeRetarget } from "./native-request.js";

/** What every scripted certification agent is handed: the task, its world and the trial seed. */
export interface ScriptContext {
  task: Task;
  world: World;
  bank: Bank;
  trialSeed: string;
  /**
   * Set when the caller reads only the trial's verdict (`RunOptions.failFast`): whether a final
   * message fails the trial by its card alone, whatever calls come before it (`cardFailsAlone`).
   * A script that knows its final message up front may then send it at once: the verdict is the
   * same fail, without the calls.
   */
  verdictOnly?: { cardFails(finalMessage: string): boolean };
}

/**
 * A scripted agent for the gates: `play` acts through the session; a session it leaves open is
 * finished with an empty message (no card), so a script that gives up scores 0. With
 * `verdictOnly` (the caller reads only whether the trial passed) its context offers
 * `ScriptContext.verdictOnly`.
 *
 * @example scripted(bank, "blank", async () => {})
 */
export function scripted(
  bank: Bank,
  name: string,
  play: (session: TrialSession, ctx: ScriptContext) => Promise<void>,
  options: { verdictOnly?: boolean } = {},
): AgentFactory {
  return {
    name,
    forTask(task, { trialSeed }) {
      const world = worldOf(bank, task);
      const verdictOnly = options.verdictOnly
        ? { verdictOnly: { cardFails: (message: string) => cardFailsAlone(task, trialSeed, message) } }
        : {};
      return {
        name,
        async attempt(session) {
          await play(session, { task, world, bank, trialSeed, ...verdictOnly });
          if (!session.ended) session.finish("");
        },
      };
    },
  };
}

/** One trial of `agent` on `task` through the real harness (in-process world, real tools, grader). */
export function trial(bank: Bank, task: Task, agent: AgentFactory, epoch = 1): Promise<TrialResult> {
  return runTrial({ bank, task, agent, epoch });
}

export function worldOf(bank: Bank, task: Task): World {
  const world = bank.worlds.find((w) => w.id === task.world);
  if (!world) throw new Error(`task ${task.id} names unknown world ${task.world}`);
  return world;
}

/** The final message holding `card` as the one ```json block. */
export function cardMessage(card: Record<string, JsonValue>): string {
  return `Done.\n\n\`\`\`json\n${JSON.stringify(card, null, 2)}\n\`\`\``;
}

/** Answer field → golden binding, from the golden's `answer` step. */
export function answerBindings(task: Task): Record<string, string> {
  const step = [...task.golden].reverse().find((s) => s.op === "answer");
  return step?.op === "answer" ? step.fields : {};
}

/** The card the golden would write from these bindings. */
export function cardFrom(task: Task, bindings: ReadonlyMap<string, JsonValue>): Record<string, JsonValue> {
  const card: Record<string, JsonValue> = {};
  for (const [field, binding] of Object.entries(answerBindings(task)))
    card[field] = bindings.get(binding) ?? null;
  return card;
}

/** Play the golden (optionally tampered) without finishing, then finish with the golden's card. */
export async function playAndAnswer(
  session: TrialSession,
  task: Task,
  steps: readonly GoldenStep[],
  edit: (card: Record<string, JsonValue>) => Record<string, JsonValue> = (c) => c,
): Promise<Map<string, JsonValue>> {
  const bindings = await playGolden(steps, session, { finish: false, versioning: task.versioning });
  if (!session.ended) session.finish(cardMessage(edit(cardFrom(task, bindings))));
  return bindings;
}

/**
 * A name for the trial that plays `steps` and then answers with `card` (a word for how the card is
 * made): two trials with the same name make the same calls and send the same final message (see
 * `RunOptions.sameAs`).
 *
 * @example runner.run(task, agent, 1, { sameAs: playedName(steps, "golden card") })
 */
export function playedName(steps: readonly GoldenStep[], card: string): string {
  // `JSON.stringify(steps)`, each step's text written once: a task's exams and replays name arrays
  // of the same step objects, and writing them whole again for every exam was O(steps²) per task.
  return `${card}\u0000[${steps.map(stepText).join(",")}]`;
}

const stepTexts = new WeakMap<GoldenStep, string>();
function stepText(step: GoldenStep): string {
  let text = stepTexts.get(step);
  if (text === undefined) {
    text = JSON.stringify(step);
    stepTexts.set(step, text);
  }
  return text;
}

/** Segments of the graded answer card: undefined means the field is graded. */
export function isGradedSegment(task: Task, segment: number | undefined): boolean {
  if (task.kind !== "chain" || task.grader.chain_mode !== "selective" || !task.graded_segments) return true;
  return segment === undefined || task.graded_segments.includes(segment);
}

/** A golden step that sends a request: REST `execute` or GraphQL/MCP `execute_native`. */
export type SendStep = Extract<GoldenStep, { op: "execute" | "execute_native" }>;

/** Whether a golden step sends a request (in any protocol). */
export function isSendStep(step: GoldenStep | undefined): step is SendStep {
  return step?.op === "execute" || step?.op === "execute_native";
}

/** The bindings a golden step captures (none for a step that sends nothing). */
export function capturesOf(step: GoldenStep | undefined): string[] {
  return isSendStep(step) ? Object.keys(step.capture) : [];
}

/**
 * The routes a golden step calls (`"token"` for the token endpoint): one for REST, one per
 * operation for GraphQL/MCP. Empty for a step that sends nothing; null when a request matches no
 * route of the world.
 *
 * @example stepTargets(world, { op: "execute_native", request: { protocol: "mcp", tool: "get_vessel" }, capture: {} }) // [<route>]
 */
export function stepTargets(world: World, step: GoldenStep): Array<Route | "token"> | null {
  if (step.op === "execute_native")
    return nativeOperations(world, step.request)?.map((o) => o.target) ?? null;
  if (step.op !== "execute") return [];
  if (step.request.url.split("?")[0] === world.auth.token_path) return ["token"];
  const hit = routeFor(world, step.request.method, step.request.url);
  return hit ? [hit.route] : null;
}

/** Whether a golden step mints a token: it calls only the token endpoint and captures a value. */
export function isMintStep(world: World, step: GoldenStep): boolean {
  const targets = stepTargets(world, step);
  return capturesOf(step).length > 0 && !!targets?.length && targets.every((t) => t === "token");
}

/**
 * A golden send step in a line: `GET /v3/vessels/V-204`, `graphql query { r: getVessel(…) }`,
 * `mcp get_vessel`.
 */
export function describeStep(step: SendStep): string {
  if (step.op === "execute") return `${step.request.method} ${step.request.url}`;
  if (step.request.protocol === "mcp") return `mcp ${step.request.tool}`;
  const q = step.request.query.replace(/\s+/g, " ").trim();
  return `graphql ${q.length > 80 ? `${q.slice(0, 77)}...` : q}`;
}

/**
 * Names of the `{{placeholders}}` in a golden send step, by where they occur. A native step's
 * GraphQL query and variables, or MCP arguments, count as its body: they carry what a REST
 * request's path and body would.
 */
export function placeholdersOf(step: GoldenStep): { url: string[]; headers: string[]; body: string[] } {
  const names = placeholderNames;
  if (step.op === "execute_native") {
    const r = step.request;
    const sent =
      r.protocol === "graphql"
        ? [r.query, JSON.stringify(r.variables ?? {})]
        : [JSON.stringify(r.arguments ?? {})];
    return { url: [], headers: Object.values(r.headers ?? {}).flatMap(names), body: sent.flatMap(names) };
  }
  if (step.op !== "execute") return { url: [], headers: [], body: [] };
  return {
    url: names(step.request.url),
    headers: Object.values(step.request.headers ?? {}).flatMap(names),
    body: step.request.body === undefined ? [] : names(JSON.stringify(step.request.body)),
  };
}

/** Rename a placeholder everywhere in a golden send step (URL, headers, body; query, variables, arguments). */
export function renamePlaceholder(step: GoldenStep, from: string, to: string): GoldenStep {
  if (!isSendStep(step)) return step;
  const swap = (value: JsonValue): JsonValue => {
    if (typeof value === "string")
      return replacePlaceholders(value, (name, whole) => (name === from ? placeholder(to) : whole));
    if (Array.isArray(value)) return value.map(swap);
    if (value !== null && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
    return value;
  };
  const headers = step.request.headers
    ? {
        headers: Object.fromEntries(
          Object.entries(step.request.headers).map(([k, v]) => [k, swap(v) as string]),
        ),
      }
    : {};
  if (step.op === "execute_native") {
    const r = step.request;
    const request =
      r.protocol === "graphql"
        ? {
            ...r,
            ...headers,
            query: swap(r.query) as string,
            ...(r.variables ? { variables: swap(r.variables) as Record<string, JsonValue> } : {}),
          }
        : {
            ...r,
            ...headers,
            ...(r.arguments ? { arguments: swap(r.arguments) as Record<string, JsonValue> } : {}),
          };
    return { ...step, request };
  }
  return {
    ...step,
    request: {
      ...step.request,
      url: swap(step.request.url) as string,
      ...headers,
      ...(step.request.body !== undefined ? { body: swap(step.request.body) } : {}),
    },
  };
}

/** The world route a request goes to (method and path), with its path parameters (`matchRoute`'s rule). */
export function routeFor(
  world: World,
  method: string,
  url: string,
): { route: Route; params: Record<string, string> } | null {
  return matchRoute(world.routes, method.toUpperCase(), url.split("?")[0] ?? url);
}

/**
 * The decoy version of a golden send step: the same request sent to a deprecated or look-alike
 * route serving the same resource and action (for GraphQL/MCP, the decoy's field or tool with the
 * same arguments). Null when the world has no such decoy.
 */
export function decoyVersion(world: World, step: GoldenStep): GoldenStep | null {
  if (step.op === "execute_native") {
    const targets = stepTargets(world, step);
    const only = targets?.length === 1 ? targets[0] : undefined;
    if (!only || only === "token" || only.status !== "canonical") return null;
    const decoy = decoyRouteOf(world, only);
    return decoy ? nativeRetarget(world, step, decoy) : null;
  }
  if (step.op !== "execute") return null;
  const hit = routeFor(world, step.request.method, step.request.url);
  if (hit?.route.status !== "canonical") return null;
  const decoy = decoyRouteOf(world, hit.route);
  if (!decoy) return null;
  let missing = false;
  const path = decoy.path.replace(/\{([^}]+)\}/g, (_w, name: string) => {
    const v = hit.params[name];
    if (v === undefined) missing = true;
    return v ?? "";
  });
  if (missing) return null;
  const query = step.request.url.includes("?") ? step.request.url.slice(step.request.url.indexOf("?")) : "";
  return { ...step, request: { ...step.request, url: path + query } };
}

/** A deprecated or look-alike route serving the same resource and action as a canonical one. */
function decoyRouteOf(world: World, route: Route): Route | undefined {
  return world.routes.find(
    (r) =>
      r.status !== "canonical" &&
      r.resource === route.resource &&
      r.action === route.action &&
      r.method === route.method,
  );
}

/**
 * A chain's golden split into its segments, from the task alone: segment k ends at the first step
 * (after segment k-1) that captures the last of the values its answer fields report, plus the
 * `store` steps right after it that keep values it captured; the final segment runs to the answer.
 * An error names the segment whose answer values the golden never captures.
 *
 * @example chainSegments(chain) // { success: true, data: [{ position: 1, start: 0, end: 2 }, …] }
 */
export function chainSegments(
  task: Task,
):
  | { success: true; data: Array<{ position: number; start: number; end: number }> }
  | { success: false; error: string } {
  const bindings = answerBindings(task);
  const answerAt = task.golden.findIndex((s) => s.op === "answer");
  const stop = answerAt < 0 ? task.golden.length : answerAt;
  const segments: Array<{ position: number; start: number; end: number }> = [];
  let start = 0;
  task.positions.forEach((position, k) => {
    if (segments.length !== k) return;
    if (k === task.positions.length - 1) {
      segments.push({ position, start, end: stop });
      return;
    }
    const wanted = task.grader.answer
      .filter((f) => f.segment === position)
      .map((f) => bindings[f.field])
      .filter((b): b is string => b !== undefined);
    let end = -1;
    for (const binding of wanted) {
      const at = task.golden.findIndex((s, i) => i >= start && i < stop && capturesOf(s).includes(binding));
      if (at < 0) {
        end = -1;
        break;
      }
      end = Math.max(end, at + 1);
    }
    if (end < 0) return;
    const captured = new Set(task.golden.slice(start, end).flatMap(capturesOf));
    while (end < stop) {
      const next = task.golden[end];
      if (next?.op !== "store" || !captured.has(next.from)) break;
      end += 1;
    }
    segments.push({ position, start, end });
    start = end;
  });
  if (segments.length !== task.positions.length) {
    const missing = task.positions[segments.length];
    return { success: false, error: `the golden never captures the answer values of segment ${missing}` };
  }
  return { success: true, data: segments };
}

/**
 * Whether `literal` occurs in `text` as a whole token: not glued to a letter or digit on either
 * side, so `V-204` is not found inside `V-2040` and `3` not inside `v3`.
 *
 * @example occursAsToken("GET /v3/vessels/V-204", "V-204") // true
 */
export function occursAsToken(text: string, literal: string, caseInsensitive = false): boolean {
  return literal === "" || tokenPattern(literal, caseInsensitive).test(text);
}

/**
 * The pattern of `literal` as a whole token (what `occursAsToken` searches for), to search many
 * texts with one pattern.
 *
 * @example tokenPattern("V-204").test("GET /v3/vessels/V-2040") // false
 */
export function tokenPattern(literal: string, caseInsensitive = false): RegExp {
  const escaped = literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, caseInsensitive ? "i" : "");
}

/** Every key and scalar of a JSON value as text, one per line: what can be searched for literals. */
export function jsonAtoms(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        out.push(k);
        walk(x);
      }
    } else out.push(String(v));
  };
  walk(value);
  return out.join("\n");
}
