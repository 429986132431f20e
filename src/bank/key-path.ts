import type { JsonValue } from "./json.js";

/**
 * Every value at a dotted key path, walking through arrays: `items.serial` on
 * `{items: [{serial: "a"}, {serial: "b"}]}` gives `["a", "b"]`; numeric segments index arrays
 * (`items.1.serial` gives `["b"]`). A missing key gives `[]`.
 *
 * @example valuesAtPath({ a: [{ b: 1 }, { b: 2 }] }, "a.b") // [1, 2]
 */
export function valuesAtPath(value: JsonValue | null | undefined, path: string): JsonValue[] {
  const segments = path === "" ? [] : path.split(".");
  let current: JsonValue[] = value === undefined ? [] : [value];
  for (const segment of segments) {
    const next: JsonValue[] = [];
    for (const v of current) collect(v, segment, next);
    current = next;
  }
  return current;
}

function collect(value: JsonValue, segment: string, out: JsonValue[]): void {
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment)) {
      const item = value[Number(segment)];
      if (item !== undefined) out.push(item);
      return;
    }
    for (const item of value) collect(item, segment, out);
    return;
  }
  if (value !== null && typeof value === "object" && Object.hasOwn(value, segment)) {
    out.push((value as Record<string, JsonValue>)[segment] as JsonValue);
  }
}

/**
 * The last key of a dotted key path.
 *
 * @example lastKey("data.refresh_token") // "refresh_token"
 */
export function lastKey(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}
