import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { ForbidConstraint, G1Predicate, GraderSpec } from "../bank/task-schema.js";
import type { TrialEvent } from "../world/event-log.js";
import {
  gradeConstraint,
  gradeG1Predicate,
  gradeLabour,
  literalStart,
  urlMatchesPattern,
} from "./grade-g1.js";

/**
 * Issue 18 (perf-g1, grade-g1-index): the log index finds a pattern's calls among the log's URLs
 * sorted, from the text every URL it matches starts with (`literalStart`), instead of testing each
 * pattern on every URL. These tests hold the index to the plain definition (`urlMatchesPattern` on
 * each URL, in log order), and the literal start to what the pattern can match.
 */

/** [pattern, its literal start]. */
const starts: Array<[string, string]> = [
  ["^/v3/jobs/[^/]+$", "/v3/jobs/"],
  ["^\\/v3\\/x\\.y$", "/v3/x.y"],
  // A quantified character may be absent or repeated: the start stops before it.
  ["^/v3/jobs?", "/v3/job"],
  ["^/ab+", "/a"],
  ["^/ab*", "/a"],
  ["^/ab{2}", "/a"],
  // Escaped letters and digits are classes, assertions or references, not the character.
  ["^/a\\d", "/a"],
  ["^/a\\b", "/a"],
  ["^/a\\1", "/a"],
  ["^/a\\S", "/a"],
  // Every other special character ends it.
  ["^/a.b", "/a"],
  ["^/a[bc]", "/a"],
  ["^/a(b)", "/a"],
  ["^/a$", "/a"],
  ["^/a^", "/a"],
  ["^/a}b", "/a"],
  ["^/a]b", "/a"],
  ["^/v3/\\?a=1", "/v3/?a=1"],
  // No leading `^`, a flag, or an alternative at the top level: no start.
  ["/v3/", ""],
  ["^/a|/b", ""],
  ["^(?:/a|/b)|/c", ""],
  // Bars inside a class or escaped are no alternatives; a class may hold brackets and parentheses.
  ["^/v3/[|]", "/v3/"],
  ["^/v3/\\|x", "/v3/|x"],
  ["^/v3/[)(]x|y", ""],
  ["^/v3/[\\]|]x", "/v3/"],
  // A leading group of alternatives: the start they share.
  ["^(?:/v3/a/1|/v3/a/2)$", "/v3/a/"],
  ["^(?:/v3/a|/v2/b)", "/v"],
  ["^(?:/v3/a|/v3/a/b)(\\?.*)?$", "/v3/a"],
  ["^(?:/x(?:1|2)|/x3)$", "/x"],
  ["^(?:/x[|)]1|/x2)$", "/x"],
  ["^(?:/a/b\\)|/a/c)$", "/a/"],
  ["^(?:/v3/a)", "/v3/a"],
  ["^(?:/v3/a|/v3/a)", "/v3/a"],
  ["^(?:/v3/a|b)", ""],
  // An optional or repeated group may match nothing.
  ["^(?:/a/b|/a/c)?x", ""],
  ["^(?:/v3/a)+", ""],
  ["^(?:/v3/a)*", ""],
  ["^(?:/v3/a){2}", ""],
];

describe("literalStart: the text every URL a pattern matches starts with", () => {
  it.each(starts)("%s starts with %j", (source, start) => {
    expect(literalStart(new RegExp(source))).toBe(start);
  });

  it("a pattern with a flag has none (a case-blind pattern matches another case)", () => {
    expect(literalStart(/^\/v3\/jobs/i)).toBe("");
    expect(literalStart(/^\/v3\/jobs/)).toBe("/v3/jobs");
  });

  it("every URL a pattern matches starts with it", () => {
    for (const [source, start] of starts) {
      const re = new RegExp(source);
      for (const url of URLS) if (urlMatchesPattern(re, url)) expect(url.startsWith(start)).toBe(true);
    }
  });
});

/** URLs around every start above: below, at and past each, with and without a query. */
const URLS = [
  "/a",
  "/a/b",
  "/a/b)",
  "/a/c",
  "/ab",
  "/abb",
  "/a1",
  "/b",
  "/c",
  "/v2/b",
  "/v3",
  "/v3/",
  "/v3/?a=1",
  "/v3/a",
  "/v3/a?x=1",
  "/v3/a/1",
  "/v3/a/2",
  "/v3/a/2?fields=all",
  "/v3/a/b",
  "/v3/a/3",
  "/v3/job",
  "/v3/jobs",
  "/v3/jobs/",
  "/v3/jobs/J-1",
  "/v3/jobs/J-1?",
  "/v3/jobs/J-1/confirm",
  "/v3/jobs/J-2",
  "/v3/jobz/J-1",
  "/v3/x.y",
  "/v3/x|y",
  "/v3/|x",
  "/x1",
  "/x2",
  "/x3",
  "/x|1",
  "/y",
  "/z",
];

const ROUTES = [
  ...starts.map(([source]) => source),
  "^/v3/jobs/[^/]+$",
  "^/v3/jobs/[^/]+/confirm$",
  "^/v3/a(\\?.*)?$",
  "^/v3/a/[^/]+$",
  "^/v3/a/2$",
  "^/zz",
  "^/",
  "jobs",
  "1$",
];

/** The log's URLs in an order unlike their sorted one (each twice, apart). */
function shuffled(): string[] {
  const out: string[] = [];
  for (let k = 0; k < URLS.length; k++) out.push(URLS[(k * 7) % URLS.length] as string);
  return [...out, ...[...out].reverse()];
}

describe("the log index finds a pattern's calls as testing every URL does", () => {
  const urls = shuffled();
  let log = trialLog();
  urls.forEach((url, k) => {
    log = log.call(k % 2 === 0 ? "GET" : "POST", url, 200, { k });
  });
  const events = log.events();
  const grader = (pattern: string): GraderSpec => ({
    answer: [],
    g1: [
      { kind: "call_count", id: "n", explain: "", call: { url_pattern: pattern }, min: 0 },
      {
        kind: "call_count",
        id: "posts",
        explain: "",
        call: { url_pattern: pattern, method: "POST" },
        min: 0,
      },
    ],
    constraints: [{ kind: "forbid", id: "f", explain: "", url_pattern: pattern }],
    checkpoints: [{ id: "c", explain: "", url_pattern: pattern, status: 200 }],
  });

  it.each(ROUTES)("%s: its calls counted, the first reported", (pattern) => {
    const re = new RegExp(pattern);
    const matched = urls.flatMap((url, k) => (urlMatchesPattern(re, url) ? [k] : []));
    const { g1, constraints, checkpoints } = gradeLabour(grader(pattern), events, null, "seed");
    expect(g1.map((r) => r.value)).toEqual([matched.length, matched.filter((k) => k % 2 === 1).length]);
    const first = matched[0];
    expect(constraints[0]?.detail).toBe(
      first === undefined ? "" : `${first % 2 ? "POST" : "GET"} ${urls[first]}`,
    );
    expect(checkpoints[0]?.hit).toBe(first !== undefined);
  });

  it("a log without calls matches nothing", () => {
    const forbid: ForbidConstraint = { kind: "forbid", id: "f", explain: "", url_pattern: "^/v3/" };
    expect(gradeConstraint(forbid, trialLog().store("x", 1).events()).violated).toBe(false);
  });

  it("calls found by their sorted URLs are read in log order (the first of an ordering, a forbid's first)", () => {
    const events = trialLog()
      .call("POST", "/v3/jobs/J-9/confirm", 200)
      .read("/v3/jobs/J-9", {})
      .read("/v3/jobs/J-1", {})
      .call("POST", "/v3/jobs/J-1/confirm", 200)
      .events();
    const forbid: ForbidConstraint = { kind: "forbid", id: "f", explain: "", url_pattern: "^/v3/jobs/" };
    expect(gradeConstraint(forbid, events).detail).toBe("POST /v3/jobs/J-9/confirm");
    // The first confirm (J-9's) came before any read: in URL order J-1's would be first, and pass.
    const order: G1Predicate = {
      kind: "order",
      id: "o",
      explain: "",
      before: { url_pattern: "^/v3/jobs/[^/]+$", method: "GET" },
      after: { url_pattern: "^/v3/jobs/[^/]+/confirm$", method: "POST" },
    };
    expect(gradeG1Predicate(order, events, null, "seed").passed).toBe(false);
  });
});

/** A listing page answering `rows`, its body counting its reads in `reads`. */
function page(url: string, rows: string[], next: boolean, reads: string[]) {
  const body: JsonValue = { vessels: rows.map((id) => ({ vessel_id: id })), next_cursor: next ? "c" : null };
  return {
    type: "exchange" as const,
    seq: 0,
    protocol: "rest" as const,
    method: "GET",
    url,
    request_headers: {},
    request_body: null,
    status: 200,
    response_headers: {},
    get response_body() {
      reads.push(url);
      return body;
    },
  };
}

function numbered(events: ReturnType<typeof page>[]): TrialEvent[] {
  return events.map((e, seq) => Object.assign(e, { seq }) as unknown as TrialEvent);
}

describe("covered reads no page after the listing was read through", () => {
  const covered: G1Predicate = {
    kind: "covered",
    id: "c",
    explain: "",
    url_patterns: ["^/v3/vessels(\\?.*)?$", "^/v3/vessels\\?page="],
    body_key: "vessels.vessel_id",
    ids: ["V-1", "V-2", "V-3"],
  };

  it("a second walk after a complete one is never parsed", () => {
    const reads: string[] = [];
    const events = numbered([
      page("/v3/vessels?page=1", ["V-1", "V-2"], true, reads),
      page("/v3/vessels?page=2", ["V-3"], false, reads),
      page("/v3/vessels?page=1&again", ["V-1", "V-2"], true, reads),
      page("/v3/vessels?page=2&again", ["V-3"], false, reads),
    ]);
    expect(gradeG1Predicate(covered, events, null, "seed")).toMatchObject({ passed: true, value: 3 });
    expect([...new Set(reads)]).toEqual(["/v3/vessels?page=1", "/v3/vessels?page=2"]);
  });

  it("the last page read before the last id was shown: read on to it, then stop", () => {
    const reads: string[] = [];
    const events = numbered([
      page("/v3/vessels?page=2", ["V-3"], false, reads),
      page("/v3/vessels?page=1", ["V-1"], true, reads),
      page("/v3/vessels?page=1b", ["V-2"], true, reads),
      page("/v3/vessels?page=9", ["V-4"], true, reads),
    ]);
    expect(gradeG1Predicate(covered, events, null, "seed")).toMatchObject({ passed: true, value: 3 });
    expect([...new Set(reads)]).toEqual(["/v3/vessels?page=2", "/v3/vessels?page=1", "/v3/vessels?page=1b"]);
  });

  it("every id shown but no end read: every page is read and counted once, whichever patterns match it", () => {
    const reads: string[] = [];
    const events = numbered([
      page("/v3/vessels", ["V-1"], true, reads),
      page("/v3/vessels?page=2", ["V-2"], true, reads),
      page("/v3/vessels?page=3", ["V-3"], true, reads),
    ]);
    expect(gradeG1Predicate(covered, events, null, "seed")).toMatchObject({
      passed: false,
      value: 3,
      reason: "the listing was not read through to its end: every page of the 3 read pointed to a next one",
    });
  });

  it("pages of two patterns interleaved in the log are read in log order", () => {
    const reads: string[] = [];
    const events = numbered([
      page("/v3/vessels?page=1", ["V-1"], true, reads),
      page("/v3/registry/vessels", ["V-2"], true, reads),
      page("/v3/vessels?page=3", ["V-3"], false, reads),
      page("/v3/vessels?page=4", ["V-4"], false, reads),
    ]);
    const two = { ...covered, url_patterns: ["^/v3/registry/vessels$", "^/v3/vessels\\?page="] };
    expect(gradeG1Predicate(two, events, null, "seed")).toMatchObject({ passed: true, value: 3 });
    expect([...new Set(reads)]).toEqual(["/v3/vessels?page=1", "/v3/registry/vessels", "/v3/vessels?page=3"]);
  });
});

describe("a data flow's sources, its own route's and its others', in log order", () => {
  const flow = (alsoFrom: boolean): Extract<G1Predicate, { kind: "data_flow" }> => ({
    kind: "data_flow",
    id: "run",
    explain: "",
    from_response_url_pattern: "^/v2/runs$",
    from_status: 201,
    from_body_key: "run_id",
    must_be_stored: false,
    used_in_request_url_pattern: null,
    ...(alsoFrom
      ? { also_from: [{ url_pattern: "^/v2/fleets/[^/]+/runs$", status: 201, body_key: "runs.run_id" }] }
      : {}),
  });

  it("an other source's earlier response offers the first value", () => {
    const events = trialLog()
      .call("POST", "/v2/fleets/F-1/runs", 201, { runs: [{ run_id: "R-0" }] })
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .events();
    expect(gradeG1Predicate(flow(true), events, null, "seed").value).toBe("R-0");
    expect(gradeG1Predicate(flow(false), events, null, "seed").value).toBe("R-1");
  });

  it("the own route's earlier response offers the first value; a source answered otherwise offers none", () => {
    const events = trialLog()
      .call("POST", "/v2/fleets/F-1/runs", 200, { runs: [{ run_id: "R-9" }] })
      .call("POST", "/v2/runs", 200, { run_id: "R-8" })
      .call("POST", "/v2/runs", 201, { run_id: "R-1" })
      .call("POST", "/v2/fleets/F-1/runs", 201, { runs: [{ run_id: "R-2" }] })
      .events();
    expect(gradeG1Predicate(flow(true), events, null, "seed").value).toBe("R-1");
  });

  it("a response to another source offers only that source's records, not a value at the flow's own key", () => {
    const events = trialLog()
      .call("POST", "/v2/fleets/F-1/runs", 201, { run_id: "X", runs: [{ run_id: "R-0" }] })
      .events();
    expect(gradeG1Predicate(flow(true), events, null, "seed").value).toBe("R-0");
  });

  it("a response to the flow's own route offers no other source's records", () => {
    const events = trialLog()
      .call("POST", "/v2/runs", 201, { runs: [{ run_id: "R-0" }] })
      .events();
    const both: G1Predicate = {
      ...flow(false),
      also_from: [{ url_pattern: "^/v2/fleets/[^/]+/runs$", status: 201, body_key: "runs.run_id" }],
    };
    expect(gradeG1Predicate(both, events, null, "seed")).toMatchObject({
      passed: false,
      reason: "matching responses carry no value at run_id",
    });
  });

  it("one route as own and other source, each with its status: each offers only under its own", () => {
    const sameRoute: G1Predicate = {
      ...flow(false),
      also_from: [{ url_pattern: "^/v2/runs$", status: 200, body_key: "runs.run_id" }],
    };
    const answered = (status: number) =>
      trialLog()
        .call("POST", "/v2/runs", status, { run_id: "X", runs: [{ run_id: "R-0" }] })
        .events();
    expect(gradeG1Predicate(sameRoute, answered(200), null, "seed").value).toBe("R-0");
    expect(gradeG1Predicate(sameRoute, answered(201), null, "seed").value).toBe("X");
    const noKey = trialLog()
      .call("POST", "/v2/runs", 201, { runs: [{ run_id: "R-0" }] })
      .events();
    expect(gradeG1Predicate(sameRoute, noKey, null, "seed")).toMatchObject({
      passed: false,
      reason: "matching responses carry no value at run_id",
    });
  });

  it("no source answered with the status: no response, whatever else was called", () => {
    const events = trialLog().call("POST", "/v2/runs", 200, { run_id: "R-8" }).read("/v2/other", {}).events();
    expect(gradeG1Predicate(flow(true), events, null, "seed")).toMatchObject({
      passed: false,
      reason: "no response from /^/v2/runs$/ with status 201",
    });
  });
});
