import { describe, expect, it } from "vitest";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * An ordering measured from the first `before` call to the first `after` call that follows it
 * (`from_first_before`: a sweep's pause), at its edges (issue 21: mutation testing).
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

function pause(extra: Partial<Extract<G1Predicate, { kind: "order" }>> = {}): G1Predicate {
  return {
    kind: "order",
    id: "paused",
    explain: "",
    from_first_before: true,
    before: { method: "GET", url_pattern: "^/jobs/[^/]+$" },
    after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$" },
    ...extra,
  };
}

const grade = (p: G1Predicate, events: ReturnType<typeof log>) => gradeG1Predicate(p, events, null, "seed");

describe("ordering from the first before call", () => {
  it("fails without any before call, naming the before calls", () => {
    expect(grade(pause(), log([CONFIRM]))).toMatchObject({
      passed: false,
      reason: "no GET calls to /^/jobs/[^/]+$/",
    });
  });

  it("fails when every after call came before the first before call", () => {
    expect(grade(pause(), log([CONFIRM, POLL]))).toMatchObject({
      passed: false,
      reason: "no POST calls to /^/jobs/[^/]+/confirm$/ after the first of the GET calls to /^/jobs/[^/]+$/",
    });
  });

  it("does not take one call as both its own before and after", () => {
    // Both patterns match the confirmation: it is the first before call, and nothing follows it.
    const any = pause({ before: { url_pattern: "^/jobs/" } });
    expect(grade(any, log([CONFIRM])).passed).toBe(false);
    expect(grade(any, log([CONFIRM, CONFIRM])).passed).toBe(true);
  });

  it("passes an after call following the first before call when no wait is set, with no value", () => {
    const r = grade(pause(), log([POLL, CONFIRM]));
    expect(r.passed).toBe(true);
    expect(r.value).toBeUndefined();
  });

  it("holds the wait at its bound: exactly the seconds required pass, one fewer fails", () => {
    // The poll is served at second 1; the confirmation waits w seconds, then ticks one more.
    const waitedFor = (w: string) => log([POLL, [...CONFIRM, w]]);
    expect(grade(pause({ min_wait_seconds: 3 }), waitedFor("2"))).toMatchObject({ passed: true, value: 3 });
    expect(grade(pause({ min_wait_seconds: 3 }), waitedFor("1"))).toMatchObject({
      passed: false,
      value: 2,
      reason:
        "the first of the POST calls to /^/jobs/[^/]+/confirm$/ came 2 s after the first of the GET calls to /^/jobs/[^/]+$/; at least 3 s were required",
    });
  });
});
