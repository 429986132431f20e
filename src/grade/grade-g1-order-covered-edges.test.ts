import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate, gradeLabour } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1): a listing's ids shown only as themselves, the words of a
 * covered failure, a shared count's failure on its most, and orderings of the same record.
 */

function log(calls: ReadonlyArray<{ method?: string; url: string; status?: number; body?: JsonValue }>) {
  const l = new EventLog();
  for (const c of calls)
    l.append({
      type: "exchange",
      protocol: "rest",
      method: c.method ?? "GET",
      url: c.url,
      request_headers: {},
      request_body: null,
      status: c.status ?? 200,
      response_headers: {},
      response_body: c.body ?? {},
    });
  return l.events;
}

const grader = (g1: G1Predicate[]): GraderSpec => ({ answer: [], g1, constraints: [], checkpoints: [] });

describe("covered: what counts as an id shown", () => {
  const covered: G1Predicate = {
    kind: "covered",
    id: "read_to_end",
    explain: "",
    url_patterns: ["^/v3/vessels(\\?.*)?$", "^/v3/registry$"],
    body_key: "vessels.vessel_id",
    ids: ["V-1", "V-2"],
  };
  const page = (...ids: JsonValue[]) => ({
    url: "/v3/vessels",
    body: { vessels: ids.map((v) => ({ vessel_id: v })) },
  });
  const grade = (...bodies: ReturnType<typeof page>[]) =>
    gradeG1Predicate(covered, log(bodies), null, "seed");

  it("only a scalar at the key: an id inside a list or an object there is not a record shown", () => {
    expect(grade(page("V-1", "V-2")).passed).toBe(true);
    expect(grade(page("V-1", ["V-2"]))).toMatchObject({ passed: false, value: 1 });
    expect(grade(page(["V-1"], { id: "V-2" })).value).toBe(0);
  });

  it("names at most three missing ids, and marks more with an ellipsis", () => {
    const five: G1Predicate = { ...covered, ids: ["V-1", "V-2", "V-3", "V-4", "V-5"] };
    const reason = (ids: string[]) =>
      gradeG1Predicate({ ...five, ids }, log([page("V-1")]), null, "seed").reason;
    expect(reason(["V-1", "V-2", "V-3", "V-4"])).toBe(
      "the listing was not read through to its end: 3 of 4 records never shown at vessels.vessel_id (V-2, V-3, V-4) in 1 page(s) read",
    );
    expect(reason(["V-1", "V-2", "V-3", "V-4", "V-5"])).toBe(
      "the listing was not read through to its end: 4 of 5 records never shown at vessels.vessel_id (V-2, V-3, V-4, …) in 1 page(s) read",
    );
  });

  it("without a page read, names every listing pattern it would take", () => {
    expect(gradeG1Predicate(covered, [], null, "seed").reason).toBe(
      "no page of the listing was read (no 200 from /^/v3/vessels(\\?.*)?$/ or /^/v3/registry$/)",
    );
  });
});

describe("a chain's shared call count failing on its most", () => {
  const deletes = (n: number) =>
    log(Array.from({ length: n }, (_, i) => ({ method: "DELETE", url: `/v2/runs/R-${i}`, status: 204 })));
  const count = (segment: number, bounds: { min?: number; max?: number }): G1Predicate => ({
    kind: "call_count",
    id: `deletes_${segment}`,
    explain: "",
    segment,
    call: { method: "DELETE", url_pattern: "^/v2/runs/[^/]+$", status: 204 },
    ...bounds,
  });

  it("says the calls are too many over every segment, though a least is stated and met exactly", () => {
    // Segment 5's least counts segment 2's too (2 + 1 = 3); its most is the only one stated (1).
    const g1 = [count(2, { min: 2 }), count(5, { min: 1, max: 1 })];
    const r = gradeLabour(grader(g1), deletes(3), null, "seed").g1[1];
    expect(r).toMatchObject({ passed: false, value: 3 });
    expect(r?.reason).toMatch(
      /^3 DELETE calls .*; the ticket allows .* over the 2 segments that count them$/,
    );
  });
});

describe("orderings", () => {
  const poll = (job: string) => ({ url: `/v2/jobs/${job}` });
  const confirm = (job: string) => ({ method: "POST", url: `/v2/jobs/${job}/confirm` });
  const order = (segment?: number, sameRecord = false): G1Predicate => ({
    kind: "order",
    id: `polled_first_${segment ?? "solo"}`,
    explain: "",
    ...(segment === undefined ? {} : { segment }),
    before: { method: "GET", url_pattern: "^/v2/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/v2/jobs/[^/]+/confirm$" },
    ...(sameRecord ? { same_record: true as const } : {}),
  });

  it("a plain ordering takes any earlier call, and its failure does not speak of a record", () => {
    expect(gradeG1Predicate(order(), log([poll("J-2"), confirm("J-1")]), null, "seed").passed).toBe(true);
    expect(gradeG1Predicate(order(), log([confirm("J-1"), poll("J-1")]), null, "seed").reason).toBe(
      "the first of the POST calls to /^/v2/jobs/[^/]+/confirm$/ came before any GET calls to /^/v2/jobs/[^/]+$/",
    );
  });

  it("same record: the first confirm needs a poll of its own job", () => {
    const same = order(undefined, true);
    expect(gradeG1Predicate(same, log([poll("J-1"), confirm("J-1")]), null, "seed").passed).toBe(true);
    expect(gradeG1Predicate(same, log([poll("J-2"), confirm("J-1")]), null, "seed").reason).toBe(
      "the first of the POST calls to /^/v2/jobs/[^/]+/confirm$/ came before any GET calls to /^/v2/jobs/[^/]+$/ of the same record",
    );
  });

  it("same record over a chain's segments: each confirm counts only after a poll of its own job", () => {
    const g1 = [order(1, true), order(2, true)];
    const passed = (calls: Parameters<typeof log>[0]) =>
      gradeLabour(grader(g1), log(calls), null, "seed").g1.map((r) => r.passed);
    expect(passed([poll("J-1"), confirm("J-1"), poll("J-2"), confirm("J-2")])).toEqual([true, true]);
    expect(passed([poll("J-1"), confirm("J-1"), poll("J-2"), confirm("J-3")])).toEqual([true, false]);
    // Without same_record the second pair counts whichever job was polled.
    const plain = [order(1), order(2)];
    expect(
      gradeLabour(
        grader(plain),
        log([poll("J-1"), confirm("J-1"), poll("J-2"), confirm("J-3")]),
        null,
        "seed",
      ).g1.map((r) => r.passed),
    ).toEqual([true, true]);
  });
});
