import type { JsonValue } from "./json.js";

/**
 * Every value at a dotted key path, walking through arrays: `items.serial` on
 * `{items: [{serial: "a"}, {serial: "b"}]}` gives `["a", "b"]`; numeric segments index arrays
 * (`items.1.serial` gives `["b"]`). A missing key gives `[]`.
 *
 * @example valuesAtPath({ a: [{ b: 1 }, { b: 2 }] }, "a.b") // [1, 2]
 */
export function valuesAtPath(value: JsonValue | null | undefined, path: string): JsonValue[] {
  return valuesAtKeyPath(value, keyPath(path));
}

/**
 * `valuesAtPath` with the path already split (see `keyPath`): for a caller that reads one path
 * against many values.
 *
 * @example valuesAtKeyPath({ a: [{ b: 1 }, { b: 2 }] }, keyPath("a.b")) // [1, 2]
 */
export function valuesAtKeyPath(value: JsonValue | null | undefined, path: KeyPath): JsonValue[] {
  if (value === undefined) return [];
  const { keys, indexes } = path;
  // Through objects alone a path reaches at most one value: no list is built per segment.
  let at = 0;
  let v: JsonValue = value;
  for (; at < keys.length; at++) {
    if (Array.isArray(v)) break;
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, keys[at] as string)) return [];
    v = (v as Record<string, JsonValue>)[keys[at] as string] as JsonValue;
  }
  let current: JsonValue[] = [v];
  for (; at < keys.length; at++) {
    const next: JsonValue[] = [];
    for (const item of current) collect(item, keys[at] as string, indexes[at], next);
    current = next;
  }
  return current;
}

function collect(value: JsonValue, segment: string, index: number | undefined, out: JsonValue[]): void {
  if (Array.isArray(value)) {
    if (index !== undefined) {
      const item = value[index];
      if (item !== undefined) out.push(item);
      return;
    }
    for (const item of value) collect(item, segment, index, out);
    return;
  }
  if (value !== null && typeof value === "object" && Object.hasOwn(value, segment)) {
    out.push((value as Record<string, JsonValue>)[segment] as JsonValue);
  }
}

/** A key path split into its segments, each numeric one's array index beside it. */
export interface KeyPath {
  keys: readonly string[];
  indexes: ReadonlyArray<number | undefined>;
}

// A bank's graders name few distinct paths, read against every response of every trial: each is
// split once. Bounded, and a pure function of its key.
const keyPaths = new Map<string, KeyPath>();

/**
 * A dotted key path split into its segments (each path split once).
 *
 * @example keyPath("items.1.serial") // { keys: ["items", "1", "serial"], indexes: [undefined, 1, undefined] }
 */
export function keyPath(path: string): KeyPath {
  let kp = keyPaths.get(path);
  if (kp === undefined) {
    const keys = path === "" ? [] : path.split(".");
    kp = { keys, indexes: keys.map((k) => (/^\d+$/.test(k) ? Number(k) : undefined)) };
    if (keyPaths.size >= 10_000) keyPaths.clear();
    keyPaths.set(path, kp);
  }
  return kp;
}

/**
 * The last key of a dotted key path.
 *
 * @example lastKey("data.refresh_token") // "refresh_token"
 */
export function lastKey(path: string): string {
  return path.slice(path.lastIndexOf(".") + 1);
}
