import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRequestContent, quickRestRequest } from "./request-content.js";
import { RestRequestSchema } from "./tool-definitions.js";

/** The value, its own keys in order at every level, and which object it is not: all must match. */
function shape(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(shape);
  return Object.entries(value).map(([k, v]) => [k, v === undefined ? "<undefined>" : shape(v)]);
}

const key = fc.constantFrom("protocol", "method", "url", "headers", "body", "extra", "__proto__");
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom("rest", "graphql", "GET", "/v3/x", "__proto__"),
  fc.jsonValue({ maxDepth: 2 }),
  fc.dictionary(
    fc.constantFrom("accept", "authorization", "__proto__", "x"),
    fc.oneof(fc.string(), fc.integer()),
    {
      maxKeys: 3,
    },
  ),
);
/**
 * Request-like objects, built as JSON.parse would build them (so `__proto__` can be an own key):
 * mostly a method and a URL, then any keys, some odd, in any order.
 */
const requestLike = fc
  .tuple(
    fc.option(fc.tuple(fc.constant("method"), fc.oneof(fc.constantFrom("GET", "POST"), anyValue)), {
      nil: undefined,
    }),
    fc.option(fc.tuple(fc.constant("url"), fc.oneof(fc.constantFrom("/v3/x", "/a?b=1"), anyValue)), {
      nil: undefined,
    }),
    fc.array(fc.tuple(key, anyValue), { maxLength: 4 }),
  )
  .chain(([method, url, rest]) =>
    fc.shuffledSubarray([...(method ? [method] : []), ...(url ? [url] : []), ...rest], { minLength: 0 }),
  )
  .map((entries) => {
    const o: Record<string, unknown> = {};
    for (const [k, v] of entries)
      Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    return o;
  });

describe("quickRestRequest", () => {
  it("gives exactly what RestRequestSchema gives whenever it decides (values, key order, present undefined keys)", () => {
    let decided = 0;
    fc.assert(
      fc.property(requestLike, (raw) => {
        const quick = quickRestRequest(raw);
        if (quick === undefined) return;
        decided += 1;
        const zod = RestRequestSchema.safeParse(raw);
        expect(zod.success).toBe(true);
        expect(shape(quick)).toEqual(shape(zod.data));
        if (quick.headers) expect(quick.headers).not.toBe(raw.headers);
        if ("body" in raw) expect(quick.body).toBe(raw.body);
      }),
      { numRuns: 2000 },
    );
    expect(decided).toBeGreaterThan(20);
  });

  it("decides the plain requests agents send, and leaves every other shape to the schema", () => {
    expect(quickRestRequest({ method: "GET", url: "/v3/x", headers: { accept: "a" } })).toEqual({
      protocol: "rest",
      method: "GET",
      url: "/v3/x",
      headers: { accept: "a" },
    });
    for (const raw of [
      { method: "GET", url: "/x", extra: 1 },
      { protocol: "graphql", method: "GET", url: "/x" },
      { method: 1, url: "/x" },
      { method: "GET", url: "/x", headers: { n: 1 } },
      { method: "GET", url: "/x", headers: null },
      JSON.parse('{"method":"GET","url":"/x","headers":{"__proto__":"v"}}'),
      Object.assign(Object.create(null), { method: "GET", url: "/x" }),
      "GET /x",
      null,
    ])
      expect(quickRestRequest(raw), JSON.stringify(raw)).toBeUndefined();
    // Left to the schema, which still refuses what it refused.
    expect(parseRequestContent({ method: "GET", url: "/x", extra: 1 }).success).toBe(false);
    expect(parseRequestContent({ method: "GET", url: "/x", headers: { n: 1 } }).success).toBe(false);
  });
});
