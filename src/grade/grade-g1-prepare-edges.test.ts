import { describe, expect, it } from "vitest";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeLabour, labourFailsVerdict } from "./grade-g1.js";

/**
 * Issue 21 (mutation testing, grade-g1-prepare): what a grader prepared once decides — the
 * verdict-only shortcut against the full grade, a chain's shared call counts, a call match's words.
 */

/** One REST exchange per call, each answering `body`. */
function log(calls: ReadonlyArray<{ method: string; url: string; status: number; body?: unknown }>) {
  const l = new EventLog();
  for (const c of calls)
    l.append({
      type: "exchange",
      protocol: "rest",
      method: c.method,
      url: c.url,
      request_headers: {},
      request_body: null,
      status: c.status,
      response_headers: {},
      response_body: (c.body ?? null) as never,
    });
  return l.events;
}

const grader = (g1: G1Predicate[], constraints: GraderSpec["constraints"] = []): GraderSpec => ({
  answer: [],
  g1,
  constraints,
  checkpoints: [],
});

const call = (segment: number, url_pattern: string): G1Predicate => ({
  kind: "call",
  id: `read_${segment}`,
  explain: "",
  segment,
  method: "GET",
  url_pattern,
  body_has_keys: [],
});

describe("labourFailsVerdict decides what gradeLabour's results would of the verdict", () => {
  const events = log([
    { method: "GET", url: "/v1/plans/P-1", status: 200, body: { plan_id: "P-1" } },
    { method: "GET", url: "/v1/admin", status: 200 },
  ]);
  const met = call(1, "^/v1/plans/[^/]+$");
  const unmet = call(2, "^/v1/quotes$");
  const noAdmin = { kind: "forbid" as const, id: "no_admin", explain: "", url_pattern: "^/v1/admin$" };
  const noDelete = { ...noAdmin, id: "no_delete", method: "DELETE" };
  const all = () => true;
  const verdict = (g: GraderSpec, graded: (s: number | undefined) => boolean = all) =>
    labourFailsVerdict(g, events, null, "seed", {}, graded);

  it("holds when every graded predicate passes and no constraint is broken", () => {
    const g = grader([met], [noDelete]);
    expect(gradeLabour(g, events, null, "seed").constraints[0]?.violated).toBe(false);
    expect(verdict(g)).toBe(false);
  });

  it("fails on a broken constraint though every predicate passes", () => {
    expect(verdict(grader([met], [noDelete, noAdmin]))).toBe(true);
  });

  it("fails on a graded predicate's failure, and not on one whose segment is left ungraded", () => {
    const g = grader([met, unmet]);
    expect(verdict(g)).toBe(true);
    expect(verdict(g, (s) => s !== 2)).toBe(false);
    // The segment asked about is the predicate's own.
    const asked: Array<number | undefined> = [];
    verdict(g, (s) => {
      asked.push(s);
      return true;
    });
    expect(asked).toEqual([1, 2]);
  });

  it("does not fail on a data flow left not evaluated (no card to find its field in)", () => {
    const flow: G1Predicate = {
      kind: "data_flow",
      id: "plan_id",
      explain: "",
      from_response_url_pattern: "^/v1/plans/[^/]+$",
      from_status: 200,
      from_body_key: "plan_id",
      answer_field: "plan_id",
      must_be_stored: false,
      used_in_request_url_pattern: null,
    };
    expect(gradeLabour(grader([flow]), events, null, "seed").g1[0]).toMatchObject({
      passed: false,
      not_evaluated: true,
    });
    expect(verdict(grader([flow]))).toBe(false);
    // The same flow whose labour fails (no such response) fails the verdict.
    expect(verdict(grader([{ ...flow, from_status: 201 }]))).toBe(true);
  });
});

describe("a chain's call counts grouped by call", () => {
  const deletes = (n: number) =>
    log(Array.from({ length: n }, (_, i) => ({ method: "DELETE", url: `/v2/runs/R-${i}`, status: 204 })));
  const del = { method: "DELETE", url_pattern: "^/v2/runs/[^/]+$", status: 204 };
  const count = (
    segment: number | undefined,
    bounds: { min?: number; max?: number },
    id: string,
  ): G1Predicate => ({
    kind: "call_count",
    id,
    explain: "",
    ...(segment === undefined ? {} : { segment }),
    call: del,
    ...bounds,
  });
  const graded = (g1: G1Predicate[], n: number) =>
    gradeLabour(grader(g1), deletes(n), null, "seed").g1.map((r) => [r.id, r.passed, r.reason ?? ""]);

  it("leave a count without a segment out of the segments' shares", () => {
    const g1 = [count(2, { max: 1 }, "seg2"), count(undefined, { max: 1 }, "whole")];
    // Grouped, the whole-log count would allow 2; alone it allows 1.
    expect(graded(g1, 2)).toEqual([
      ["seg2", false, "2 DELETE calls to /^/v2/runs/[^/]+$/ answered 204; the ticket allows at most 1"],
      ["whole", false, "2 DELETE calls to /^/v2/runs/[^/]+$/ answered 204; the ticket allows at most 1"],
    ]);
  });

  it("leave one segment's counts alone, even two of them: no share is named in the reason", () => {
    const two = [count(3, { min: 2 }, "a"), count(3, { min: 2 }, "b")];
    expect(graded(two, 2).map(([, p]) => p)).toEqual([true, true]);
    expect(graded([count(3, { max: 0 }, "a")], 1)).toEqual([
      ["a", false, "1 DELETE calls to /^/v2/runs/[^/]+$/ answered 204; the ticket allows at most 0"],
    ]);
    expect(graded([count(3, { min: 2 }, "a")], 1)).toEqual([
      ["a", false, "1 DELETE calls to /^/v2/runs/[^/]+$/ answered 204; the ticket allows at least 2"],
    ]);
  });

  it("sum only the maxima stated: a segment stating a least alone adds nothing to the most", () => {
    const g1 = [count(2, { min: 1 }, "least"), count(5, { max: 1 }, "most")];
    expect(graded(g1, 1)).toEqual([
      ["least", true, ""],
      ["most", true, ""],
    ]);
    expect(graded(g1, 2)[1]).toEqual([
      "most",
      false,
      "2 DELETE calls to /^/v2/runs/[^/]+$/ answered 204; the ticket allows at most 1 over the 2 segments that count them",
    ]);
  });
});

describe("a call match's words", () => {
  it("name the headers it requires", () => {
    const p: G1Predicate = {
      kind: "call_count",
      id: "keyed",
      explain: "",
      call: {
        method: "POST",
        url_pattern: "^/v2/runs$",
        headers: { "Idempotency-Key": "K-1", "X-Trace": "T" },
      },
      min: 1,
    };
    expect(gradeLabour(grader([p]), [], null, "seed").g1[0]?.reason).toBe(
      "0 POST calls to /^/v2/runs$/ with header Idempotency-Key, X-Trace as required; the ticket allows at least 1",
    );
  });
});
