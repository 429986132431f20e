import { describe, expect, it } from "vitest";
import { resolvePlaceholders } from "./placeholders.js";

const vars: Record<string, string | number> = { id: "V-7", n: 3 };
const lookup = (name: string) => vars[name];

describe("resolvePlaceholders", () => {
  it("fills placeholders at any depth of the body; what holds none is kept as it is", () => {
    const untouched = { a: [1, { b: "plain" }] };
    const body = JSON.parse(
      '{"keep":{"a":[1,{"b":"plain"}]},"list":["x","{{id}}"],"__proto__":{"k":"{{n}}"}}',
    );
    body.keep = untouched;
    const r = resolvePlaceholders(
      { protocol: "rest", method: "POST", url: "/v/{{id}}", headers: { "x-n": "{{n}}" }, body },
      lookup,
    );
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.url).toBe("/v/V-7");
    expect(r.data.headers).toEqual({ "x-n": "3" });
    const out = r.data.body as Record<string, unknown>;
    expect(out.keep).toBe(untouched);
    expect(out.list).toEqual(["x", "V-7"]);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(JSON.stringify(out)).toBe(
      '{"keep":{"a":[1,{"b":"plain"}]},"list":["x","V-7"],"__proto__":{"k":"3"}}',
    );
    // The request itself is not changed.
    expect(body.list).toEqual(["x", "{{id}}"]);
  });

  it("names every unknown variable once, in the order url, headers, body, signing secret", () => {
    const r = resolvePlaceholders(
      {
        method: "POST",
        url: "/v/{{a}}",
        headers: { h: "{{b}}" },
        body: { x: ["{{c}}", "{{a}}"] },
        sign: { secret: "{{d}}" },
      } as never,
      lookup,
    );
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.code).toBe("unknown_variable");
    expect(r.error.message).toMatch(/^unknown variable \{\{a\}\}, \{\{b\}\}, \{\{c\}\}, \{\{d\}\};/);
  });
});
