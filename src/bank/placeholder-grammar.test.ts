import { describe, expect, it } from "vitest";
import {
  mayHavePlaceholder,
  placeholder,
  placeholderNames,
  replacePlaceholders,
  splitAtPlaceholders,
  wholePlaceholder,
} from "./placeholder-grammar.js";

describe("the {{name}} placeholder grammar", () => {
  it("reads names that start with a letter or _ and go on with letters, digits, _, . or -, spaces allowed inside", () => {
    expect(placeholderNames("{{a}} {{ _b.c-d9 }} {{p7_total}}")).toEqual(["a", "_b.c-d9", "p7_total"]);
    expect(placeholderNames("{{a}}{{a}}")).toEqual(["a", "a"]);
  });

  it("leaves other double-brace text literal", () => {
    for (const text of ["{{9a}}", "{{a b}}", "{{}}", "{a}", "{{a}", "{{-a}}", "{{a/b}}", "{{ }}"]) {
      expect(placeholderNames(text)).toEqual([]);
      expect(replacePlaceholders(text, () => "X")).toBe(text);
      expect(wholePlaceholder(text)).toBeNull();
    }
  });

  it("replaces each placeholder, handing over the name and the text as written", () => {
    expect(replacePlaceholders("/v3/{{ fleet }}/{{id}}?x={{id}}", (n) => `<${n}>`)).toBe(
      "/v3/<fleet>/<id>?x=<id>",
    );
    expect(replacePlaceholders("{{ keep }}-{{swap}}", (n, whole) => (n === "swap" ? "S" : whole))).toBe(
      "{{ keep }}-S",
    );
    expect(replacePlaceholders("plain", () => "X")).toBe("plain");
  });

  it("splits into literal, name, literal, … with names at odd indexes", () => {
    expect(splitAtPlaceholders("/v3/{{a}}/x/{{ b }}")).toEqual(["/v3/", "a", "/x/", "b", ""]);
    expect(splitAtPlaceholders("none")).toEqual(["none"]);
  });

  it("knows a string that is exactly one placeholder", () => {
    expect(wholePlaceholder("{{ count }}")).toBe("count");
    expect(wholePlaceholder("{{a}}{{b}}")).toBeNull();
    expect(wholePlaceholder(" {{a}}")).toBeNull();
    expect(wholePlaceholder("x{{a}}")).toBeNull();
  });

  it("writes a placeholder the grammar reads back, and says cheaply when a string holds none", () => {
    expect(wholePlaceholder(placeholder("p3_id"))).toBe("p3_id");
    expect(mayHavePlaceholder("/v3/valves")).toBe(false);
    expect(mayHavePlaceholder("/v3/{{id}}")).toBe(true);
  });
});
