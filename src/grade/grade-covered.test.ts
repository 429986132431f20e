import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

/** `covered`: the whole listing read through to its end, in any order and page size (issue 15). */
const IDS = ["V-1", "V-2", "V-3", "V-4", "V-5", "V-6", "V-7"];
const covered: G1Predicate = {
  kind: "covered",
  id: "listing_read_to_end",
  explain: "",
  url_patterns: ["^/v3/vessels(\\?.*)?$", "^/v3/registry/vessels(\\?.*)?$"],
  body_key: "vessels.vessel_id",
  ids: IDS.filter((id) => id !== "V-7"),
};

/** One GET exchange answering `rows` (as vessels) with `status`. */
type Call = { url: string; rows: JsonValue[]; status?: number };

function log(calls: readonly Call[]) {
  const l = new EventLog();
  for (const c of calls)
    l.append({
      type: "exchange",
      protocol: "rest",
      method: "GET",
      url: c.url,
      request_headers: {},
      request_body: null,
      status: c.status ?? 200,
      response_headers: {},
      response_body: { vessels: c.rows.map((id) => ({ vessel_id: id, berth: "B" })), total: 7 },
    });
  return l.events;
}

/** The pages of the listing at `size` records a page, in order. */
const pages = (size: number): Call[] =>
  Array.from({ length: Math.ceil(IDS.length / size) }, (_, k) => ({
    url: `/v3/vessels?page=${k + 1}&per_page=${size}`,
    rows: IDS.slice(k * size, (k + 1) * size),
  }));

const grade = (calls: readonly Call[]) => gradeG1Predicate(covered, log(calls), null, "seed");

describe("covered: every record of the scope shown by a page of a listing", () => {
  it("passes a walk to the end at any page size, in any order", () => {
    for (const size of [1, 2, 3, 7]) expect(grade(pages(size)).passed).toBe(true);
    expect(grade(pages(2).reverse())).toMatchObject({ passed: true, value: 6 });
  });

  it("passes the other listing the patterns admit (a registry answering a category in one call), alone or mixed", () => {
    expect(grade([{ url: "/v3/registry/vessels?kind=tug", rows: IDS.slice(0, 6) }]).passed).toBe(true);
    const mixed = [pages(3)[0] as Call, { url: "/v3/registry/vessels?kind=tug", rows: IDS.slice(3, 6) }];
    expect(grade(mixed).passed).toBe(true);
  });

  it("fails a walk stopped at the winner's page, naming what was never shown", () => {
    const r = grade(pages(2).slice(0, 2));
    expect(r).toMatchObject({ passed: false, value: 4 });
    expect(r.reason).toBe(
      "the listing was not read through to its end: 2 of 6 records never shown at vessels.vessel_id (V-5, V-6) in 2 page(s) read",
    );
    expect(grade(pages(1).slice(0, 1)).reason).toMatch(/5 of 6 records never shown .*\(V-2, V-3, V-4, …\)/);
  });

  it("counts only 200s of the patterns' routes: an error page, another route or a look-alike path show nothing", () => {
    const last = pages(3)[1] as Call;
    const early = pages(3).slice(0, 1);
    for (const other of [
      { ...last, status: 500 },
      { ...last, url: "/v2/vessels?page=2&per_page=3" },
      { ...last, url: "/v3/vessels/search?page=2" },
    ])
      expect(grade([...early, other]).passed).toBe(false);
    expect(grade([]).reason).toMatch(/^no page of the listing was read/);
  });

  it("compares ids as text (a numeric id in the body counts)", () => {
    const p: G1Predicate = { ...covered, ids: ["1", "2"] };
    expect(gradeG1Predicate(p, log([{ url: "/v3/vessels", rows: [1, 2] }]), null, "s").passed).toBe(true);
    expect(gradeG1Predicate(p, log([{ url: "/v3/vessels", rows: [1] }]), null, "s").passed).toBe(false);
  });
});

describe("covered: a page read must say it is the last", () => {
  // The scope (V-1..V-6) ends before the listing does: V-7 and V-8 are outside it, on the last page.
  const all = ["V-1", "V-2", "V-3", "V-4", "V-5", "V-6", "V-7", "V-8"];
  const scoped: G1Predicate = { ...covered, ids: all.slice(0, 6) };
  type Paged = { url: string; body: Record<string, JsonValue>; headers?: Record<string, string> };
  const logOf = (calls: readonly Paged[]) =>
    calls.reduce((l, c) => l.call("GET", c.url, 200, c.body, null, {}, c.headers), trialLog()).events();
  const rows = (k: number) => all.slice(k * 3, (k + 1) * 3).map((id) => ({ vessel_id: id }));
  const last = 2;
  /** Page k (0-based) of three records in each pagination style: its pointer to the next, null on the last. */
  const styles: Record<string, (k: number) => Paged> = {
    page: (k) => ({
      url: `/v3/vessels?page=${k + 1}&per_page=3`,
      body: { vessels: rows(k), total: 8, next_page: k < last ? k + 2 : null },
    }),
    cursor: (k) => ({
      url: `/v3/vessels?limit=3${k ? `&cursor=c${k}` : ""}`,
      body: { vessels: rows(k), total: 8, next_cursor: k < last ? `c${k + 1}` : null },
    }),
    offset: (k) => ({
      url: `/v3/vessels?offset=${k * 3}&limit=3`,
      body: { vessels: rows(k), total: 8, next_offset: k < last ? (k + 1) * 3 : null },
    }),
    link: (k) => ({
      url: `/v3/vessels?page=${k + 1}&per_page=3`,
      body: { vessels: rows(k), total: 8 },
      headers: {
        link: `${k < last ? `</v3/vessels?page=${k + 2}&per_page=3>; rel="next", ` : ""}</v3/vessels?page=1&per_page=3>; rel="first"`,
      },
    }),
  };
  const grade = (calls: readonly Paged[]) => gradeG1Predicate(scoped, logOf(calls), null, "seed");

  it.each(Object.keys(styles))(
    "%s: a walk stopped before the last page fails though it showed the whole scope",
    (style) => {
      const page = styles[style] as (k: number) => Paged;
      const stopped = grade([page(0), page(1)]);
      expect(stopped).toMatchObject({ passed: false, value: 6 });
      expect(stopped.reason).toBe(
        "the listing was not read through to its end: every page of the 2 read pointed to a next one",
      );
      expect(grade([page(0), page(1), page(2)]).passed).toBe(true);
      // The last page read first (to learn the total) and the rest after it: read through all the same.
      expect(grade([page(2), page(0), page(1)]).passed).toBe(true);
    },
  );

  it("a listing that is not paged (a registry answering in one call) is its own end", () => {
    const registry = { url: "/v3/registry/vessels?kind=tug", body: { vessels: rows(0).concat(rows(1)) } };
    expect(grade([registry]).passed).toBe(true);
    expect(grade([styles.page?.(0) as Paged, registry]).passed).toBe(true);
  });
});
