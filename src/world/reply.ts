import type { JsonObject, JsonValue } from "../bank/json.js";

/**
 * What the engine answers, as data: a status, a JSON body (or none) and headers. Route logic
 * returns replies; only the engine turns them into HTTP responses, so an idempotent replay, the
 * event log and both transports all see the same value.
 */
export interface Reply {
  status: number;
  body: JsonValue | null;
  headers: Record<string, string>;
}

/** A JSON reply. @example ok(200, { vessels: [] }) */
export function ok(status: number, body: JsonValue | null, headers: Record<string, string> = {}): Reply {
  return { status, body, headers };
}

/**
 * An error the world sends to the agent: a stable `error` code, a truthful `message`, and
 * whatever else the agent needs to act on it (`hint`, the field, the allowed values).
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
  return { status, body: { error, message, ...extra }, headers };
}
