import { describe, expect, it } from "vitest";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeLabour } from "./grade-g1.js";

/**
 * A chain whose segments repeat one ordering (poll, then confirm) must show it once per segment:
 * segment k's predicate needs k confirmations each preceded by its own poll since the confirmation
 * before it (issue 21: mutation testing of the ranked ordering).
 */
function log(calls: Array<[method: string, url: string, wait?: string]>) {
  const l = new EventLog();
  for (const [method, url, wait] of calls)
    l.append({
      type: "exchange",
      protocol: "rest",
      method,
      url,
      request_headers: wait === undefined ? {} : { "x-apiflow-wait": wait },
      request_body: null,
      status: 200,
      response_headers: {},
      response_body: {},
    });
  return l.events;
}

const POLL: [string, string] = ["GET", "/jobs/J1"];
const CONFIRM: [string, string] = ["POST", "/jobs/J1/confirm"];
const waited = (call: [string, string], seconds: string): [string, string, string] => [...call, seconds];

function ordering(segment: number | undefined, extra: Partial<Extract<G1Predicate, { kind: "order" }>> = {}) {
  return {
    kind: "order" as const,
    id: `polled_first_${segment ?? "solo"}`,
    explain: "",
    ...(segment === undefined ? {} : { segment }),
    before: { method: "GET", url_pattern: "^/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$" },
    ...extra,
  } satisfies G1Predicate;
}

function grader(g1: G1Predicate[]): GraderSpec {
  return { g1, answer: [], constraints: [], checkpoints: [] };
}

const verdicts = (g1: G1Predicate[], events: ReturnType<typeof log>) =>
  gradeLabour(grader(g1), events, null, "seed").g1.map((r) => [r.id, r.passed, r.value ?? null]);

describe("ranked ordering: one ordering repeated over a chain's segments", () => {
  const three = [ordering(1), ordering(2), ordering(3)];

  it("segment k needs k polled confirmations: two pairs hold segments 1 and 2, not 3", () => {
    const r = gradeLabour(grader(three), log([POLL, CONFIRM, POLL, CONFIRM]), null, "seed").g1;
    expect(r.map((x) => x.passed)).toEqual([true, true, false]);
    expect(r[2]).toMatchObject({
      value: 2,
      reason:
        "2 of the POST calls to /^/jobs/[^/]+/confirm$/ came after their own GET calls to /^/jobs/[^/]+$/; segment 3 needs one more, after the earlier segments' own",
    });
    expect(verdicts(three, log([POLL, CONFIRM, POLL, CONFIRM, POLL, CONFIRM])).map((v) => v[1])).toEqual([
      true,
      true,
      true,
    ]);
  });

  it("a poll counts for one confirmation only: a second confirmation without a new poll does not hold segment 2", () => {
    expect(verdicts(three.slice(0, 2), log([POLL, CONFIRM, CONFIRM]))).toEqual([
      ["polled_first_1", true, null],
      ["polled_first_2", false, 1],
    ]);
    // Two polls before one confirmation are still one polled confirmation.
    expect(verdicts(three.slice(0, 2), log([POLL, POLL, CONFIRM, CONFIRM]))).toEqual([
      ["polled_first_1", true, null],
      ["polled_first_2", false, 1],
    ]);
    // A confirmation before any poll fails segment 1 (whose ordering reads the first confirmation),
    // but is not counted against segment 2, which counts the polled confirmations after it.
    expect(
      verdicts(three.slice(0, 2), log([CONFIRM, POLL, CONFIRM, POLL, CONFIRM])).map((v) => v[1]),
    ).toEqual([false, true]);
  });

  it("ranks follow the segments, not the grader's order of predicates", () => {
    const r = verdicts([ordering(2), ordering(1)], log([POLL, CONFIRM]));
    expect(r).toEqual([
      ["polled_first_2", false, 1],
      ["polled_first_1", true, null],
    ]);
  });

  it("orderings on other evidence, or outside segments, are not ranked together", () => {
    const other = ordering(2, {
      after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$", status: 200 },
    });
    expect(verdicts([ordering(1), other], log([POLL, CONFIRM])).map((v) => v[1])).toEqual([true, true]);
    expect(
      verdicts([ordering(undefined), { ...ordering(undefined), id: "again" }], log([POLL, CONFIRM])).map(
        (v) => v[1],
      ),
    ).toEqual([true, true]);
  });

  it("with a wait, each confirmation counts only when it came that long after the last poll before it", () => {
    const slow = [ordering(1, { min_wait_seconds: 5 }), ordering(2, { min_wait_seconds: 5 })];
    // The second confirmation came 1 s after its poll.
    const r = gradeLabour(grader(slow), log([POLL, waited(CONFIRM, "5"), POLL, CONFIRM]), null, "seed").g1;
    expect(r.map((x) => x.passed)).toEqual([true, false]);
    expect(r[1]).toMatchObject({
      value: 1,
      reason: expect.stringMatching(
        /came after their own GET calls .* \(5 s earlier\); segment 2 needs one more/,
      ),
    });
    expect(
      verdicts(slow, log([POLL, waited(CONFIRM, "5"), POLL, waited(CONFIRM, "4")])).map((v) => v[1]),
    ).toEqual([true, true]);
    // Measured from the last poll before it, not an earlier one: 7 s after the first, 1 s after the last.
    expect(
      verdicts(slow, log([POLL, waited(CONFIRM, "5"), POLL, waited(POLL, "5"), CONFIRM])).map((v) => v[1]),
    ).toEqual([true, false]);
  });

  it("without a wait the reason says none", () => {
    const r = gradeLabour(grader(three.slice(0, 2)), log([POLL, CONFIRM]), null, "seed").g1;
    expect(r[1]?.reason).toMatch(/came after their own GET calls to \/\^\/jobs\/\[\^\/\]\+\$\/; segment 2/);
  });
});

describe("orderings whose before and after match the same calls", () => {
  // Any create attempt is a "before"; a created run (201) an "after": a 201 matches both.
  const attempts = { method: "POST", url_pattern: "^/v2/runs$" };
  const created = { method: "POST", url_pattern: "^/v2/runs$", status: 201 };
  const overlapping = (segment: number | undefined) =>
    ordering(segment, { before: attempts, after: created });

  function runs(statuses: number[]) {
    const l = new EventLog();
    for (const status of statuses)
      l.append({
        type: "exchange",
        protocol: "rest",
        method: "POST",
        url: "/v2/runs",
        request_headers: {},
        request_body: null,
        status,
        response_headers: {},
        response_body: {},
      });
    return l.events;
  }

  it("a call is never its own earlier call: one 201 alone fails, an attempt then a 201 holds", () => {
    expect(verdicts([overlapping(undefined)], runs([201])).map((v) => v[1])).toEqual([false]);
    expect(verdicts([overlapping(undefined)], runs([429, 201])).map((v) => v[1])).toEqual([true]);
  });

  it("ranked: an after call is neither its own before call nor the next one's", () => {
    const chain = [overlapping(1), overlapping(2)];
    // 429, 201, 201: the second 201 has no attempt since the first 201 (which is not one for it).
    expect(verdicts(chain, runs([429, 201, 201])).map((v) => v[1])).toEqual([true, false]);
    expect(verdicts(chain, runs([201, 201])).map((v) => v[1])).toEqual([false, false]);
    expect(verdicts(chain, runs([429, 201, 429, 201])).map((v) => v[1])).toEqual([true, true]);
  });

  it("no after call at all fails, saying so", () => {
    expect(gradeLabour(grader([overlapping(undefined)]), runs([429]), null, "seed").g1[0]).toMatchObject({
      passed: false,
      reason: "no POST calls to /^/v2/runs$/ answered 201",
    });
  });
});
