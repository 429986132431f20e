import type { JsonObject, JsonValue } from "../bank/json.js";
import type { World } from "../bank/world-schema.js";
import { renderOpenApi } from "../world/openapi.js";
import { validateBody } from "../world/validate-body.js";

/** One place where a world's published spec and its behaviour disagree. */
export interface SpecMismatch {
  route: string;
  message: string;
}

/** A value of a documented property's schema: its first enum value, else one of its type. */
function sampleOf(schema: JsonObject): JsonValue {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0] as JsonValue;
  switch (schema.type) {
    case "integer":
      return 1;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return "x";
  }
}

/**
 * Where a world's spec documents what the world refuses (issue 16): for every documented create and
 * update, the body built exactly as the spec documents it (every documented property, each enum's
 * first value) must pass the route's live validator and carry its required fields; an update the
 * world answers 428 without a precondition must document the `If-Match` header as required (or
 * the version field in its body) and the 428 itself.
 *
 * @example specBodyMismatches(world) // [] when the spec and the world agree
 */
export function specBodyMismatches(world: World): SpecMismatch[] {
  const spec = renderOpenApi(world) as unknown as { paths: Record<string, Record<string, JsonObject>> };
  const out: SpecMismatch[] = [];
  for (const route of world.routes) {
    if (!route.documented || (route.action !== "create" && route.action !== "update")) continue;
    const op = spec.paths[route.path]?.[route.method.toLowerCase()];
    if (!op) continue;
    const where = `${route.method} ${route.path}`;
    const content = (op.requestBody as JsonObject | undefined)?.content as
      | Record<string, JsonObject>
      | undefined;
    const schema = (content?.["application/json"]?.schema ?? {}) as JsonObject;
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const body: JsonObject = {};
    for (const [name, prop] of Object.entries(properties)) body[name] = sampleOf(prop);
    const versionField =
      route.concurrency?.mode === "body" ? (route.concurrency.version_field ?? "version") : null;
    const validated = { ...body };
    if (versionField) delete validated[versionField];
    if (route.validator) {
      const problems = validateBody(route.validator, validated, route.action);
      if (problems.length > 0)
        out.push({
          route: where,
          message: `the body the spec documents is refused by the live validator: ${problems.map((p) => `${p.field} ${p.code}`).join(", ")}`,
        });
    } else if (route.action === "create") {
      const absent = route.required_fields.filter((f) => !(f in properties));
      if (absent.length > 0)
        out.push({
          route: where,
          message: `the spec does not document the required field(s) ${absent.join(", ")}`,
        });
    }
    if (route.concurrency && route.action === "update") {
      const responses = (op.responses ?? {}) as JsonObject;
      if (!("428" in responses))
        out.push({ route: where, message: "the world answers 428 but the spec does not document it" });
      if ((route.concurrency.mode ?? "etag") === "etag") {
        const params = (op.parameters ?? []) as JsonObject[];
        const ifMatch = params.find((p) => String(p.name).toLowerCase() === "if-match" && p.in === "header");
        if (ifMatch?.required !== true)
          out.push({
            route: where,
            message:
              "the world needs If-Match (428 without it) but the spec does not document it as required",
          });
      } else if (versionField && !((schema.required ?? []) as string[]).includes(versionField))
        out.push({
          route: where,
          message: `the world needs ${versionField} in the body but the spec does not require it`,
        });
    }
  }
  return out;
}
