import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { JsonValue } from "../bank/json.js";
import type { CallMatch, G1Predicate } from "../bank/task-schema.js";
import { gradeConstraint, gradeG1Predicate } from "./grade-g1.js";

/**
 * The log index's call matching, read through the predicates that use it (issue 21: mutation
 * testing of grade-g1.ts's index): values a match needs that the trial cannot name, values
 * returned among a list, headers, the logical clock under `x-apiflow-wait`, the same record, and
 * a forbidden method.
 */

interface Req {
  method?: string;
  url: string;
  headers?: Record<string, string>;
  body?: JsonValue;
  status?: number;
  response?: JsonValue;
}

function log(...requests: Req[]) {
  const l = trialLog();
  for (const r of requests)
    l.call(r.method ?? "GET", r.url, r.status ?? 200, r.response ?? {}, r.body ?? null, r.headers ?? {});
  return l.events();
}

const count = (call: CallMatch, bounds: { min?: number; max?: number }): G1Predicate =>
  ({ kind: "call_count", id: "counted", explain: "", call, ...bounds }) as G1Predicate;

const grade = (p: G1Predicate, events: ReturnType<typeof log>) => gradeG1Predicate(p, events, null, "seed");

describe("a value a call match needs that the trial cannot name", () => {
  const RUN = { $record: { resource: "runs", where: { sample: "S-1" } }, field: "run_id" };
  const UNKNOWN =
    "the run_id of the runs record with sample=S-1 is unknown: the world's final records were not kept";
  const runs = log({ method: "POST", url: "/runs", body: { run: "RUN-1" }, response: { run: "RUN-1" } });

  for (const where of ["sent", "returned", "headers"] as const)
    it(`fails the count with the reason when the value is ${where === "headers" ? "a header" : `${where} at a key`}`, () => {
      const p = count({ url_pattern: "^/runs$", [where]: { run: RUN } }, { min: 1 });
      expect(grade(p, runs)).toEqual({
        id: "counted",
        kind: "call_count",
        explain: "",
        passed: false,
        reason: `the value expected at run is unknown: ${UNKNOWN}`,
      });
    });
});

describe("a call match on what was returned and the headers sent", () => {
  it("returned: the value among a list's items counts (one item holds it, the others do not)", () => {
    const p = count({ url_pattern: "^/runs$", returned: { "runs.sample": "S-1" } }, { min: 1, max: 1 });
    const listed = log({ url: "/runs", response: { runs: [{ sample: "S-2" }, { sample: "S-1" }] } });
    expect(grade(p, listed)).toMatchObject({ passed: true, value: 1 });
    expect(grade(p, log({ url: "/runs", response: { runs: [{ sample: "S-2" }] } }))).toMatchObject({
      passed: false,
      value: 0,
    });
  });

  it("headers: the named header (any case in the grader, lower case in the log) with the value", () => {
    const p = count(
      { method: "POST", url_pattern: "^/runs$", headers: { "Idempotency-Key": "k-1" } },
      { min: 1, max: 1 },
    );
    const posts = log(
      { method: "POST", url: "/runs", headers: { "idempotency-key": "k-1" } },
      { method: "POST", url: "/runs", headers: { "idempotency-key": "k-2" } },
      { method: "POST", url: "/runs" },
    );
    expect(grade(p, posts)).toMatchObject({ passed: true, value: 1 });
    expect(grade(p, posts.slice(1))).toMatchObject({ passed: false, value: 0 });
  });
});

describe("the logical clock: a wait counts as the world honours it", () => {
  const waited = (wait: string, min = 5) => {
    const p: G1Predicate = {
      kind: "order",
      id: "waited",
      explain: "",
      before: { method: "GET", url_pattern: "^/jobs/J-1$" },
      after: { method: "POST", url_pattern: "^/jobs/J-1/confirm$" },
      min_wait_seconds: min,
    };
    return grade(
      p,
      log(
        { url: "/jobs/J-1" },
        { method: "POST", url: "/jobs/J-1/confirm", headers: { "x-apiflow-wait": wait } },
      ),
    );
  };

  it("whole seconds, also with spaces around them (the world trims them too), add to the request's tick", () => {
    expect(waited("5")).toMatchObject({ passed: true, value: 6 });
    expect(waited(" 5 ")).toMatchObject({ passed: true, value: 6 });
  });

  it("up to the world's limit of 3600 s; 3601 s is refused by the world and adds nothing", () => {
    expect(waited("3600", 3600)).toMatchObject({ passed: true, value: 3601 });
    expect(waited("3601", 3600)).toMatchObject({ passed: false, value: 1 });
  });

  it("a fraction, a sign or an exponent is refused by the world and adds nothing", () => {
    for (const wait of ["1.5", "-5", "1e3", "x5", "5x"])
      expect(waited(wait, 2), wait).toEqual({
        id: "waited",
        kind: "order",
        explain: "",
        passed: false,
        value: 1,
        reason:
          "the first of the POST calls to /^/jobs/J-1/confirm$/ came 1 s after the last of the GET calls to /^/jobs/J-1$/; at least 2 s were required",
      });
  });
});

describe("an ordering on the same record", () => {
  const confirm: G1Predicate = {
    kind: "order",
    id: "polled_first",
    explain: "",
    before: { method: "GET", url_pattern: "^/v2/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/v2/jobs/[^/]+/confirm$" },
    same_record: true,
  };

  it("passes when the job polled is the job confirmed", () => {
    expect(
      grade(confirm, log({ url: "/v2/jobs/J-1" }, { method: "POST", url: "/v2/jobs/J-1/confirm" })),
    ).toEqual({
      id: "polled_first",
      kind: "order",
      explain: "",
      passed: true,
    });
  });

  it("fails when only a sibling job was polled, though its path shares every other segment", () => {
    expect(
      grade(confirm, log({ url: "/v2/jobs/J-2" }, { method: "POST", url: "/v2/jobs/J-1/confirm" })),
    ).toEqual({
      id: "polled_first",
      kind: "order",
      explain: "",
      passed: false,
      reason:
        "the first of the POST calls to /^/v2/jobs/[^/]+/confirm$/ came before any GET calls to /^/v2/jobs/[^/]+$/ of the same record",
    });
  });
});

describe("a forbidden method", () => {
  const noDelete = {
    kind: "forbid" as const,
    id: "no_delete",
    explain: "",
    method: "delete",
    url_pattern: "^/runs/[^/]+$",
  };

  it("is violated by that method only (named in any case), and names the first such call", () => {
    expect(
      gradeConstraint(noDelete, log({ url: "/runs/R-1" }, { method: "PATCH", url: "/runs/R-1" })),
    ).toEqual({
      id: "no_delete",
      kind: "forbid",
      violated: false,
      detail: "",
      explain: "",
    });
    expect(
      gradeConstraint(noDelete, log({ url: "/runs/R-1" }, { method: "DELETE", url: "/runs/R-2" })),
    ).toMatchObject({ violated: true, detail: "DELETE /runs/R-2" });
  });
});
