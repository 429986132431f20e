import { z } from "zod";

export const EntityKindSchema = z.enum(["request", "response", "variable", "spec", "handle"]);
export type EntityKind = z.infer<typeof EntityKindSchema>;

export const EntityRefSchema = z.strictObject({
  kind: EntityKindSchema,
  id: z.string().min(1),
  parent: z.string().optional(),
});
export type EntityRef = z.infer<typeof EntityRefSchema>;

/** A user- or model-facing error: a stable code and a truthful message. */
export interface ToolArgError {
  code: string;
  message: string;
}

export type Parsed<T> = { success: true; data: T } | { success: false; error: ToolArgError };

const KINDS = EntityKindSchema.options.join(", ");

/**
 * Accept the reasonable shapes models send for an entity ref, and answer the rest with a clear
 * error. Accepted: an object `{kind, id, parent?}`; the same object as a JSON string; the string
 * forms `kind:id` and `request:<req>/response:<resp>`; `name` for `id` and `type` for `kind`.
 * A ref without a kind is refused (never guessed).
 *
 * @example normalizeEntityRef('{"kind":"variable","id":"token"}') // { success: true, data: {...} }
 */
export function normalizeEntityRef(raw: unknown, argName = "entity_ref"): Parsed<EntityRef> {
  if (typeof raw === "string") {
    const text = raw.trim();
    if (text.startsWith("{")) {
      try {
        return normalizeEntityRef(JSON.parse(text), argName);
      } catch (e) {
        return fail("bad_json", `${argName} looks like JSON but does not parse: ${(e as Error).message}`);
      }
    }
    const nested = /^request:([^/]+)\/response:(.+)$/.exec(text);
    if (nested)
      return {
        success: true,
        data: { kind: "response", id: nested[2] as string, parent: nested[1] as string },
      };
    const simple = /^([a-z]+):(.+)$/.exec(text);
    if (simple) return normalizeEntityRef({ kind: simple[1], id: simple[2] }, argName);
    return fail(
      "missing_kind",
      `${argName} "${text}" has no kind; write {"kind": "<${KINDS}>", "id": "${text}"} or "kind:${text}"`,
    );
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return fail("bad_type", `${argName} must be an object {kind, id, parent?}, got ${describe(raw)}`);
  }
  const obj = raw as Record<string, unknown>;
  const kind = obj.kind ?? obj.type;
  const id = obj.id ?? obj.name;
  if (kind === undefined) {
    return fail("missing_kind", `${argName} is missing "kind" (one of ${KINDS})`);
  }
  if (typeof kind !== "string" || !EntityKindSchema.options.includes(kind as EntityKind)) {
    return fail("unknown_kind", `${argName}.kind ${JSON.stringify(kind)} is not one of ${KINDS}`);
  }
  if (typeof id !== "string" || id.length === 0) {
    return fail("missing_id", `${argName} is missing "id" (a non-empty string)`);
  }
  if (kind === "response" && typeof id === "string") {
    const nested = /^request:([^/]+)\/response:(.+)$/.exec(id);
    if (nested)
      return {
        success: true,
        data: { kind: "response", id: nested[2] as string, parent: nested[1] as string },
      };
  }
  const parent = obj.parent;
  if (parent !== undefined && parent !== null && typeof parent !== "string") {
    return fail("bad_type", `${argName}.parent must be a string when given`);
  }
  return {
    success: true,
    data: {
      kind: kind as EntityKind,
      id: stripKindPrefix(id, kind),
      ...(typeof parent === "string" ? { parent: stripKindPrefix(parent, "request") } : {}),
    },
  };
}

/** `"spec:openapi"` → `"openapi"` when the prefix repeats the kind. */
function stripKindPrefix(id: string, kind: string): string {
  return id.startsWith(`${kind}:`) ? id.slice(kind.length + 1) : id;
}

/** `request:req-0001/response:resp-0001`, `variable:token`, `spec:openapi`. */
export function formatEntityRef(ref: EntityRef): string {
  if (ref.kind === "response" && ref.parent) return `request:${ref.parent}/response:${ref.id}`;
  return `${ref.kind}:${ref.id}`;
}

/** Objects may arrive as JSON strings; this parses them, and says why when it cannot. */
export function parseMaybeJson(raw: unknown, argName: string): Parsed<unknown> {
  if (typeof raw !== "string") return { success: true, data: raw };
  const text = raw.trim();
  if (!(text.startsWith("{") || text.startsWith("["))) return { success: true, data: raw };
  try {
    return { success: true, data: JSON.parse(text) };
  } catch (e) {
    return fail("bad_json", `${argName} looks like JSON but does not parse: ${(e as Error).message}`);
  }
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value.slice(0, 60))}` : typeof value;
}

function fail(code: string, message: string): { success: false; error: ToolArgError } {
  return { success: false, error: { code, message } };
}
