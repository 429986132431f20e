import { z } from "zod";

export const EntityKindSchema = z.enum(["request", "response", "variable", "spec", "handle"]);
export type EntityKind = z.infer<typeof EntityKindSchema>;

export const EntityRefSchema = z.strictObject({
  kind: EntityKindSchema,
  id: z.string().min(1),
  parent: z.string().optional().describe("For a response: the id of its request (req-0001)"),
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
  const parent = parentId(obj.parent);
  if (parent === false) {
    return fail(
      "bad_type",
      `${argName}.parent must be the request's id ("req-0001"), "request:req-0001" or {"kind": "request", "id": "req-0001"}, got ${describe(obj.parent)}`,
    );
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

/**
 * A response's parent is a request: its id as a string, or the request's own ref as an object (a
 * model that copies the ref it was given). `undefined` when absent, `false` when it is neither.
 */
function parentId(raw: unknown): string | undefined | false {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw;
  if (typeof raw !== "object" || Array.isArray(raw)) return false;
  const ref = raw as Record<string, unknown>;
  const kind = ref.kind ?? ref.type;
  const id = ref.id ?? ref.name;
  if (kind !== undefined && kind !== "request") return false;
  return typeof id === "string" && id.length > 0 ? id : false;
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
