import { describe, expect, it } from "vitest";
import { canonicalPath, canonicalUrl, pathValues } from "./canonical-request.js";

describe("canonicalPath", () => {
  it.each([
    ["/v3/vessels/V-204", "/v3/vessels/V-204"],
    ["/%762/vessels/V-204", "/v2/vessels/V-204"],
    ["/v3/%70artner/vessels", "/v3/partner/vessels"],
    ["/v3/vessels/V%2D633", "/v3/vessels/V-633"],
    ["/v3//vessels///V-1", "/v3/vessels/V-1"],
    ["/v3/x/../vessels/./V-1", "/v3/vessels/V-1"],
    ["/v3/x/%2e%2e/vessels", "/v3/vessels"],
    ["/v3/vessels/", "/v3/vessels/"],
    ["/v3/a%2Fb", "/v3/a%2Fb"],
    ["/v3/a%252F", "/v3/a%252F"],
    ["/v3/%zz%41", "/v3/%25zzA"],
    ["/..", "/"],
    ["/", "/"],
  ])("%s → %s", (raw, canonical) => {
    expect(canonicalPath(raw)).toBe(canonical);
    // Canonical once is canonical for good: the grader may canonicalise a logged URL again.
    expect(canonicalPath(canonical)).toBe(canonical);
  });

  it("keeps the query as sent and decodes path values once", () => {
    expect(canonicalUrl("/v3/%70artner/vessels?q=%2F")).toBe("/v3/partner/vessels?q=%2F");
    expect(pathValues("/v3/a%2Fb/c")).toEqual(["v3", "a/b", "c"]);
  });
});
