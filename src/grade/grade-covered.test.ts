import { describe, expect, it } from "vitest";
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
