import type { JsonObject, JsonValue } from "../bank/json.js";
import type { ErrorStyle } from "../bank/world-schema.js";

/**
 * What the engine answers, as data: a status, a JSON body (or none) and headers. Route logic
 * returns replies; only the engine turns them into HTTP responses, so an idempotent replay, the
 * event log and both transports all see the same value. An error reply also carries its semantic
 * form (`problem`), which the engine words in the world's error style (`styleReply`).
 */
export interface Reply {
  status: number;
  body: JsonValue | null;
  headers: Record<string, string>;
  problem?: Problem;
}

/**
 * An error as the route logic means it: a stable code, a truthful message, the agent's hints, and
 * (where the message names the fix) the message a hard task's error gives instead (`terse`).
 */
export interface Problem {
  code: string;
  message: string;
  extra: JsonObject;
  terse?: string;
  /** The fields a hard task's error carries instead of `extra` (still stripped of `FIX_KEYS`). */
  terseExtra?: JsonObject;
}

/** A JSON reply. @example ok(200, { vessels: [] }) */
export function ok(status: number, body: JsonValue | null, headers: Record<string, string> = {}): Reply {
  return { status, body, headers };
}

/**
 * An error the world sends to the agent: a stable `error` code, a truthful `message`, and
 * whatever else the agent needs to act on it (`hint`, the field, the allowed values). The body is
 * the plain style; `styleReply` rewords it for a world with another style.
 *
 * @example fail(404, "not_found", "no vessels record with vessel_id 'V-9'")
 */
export function fail(
  status: number,
  error: string,
  message: string,
  extra: JsonObject = {},
  headers: Record<string, string> = {},
): Reply {
  return { status, body: { error, message, ...extra }, headers, problem: { code: error, message, extra } };
}

/**
 * The error reply with the message a hard task's error gives instead of one that names the fix,
 * and optionally the fields it carries instead (see `gradeHints`).
 *
 * @example withTerse(fail(405, "method_not_allowed", "GET is not allowed on /a; allowed: POST"), "GET is not allowed on /a")
 */
export function withTerse(reply: Reply, terse: string, terseExtra?: JsonObject): Reply {
  return reply.problem
    ? { ...reply, problem: { ...reply.problem, terse, ...(terseExtra ? { terseExtra } : {}) } }
    : reply;
}

/** The media type of a world's error bodies. @example errorMediaType({ shape: "problem" }) // "application/problem+json" */
export function errorMediaType(style: ErrorStyle | undefined): string {
  return style?.shape === "problem" ? "application/problem+json" : "application/json";
}

/**
 * An error code as a world spells it.
 *
 * @example spellCode({ shape: "fault", code_case: "upper" }, "rate_limited") // "RATE_LIMITED"
 */
export function spellCode(style: ErrorStyle | undefined, code: string): string {
  if (style?.shape === "problem") return code.replace(/_/g, "-");
  switch (style?.code_case ?? "snake") {
    case "snake":
      return code;
    case "upper":
      return code.toUpperCase();
    case "kebab":
      return code.replace(/_/g, "-");
    case "pascal":
      return code
        .split("_")
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join("");
  }
}

/**
 * The code and message an agent reads in a world's error body: what a ticket quotes.
 *
 * @example phraseError({ shape: "errors", message_template: "{message} ({code})" }, "rate_limited", "slow down")
 * // { code: "rate_limited", message: "slow down (rate_limited)" }
 */
export function phraseError(
  style: ErrorStyle | undefined,
  code: string,
  message: string,
  status = 0,
): { code: string; message: string } {
  const spelled = spellCode(style, code);
  const template = style?.message_template ?? "{message}";
  // One pass, so a message containing "{code}" is not rewritten.
  const worded = template.replace(/\{(message|code|status)\}/g, (_m, k: string) =>
    k === "message" ? message : k === "code" ? spelled : String(status),
  );
  return { code: spelled, message: worded };
}

/**
 * The body of an error in a world's style. Every agent-facing field of `extra` stays in the body
 * (at the top level, or beside the code in `errors[0]` / `fault`); a field named like one of the
 * shape's own keys is kept under its own name only where it does not clash.
 *
 * @example renderProblem({ shape: "fault" }, 429, { code: "rate_limited", message: "slow down", extra: { retry_after: 4 } })
 * // { fault: { code: "rate_limited", reason: "slow down", retry_after: 4 } }
 */
export function renderProblem(style: ErrorStyle | undefined, status: number, problem: Problem): JsonObject {
  const { code, message } = phraseError(style, problem.code, problem.message, status);
  switch (style?.shape ?? "plain") {
    case "plain":
      return { error: code, message, ...problem.extra };
    case "problem": {
      const title = problem.code.replace(/_/g, " ");
      return {
        type: `urn:problem:${code}`,
        title: title.charAt(0).toUpperCase() + title.slice(1),
        status,
        detail: message,
        ...withoutKeys(problem.extra, ["type", "title", "status", "detail"]),
      };
    }
    case "errors":
      return { errors: [{ code, message, ...withoutKeys(problem.extra, ["code", "message"]) }] };
    case "fault":
      return { fault: { code, reason: message, ...withoutKeys(problem.extra, ["code", "reason"]) } };
  }
  return { error: code, message, ...problem.extra };
}

/**
 * How much an error tells the agent about its fix. `full` (easy and medium tasks): the error may
 * name the fix (a `hint`, the values a field accepts, the name it expects, the methods a path
 * takes). `terse` (hard tasks): the error says what is wrong (its code, a message without the fix
 * and the fields that describe the fault) and the fix is left to the spec, a linked resource or
 * another response.
 */
export type HintLevel = "full" | "terse";

/** The hint level of a task's difficulty. @example hintLevelFor("hard") // "terse" */
export function hintLevelFor(difficulty: "easy" | "medium" | "hard"): HintLevel {
  return difficulty === "hard" ? "terse" : "full";
}

/**
 * The hint level of an error on the route `route` (a route path template; null for a path no route
 * takes): the task's `level`, or `terse` when the route is one of `terseRoutes` (a chain's hard
 * segments' routes). The world tells a request's segment by the route it takes, not by anything
 * the agent says.
 *
 * @example hintLevelAt("full", ["/v3/orders/dispatch"], "/v3/orders/dispatch") // "terse"
 */
export function hintLevelAt(
  level: HintLevel,
  terseRoutes: readonly string[],
  route: string | null,
): HintLevel {
  if (level === "terse" || route === null || terseRoutes.length === 0) return level;
  return terseRoutes.includes(route) ? "terse" : level;
}

/**
 * Keys of an error body that carry a fix rather than the fault: a hint, the values a field or
 * parameter accepts, the name a field expects, the methods a path takes. A terse error has none,
 * at its top level or in its per-field `errors`.
 */
export const FIX_KEYS: readonly string[] = ["hint", "allowed", "expected", "allow"];

/**
 * The reply as a task of hint level `level` gets it: at `terse`, an error loses every fix key
 * (`FIX_KEYS`, in its per-field `errors` too), its message becomes the problem's `terse` one where
 * it has one, and a 405 loses its `allow` header (so every error style and protocol says only what
 * is wrong); at `full`, as is. Leaving out `Allow` departs from RFC 9110 §15.5.6 on purpose, as
 * many real servers do: the header would name a hard task's fix, and the spec documents every
 * route's methods. Easy and medium worlds send it.
 *
 * @example gradeHints("terse", fail(401, "token_expired", "the bearer token has expired", { hint: "mint …" })).body
 * // { error: "token_expired", message: "the bearer token has expired" }
 */
export function gradeHints(level: HintLevel, reply: Reply): Reply {
  if (level === "full" || !reply.problem) return reply;
  const { problem } = reply;
  const bare = (o: JsonObject): JsonObject => {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(o)) if (!FIX_KEYS.includes(k)) out[k] = v;
    return out;
  };
  const extra = bare(problem.terseExtra ?? problem.extra);
  const errors = extra.errors;
  if (Array.isArray(errors))
    extra.errors = errors.map((e) =>
      e !== null && typeof e === "object" && !Array.isArray(e) ? bare(e as JsonObject) : e,
    );
  const message = problem.terse ?? problem.message;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(reply.headers)) if (k.toLowerCase() !== "allow") headers[k] = v;
  return {
    ...reply,
    headers,
    body: { error: problem.code, message, ...extra },
    problem: { code: problem.code, message, extra },
  };
}

/**
 * The reply as the world words it: an error reply gets its body in the world's style (and the
 * problem media type); any other reply, and every error of a `plain` world, is returned as is.
 *
 * @example styleReply(world.errors, fail(404, "not_found", "no such truck"))
 */
export function styleReply(style: ErrorStyle | undefined, reply: Reply): Reply {
  if (!reply.problem || style === undefined) return reply;
  if (style.shape === "plain" && style.code_case === undefined && style.message_template === undefined)
    return reply;
  const headers =
    style.shape === "problem" ? { ...reply.headers, "content-type": errorMediaType(style) } : reply.headers;
  return { ...reply, body: renderProblem(style, reply.status, reply.problem), headers };
}

/**
 * The dotted key path at which a world's error body carries one of the problem's extra fields,
 * for goldens and graders that read an error (`errors.0.allowed`, `fault.staged_id`).
 *
 * @example errorKeyPath({ shape: "errors" }, "errors") // "errors.0.errors"
 */
export function errorKeyPath(style: ErrorStyle | undefined, key: string): string {
  switch (style?.shape ?? "plain") {
    case "errors":
      return `errors.0.${key}`;
    case "fault":
      return `fault.${key}`;
    default:
      return key;
  }
}

/**
 * The code and message of an error body in any style, or null when the body is not one.
 *
 * @example readError({ fault: { code: "NOT_FOUND", reason: "no such truck" } }) // { code: "NOT_FOUND", message: "no such truck" }
 */
export function readError(body: unknown): { code: string; message: string } | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  const pair = (code: unknown, message: unknown) =>
    typeof code === "string" && typeof message === "string" ? { code, message } : null;
  if (typeof b.type === "string" && b.type.startsWith("urn:problem:"))
    return pair(b.type.slice("urn:problem:".length), b.detail);
  if (Array.isArray(b.errors) && b.errors.length > 0 && typeof b.errors[0] === "object" && !("error" in b)) {
    const first = b.errors[0] as Record<string, unknown>;
    return pair(first.code, first.message);
  }
  if (b.fault !== null && typeof b.fault === "object") {
    const f = b.fault as Record<string, unknown>;
    return pair(f.code, f.reason);
  }
  return pair(b.error, b.message);
}

function withoutKeys(extra: JsonObject, keys: readonly string[]): JsonObject {
  if (!keys.some((k) => k in extra)) return extra;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(extra)) if (!keys.includes(k)) out[k] = v;
  return out;
}
