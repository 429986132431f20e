import type { JsonValue } from "../bank/json.js";
import { valuesAtPath } from "../bank/key-path.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { AgentToolCall, StepResult, TrialSession } from "./agent.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/**
 * Interpret a golden solution through the real tools, the way a careful agent would: it reads the
 * vault values it needs, sends literal values it has observed, reads each response in full,
 * stores what the ticket asks to store and answers with the card.
 *
 * `tamper` lets the certification gates break one load-bearing step (sabotaged exams).
 */
export async function playGolden(
  steps: readonly GoldenStep[],
  session: TrialSession,
  options: { finish?: boolean; tamper?: (step: GoldenStep, index: number) => GoldenStep | null } = {},
): Promise<Map<string, JsonValue>> {
  const bindings = new Map<string, JsonValue>();
  const act = async (call: AgentToolCall): Promise<StepResult | null> => {
    const result = await session.step({ toolCalls: [call] });
    return result.stopped ? null : result;
  };
  const resolve = async (text: string): Promise<string | null> => {
    for (const [, name] of text.matchAll(PLACEHOLDER)) {
      const key = name as string;
      if (bindings.has(key)) continue;
      const r = await act({ name: "read", arguments: { entity_ref: { kind: "variable", id: key } } });
      const content = r?.results[0];
      if (!r || !content?.ok) return null;
      bindings.set(key, (JSON.parse(content.content) as { value: JsonValue }).value);
    }
    return text.replace(PLACEHOLDER, (_w, name: string) => {
      const v = bindings.get(name);
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  };
  const resolveDeep = async (value: JsonValue): Promise<JsonValue | null> => {
    if (typeof value === "string") {
      // A body value that is exactly one placeholder keeps the bound value's JSON type.
      const whole = /^\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}$/.exec(value);
      if (whole) {
        if ((await resolve(value)) === null) return null;
        return bindings.get(whole[1] as string) ?? null;
      }
      return resolve(value);
    }
    if (Array.isArray(value)) {
      const out: JsonValue[] = [];
      for (const v of value) {
        const r = await resolveDeep(v);
        if (r === null && v !== null) return null;
        out.push(r);
      }
      return out;
    }
    if (value !== null && typeof value === "object") {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(value)) {
        const r = await resolveDeep(v);
        if (r === null && v !== null) return null;
        out[k] = r;
      }
      return out;
    }
    return value;
  };

  for (const [index, original] of steps.entries()) {
    const step = options.tamper ? options.tamper(original, index) : original;
    if (step === null || session.ended) continue;
    switch (step.op) {
      case "read_spec":
        if (!(await act({ name: "read", arguments: { entity_ref: { kind: "spec", id: "openapi" } } })))
          return bindings;
        break;
      case "execute": {
        const url = await resolve(step.request.url);
        if (url === null) return bindings;
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(step.request.headers ?? {})) {
          const r = await resolve(v);
          if (r === null) return bindings;
          headers[k] = r;
        }
        const body = step.request.body === undefined ? undefined : await resolveDeep(step.request.body);
        const request = {
          protocol: "rest",
          method: step.request.method,
          url,
          ...(Object.keys(headers).length ? { headers } : {}),
          ...(body !== undefined && body !== null ? { body } : {}),
        };
        const sent = await act({ name: "execute", arguments: { request } });
        const result = sent?.results[0];
        if (!sent || !result?.ok) return bindings;
        const { response_ref } = JSON.parse(result.content) as { response_ref: string };
        if (Object.keys(step.capture).length === 0) break;
        const read = await act({ name: "read", arguments: { entity_ref: response_ref } });
        const readResult = read?.results[0];
        if (!read || !readResult?.ok) return bindings;
        const responseBody = (JSON.parse(readResult.content) as { content: { body: JsonValue } }).content
          .body;
        for (const [name, path] of Object.entries(step.capture)) {
          const [first] = valuesAtPath(responseBody, path);
          if (first !== undefined) bindings.set(name, first);
        }
        break;
      }
      case "store": {
        const value = bindings.get(step.from);
        if (value === undefined) break;
        const r = await act({
          name: "write",
          arguments: {
            entity_ref: { kind: "variable", id: step.name },
            content: { value },
            scope: step.scope,
          },
        });
        if (!r) return bindings;
        break;
      }
      case "answer": {
        if (options.finish === false) break;
        const card: Record<string, JsonValue> = {};
        for (const [field, binding] of Object.entries(step.fields))
          card[field] = bindings.get(binding) ?? null;
        session.finish(`Done.\n\n\`\`\`json\n${JSON.stringify(card, null, 2)}\n\`\`\``);
        return bindings;
      }
    }
  }
  return bindings;
}
