import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { ForbidConstraint } from "../bank/task-schema.js";
import { gradeConstraint, urlMatchesPattern } from "./grade-g1.js";

/**
 * Issue 21 (grade-g1-index, after agent audit 20): a pattern anchored on a route matches a call to
 * that route whatever query it carries, and only that route; a pattern that names a query still
 * needs it. Checked on `urlMatchesPattern` itself and on the log index every predicate reads (a
 * forbid reports the first call it matched).
 */
const ROUTE = "^/v1/items/I-1$";

/** [pattern, logged URL, whether the pattern names that call]. */
const cases: Array<[string, string, boolean]> = [
  [ROUTE, "/v1/items/I-1", true],
  [ROUTE, "/v1/items/I-1?fields=all", true],
  [ROUTE, "/v1/items/I-1?", true],
  // Another record whose id extends this one's, with and without a query.
  [ROUTE, "/v1/items/I-12", false],
  [ROUTE, "/v1/items/I-12?fields=all", false],
  // A sub-resource of the record, and a query holding the route's text.
  [ROUTE, "/v1/items/I-1/notes?fields=all", false],
  [ROUTE, "/v1/items?next=/v1/items/I-1", false],
  // A pattern naming a query needs it; one allowing any query matches with or without.
  ["^/v1/items\\?category=a$", "/v1/items?category=a", true],
  ["^/v1/items\\?category=a$", "/v1/items", false],
  ["^/v1/items(\\?.*)?$", "/v1/items?category=a", true],
  ["^/v1/items(\\?.*)?$", "/v1/items/I-1?category=a", false],
  // A prefix pattern, and a suffix pattern the path alone ends with.
  ["^/v1/", "/v1/items/I-1?fields=all", true],
  ["archived$", "/v1/items/archived?page=2", true],
  ["ed$", "/v1/items/I-1", false],
];

describe("a route pattern names a call whatever query it carries", () => {
  it.each(cases)("%s against %s: %s", (pattern, url, named) => {
    expect(urlMatchesPattern(new RegExp(pattern), url)).toBe(named);
  });

  it.each(cases)("a forbid %s is broken by a lone call to %s: %s", (pattern, url, named) => {
    const forbid: ForbidConstraint = { kind: "forbid", id: "f", explain: "", url_pattern: pattern };
    const result = gradeConstraint(forbid, trialLog().read(url, {}).events());
    expect(result.violated).toBe(named);
    expect(result.detail).toBe(named ? `GET ${url}` : "");
  });

  it("in a log of many calls, a forbid reports the first its route names, queried or not", () => {
    const events = trialLog()
      .read("/v1/items/I-12", {})
      .read("/v1/items/I-12?fields=all", {})
      .read("/v1/items/I-1/notes?fields=all", {})
      .read("/v1/items/I-1?fields=all", {})
      .read("/v1/items/I-1", {})
      .events();
    const forbid: ForbidConstraint = { kind: "forbid", id: "f", explain: "", url_pattern: ROUTE };
    expect(gradeConstraint(forbid, events).detail).toBe("GET /v1/items/I-1?fields=all");
    const query: ForbidConstraint = { ...forbid, url_pattern: "^/v1/items/I-12\\?fields=all$" };
    expect(gradeConstraint(query, events).detail).toBe("GET /v1/items/I-12?fields=all");
  });
});
