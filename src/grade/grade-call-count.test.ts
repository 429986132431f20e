import { describe, expect, it } from "vitest";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate, gradeLabour } from "./grade-g1.js";

/** Call counts at their bounds, and the bound each failure states (issue 21: mutation testing). */
function creates(n: number) {
  const l = new EventLog();
  for (let i = 0; i < n; i++)
    l.append({
      type: "exchange",
      protocol: "rest",
      method: "POST",
      url: "/v2/runs",
      request_headers: {},
      request_body: null,
      status: 201,
      response_headers: {},
      response_body: {},
    });
  return l.events;
}

const count = (bounds: { min?: number; max?: number }): G1Predicate => ({
  kind: "call_count",
  id: "creates",
  explain: "",
  call: { method: "POST", url_pattern: "^/v2/runs$", status: 201 },
  ...bounds,
});

const grade = (p: G1Predicate, n: number) => gradeG1Predicate(p, creates(n), null, "seed");

describe("call_count at its bounds", () => {
  it("holds min and max inclusive, and fails one outside each", () => {
    const range = count({ min: 1, max: 3 });
    expect([0, 1, 2, 3, 4].map((n) => grade(range, n).passed)).toEqual([false, true, true, true, false]);
    expect(grade(range, 4)).toMatchObject({
      value: 4,
      reason: "4 POST calls to /^/v2/runs$/ answered 201; the ticket allows 1 to 3",
    });
    expect(grade(range, 0).reason).toBe(
      "0 POST calls to /^/v2/runs$/ answered 201; the ticket allows 1 to 3",
    );
  });

  it("min alone: at least; max alone: at most", () => {
    const atLeast = count({ min: 2 });
    expect([1, 2, 9].map((n) => grade(atLeast, n).passed)).toEqual([false, true, true]);
    expect(grade(atLeast, 1).reason).toMatch(/the ticket allows at least 2$/);
    const atMost = count({ max: 0 });
    expect([0, 1].map((n) => grade(atMost, n).passed)).toEqual([true, false]);
    expect(grade(atMost, 1).reason).toMatch(/the ticket allows at most 0$/);
    expect(grade(atMost, 0)).toMatchObject({ passed: true, value: 0 });
  });
});

describe("a call count or ordering whose target record is unknown", () => {
  const target = {
    $record: { resource: "runs", where: { owner: "A-1" }, role: "the run of A-1" },
    field: "run_id",
  };
  const unknown =
    "the target record is unknown: the run_id of the run of A-1: no such record at the end of the trial";

  it("fails, saying which record, however many calls there were", () => {
    const p: G1Predicate = {
      kind: "call_count",
      id: "creates",
      explain: "",
      call: { method: "POST", url_pattern: "^/v2/runs$", status: 201, target },
      max: 5,
    };
    expect(gradeG1Predicate(p, creates(1), null, "seed", { runs: [] })).toMatchObject({
      passed: false,
      reason: unknown,
    });
  });

  it("fails an ordering whose after or before call names it", () => {
    const plain = { method: "POST", url_pattern: "^/v2/runs$", status: 201 };
    const order = (before: object, after: object): G1Predicate =>
      ({ kind: "order", id: "o", explain: "", before, after }) as G1Predicate;
    const events = [...creates(2)];
    expect(
      gradeG1Predicate(order(plain, { ...plain, target }), events, null, "seed", { runs: [] }),
    ).toMatchObject({
      passed: false,
      reason: unknown,
    });
    expect(
      gradeG1Predicate(order({ ...plain, target }, plain), events, null, "seed", { runs: [] }),
    ).toMatchObject({
      passed: false,
      reason: unknown,
    });
    // Without a target the ordering is graded: a single create is not its own earlier call.
    expect(
      gradeG1Predicate(order({ url_pattern: "^/v2/runs$" }, plain), creates(1), null, "seed").passed,
    ).toBe(false);
  });
});

describe("a chain's segments that count the same call", () => {
  const deletes = (n: number) => {
    const l = new EventLog();
    for (let i = 0; i < n; i++)
      l.append({
        type: "exchange",
        protocol: "rest",
        method: "DELETE",
        url: `/v2/runs/R-${i}`,
        request_headers: {},
        request_body: null,
        status: 204,
        response_headers: {},
        response_body: null,
      });
    return l.events;
  };
  const call = { method: "DELETE", url_pattern: "^/v2/runs/[^/]+$", status: 204 };
  const seg = (segment: number, bounds: { min?: number; max?: number }, id = "one_delete"): G1Predicate => ({
    kind: "call_count",
    id,
    explain: "",
    segment,
    call,
    ...bounds,
  });
  const graded = (g1: G1Predicate[], n: number) =>
    gradeLabour({ answer: [], g1, constraints: [], checkpoints: [] }, deletes(n), null, "seed").g1.map(
      (r) => [r.segment, r.passed, r.reason ?? ""] as const,
    );

  it("share their most: another segment's own call is not an extra one, one more than all of them is", () => {
    const g1 = [seg(2, { max: 1 }), seg(5, { max: 1 })];
    expect(graded(g1, 2).map(([s, p]) => [s, p])).toEqual([
      [2, true],
      [5, true],
    ]);
    const three = graded(g1, 3);
    expect(three.map(([s, p]) => [s, p])).toEqual([
      [2, false],
      [5, false],
    ]);
    expect(three[0]?.[2]).toMatch(
      /3 DELETE calls .* the ticket allows at most 2 over the 2 segments that count them$/,
    );
  });

  it("add their least up in segment order: the later segment is not met by the earlier one's calls", () => {
    const g1 = [seg(5, { min: 3 }), seg(2, { min: 2 })];
    const two = graded(g1, 2);
    expect(two.map(([s, p]) => [s, p])).toEqual([
      [5, false],
      [2, true],
    ]);
    expect(two[0]?.[2]).toMatch(/the ticket allows at least 5 for segment 5 and the segments before it/);
    expect(graded(g1, 5).every(([, p]) => p)).toBe(true);
  });

  it("leave a count alone that one segment states, or that counts another call", () => {
    const other = { ...seg(5, { max: 1 }), call: { ...call, status: 404 } } as G1Predicate;
    expect(graded([seg(2, { max: 1 }), other], 2).map(([s, p]) => [s, p])).toEqual([
      [2, false],
      [5, true],
    ]);
  });
});
