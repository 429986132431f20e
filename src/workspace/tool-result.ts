import type { ToolArgError } from "./entity-ref.js";

/** What a tool call returns to the agent. `ends` is set by `clarify` and `report_blocked`. */
export interface ToolResult {
  ok: boolean;
  /** The text the agent sees (JSON for data, a sentence for errors). */
  content: string;
  error?: ToolArgError;
  ends?: "clarify" | "report_blocked";
}

/** A successful result whose text is `data` as JSON. */
export function ok(data: unknown): ToolResult {
  return { ok: true, content: JSON.stringify(data) };
}

// The values whose JSON text some results' content is (see `toolResultValue`).
const resultValues = new WeakMap<ToolResult, unknown>();

/**
 * `ok` for data that is plain JSON already (numbers, strings, parsed response bodies): the data is
 * kept beside the result, so an in-process agent need not parse the text it was just written as,
 * and the text is written when first read. Certification's trials read few of these texts, and
 * writing each (a response body as JSON, often kilobytes) was a large share of the memory they
 * allocated. The data must not change once given, so the text is the JSON `ok` would have written.
 */
export function okKept(data: unknown): ToolResult {
  const result = { ok: true } as ToolResult;
  resultValues.set(result, data);
  return withLazyProperty(result, "content", keptText);
}

const keptTexts = new WeakMap<object, string>();

function keptText(this: ToolResult): string {
  let text = keptTexts.get(this);
  if (text === undefined) {
    text = JSON.stringify(resultValues.get(this));
    keptTexts.set(this, text);
  }
  return text;
}

/**
 * `target` with an own, enumerable property `name` that reads as `get.call(target)`: spread, JSON
 * and deep equality see a plain value. One getter shared by every object (not a closure each) keeps
 * the object small and its shape shared.
 *
 * @example withLazyProperty({ ok: true }, "content", function () { return "…" }).content // "…"
 */
export function withLazyProperty<T extends object>(target: T, name: string, get: (this: T) => unknown): T {
  return Object.defineProperty(target, name, { get, enumerable: true, configurable: true });
}

/**
 * What `JSON.parse(result.content)` returns, without parsing, for the results that keep it
 * (`execute`'s summary and a response `read`); undefined for the others. The golden interpreter
 * reads every response it captures from: parsing each one back was a large share of its time.
 * The value is shared with the workspace's stored entities and must not be changed.
 *
 * @example const summary = toolResultValue(result) ?? JSON.parse(result.content);
 */
export function toolResultValue(result: ToolResult): unknown {
  return resultValues.get(result);
}

/** A failed result: the agent reads `error (<code>): <message>`. */
export function error(code: string, message: string): ToolResult {
  return { ok: false, content: `error (${code}): ${message}`, error: { code, message } };
}

/** `error` for an argument error the normalisers returned. */
export function errorOf(e: ToolArgError): ToolResult {
  return error(e.code, e.message);
}

/** The first three issues of a zod error, each as `path: message`. */
export function zodMessage(e: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return e.issues
    .slice(0, 3)
    .map((i) => `${i.path.length ? `${i.path.map(String).join(".")}: ` : ""}${i.message}`)
    .join("; ");
}
