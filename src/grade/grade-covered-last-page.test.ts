import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1): what makes a page of a listing say it is the last
 * (`isLastPage`), at the edges grade-covered.test.ts leaves: a Link header written without quotes,
 * a listing answered as a bare array, and a 200 answered with no body.
 */
const covered = (bodyKey: string): G1Predicate => ({
  kind: "covered",
  id: "listing_read_to_end",
  explain: "",
  url_patterns: ["^/v3/vessels(\\?.*)?$"],
  body_key: bodyKey,
  ids: ["V-1", "V-2"],
});
type Page = { url: string; body: JsonValue; link?: string };
const grade = (bodyKey: string, pages: readonly Page[]) => {
  const log = new EventLog();
  for (const p of pages)
    log.append({
      type: "exchange",
      protocol: "rest",
      method: "GET",
      url: p.url,
      request_headers: {},
      request_body: null,
      status: 200,
      response_headers: p.link === undefined ? {} : { link: p.link },
      response_body: p.body,
    });
  return gradeG1Predicate(covered(bodyKey), log.events, null, "seed");
};
const page = (k: number, link?: string): Page => ({
  url: `/v3/vessels?page=${k}`,
  body: { vessels: [{ vessel_id: `V-${k}` }] },
  ...(link === undefined ? {} : { link }),
});

describe("a page of a listing says it is the last", () => {
  it('a Link rel=next without quotes (RFC 8288 allows the bare token) points to a next page, as rel="next" does', () => {
    for (const rel of ["rel=next", 'rel="next"', "REL=NEXT"]) {
      const stopped = grade("vessels.vessel_id", [
        page(1, `</v3/vessels?page=2>; ${rel}`),
        page(2, `</v3/vessels?page=3>; ${rel}`),
      ]);
      expect(stopped.passed, rel).toBe(false);
      expect(stopped.reason, rel).toMatch(/every page of the 2 read pointed to a next one/);
    }
    // Only rel="next" points onward: a page linking back to the first is the last.
    expect(grade("vessels.vessel_id", [page(1), page(2, "</v3/vessels?page=1>; rel=first")]).passed).toBe(
      true,
    );
  });

  it("a listing answered as a bare array of records is its own end", () => {
    const bare = { url: "/v3/vessels", body: [{ vessel_id: "V-1" }, { vessel_id: "V-2" }] };
    expect(grade("vessel_id", [bare])).toMatchObject({ passed: true, value: 2 });
  });

  it("a 200 with no body says nothing of a next page: the grade neither throws nor takes it for a pointer", () => {
    const bodiless = { url: "/v3/vessels?page=3", body: null };
    const walk = [page(1, "</v3/vessels?page=2>; rel=next"), page(2, "</v3/vessels?page=3>; rel=next")];
    expect(grade("vessels.vessel_id", [...walk, bodiless])).toMatchObject({ passed: true, value: 2 });
    expect(grade("vessels.vessel_id", walk).passed).toBe(false);
  });
});
