import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { gradeG1Predicate, gradeLabour } from "./grade-g1.js";

/**
 * The words G1 writes when a predicate fails, each part of a call or a match shown only when the
 * grader sets it, and the lists `gradeLabour` returns (issue 21: mutation testing of the grader's
 * preparation).
 */
const empty = trialLog().events();
const reason = (p: G1Predicate, events = empty) => gradeG1Predicate(p, events, {}, "seed").reason;

describe("a call that was not made", () => {
  it("names every part the grader sets: method (else any call), target, status, values sent, body keys", () => {
    const full: G1Predicate = {
      kind: "call",
      id: "confirmed",
      explain: "",
      url_pattern: "^/runs/[^/]+$",
      target: "RUN-1",
      status: 200,
      sent: { status: "done", note: "x" },
      body_has_keys: ["id", "state"],
    };
    expect(reason(full)).toBe(
      "no call to /^/runs/[^/]+$/ on the target record answered 200 sending status, note as required with body keys id, state",
    );
  });

  it("names only the method and route when nothing else is set", () => {
    const bare: G1Predicate = {
      kind: "call",
      id: "p",
      explain: "",
      method: "PATCH",
      url_pattern: "^/x$",
      body_has_keys: [],
    };
    expect(reason(bare)).toBe("no PATCH to /^/x$/");
  });
});

describe("a call match in words (counts and orderings)", () => {
  const count = (call: Extract<G1Predicate, { kind: "call_count" }>["call"]): G1Predicate => ({
    kind: "call_count",
    id: "n",
    explain: "",
    call,
    min: 1,
  });

  it("names every part the match sets", () => {
    const words = count({
      url_pattern: "^/runs/[^/]+$",
      target: "RUN-1",
      status: 200,
      sent: { a: 1, c: 3 },
      returned: { b: 2, d: 4 },
    });
    expect(reason(words)).toBe(
      "0 any calls to /^/runs/[^/]+$/ on the target record answered 200 sending a, c as required returning b, d as required; the ticket allows at least 1",
    );
  });

  it("names only the method and route when nothing else is set", () => {
    expect(reason(count({ method: "get", url_pattern: "^/x$" }))).toBe(
      "0 get calls to /^/x$/; the ticket allows at least 1",
    );
  });
});

describe("a data flow's failing destination", () => {
  const flow = (extra: Partial<Extract<G1Predicate, { kind: "data_flow" }>>): G1Predicate => ({
    kind: "data_flow",
    id: "id_flows",
    explain: "",
    from_response_url_pattern: "^/jobs$",
    from_status: 201,
    from_body_key: "job_id",
    must_be_stored: false,
    used_in_request_url_pattern: null,
    ...extra,
  });
  const created = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).events();

  it("names the value not stored, and the route and slot it was not used in", () => {
    expect(reason(flow({ must_be_stored: true }), created)).toBe(
      "the job_id from the response was not stored in a variable",
    );
    expect(
      reason(flow({ used_in_request_url_pattern: "^/jobs/[^/]+$", used_in_slot: { in: "path" } }), created),
    ).toBe("the job_id was not used in a later request to /^/jobs/[^/]+$/ in its path");
  });

  it("names what a chain segment's own value must do, when an earlier segment claimed the only one", () => {
    const chain = (extra: Partial<Extract<G1Predicate, { kind: "data_flow" }>>) => [
      flow({ segment: 1, ...extra }),
      flow({ segment: 2, ...extra }),
    ];
    const second = (
      g1: G1Predicate[],
      events: ReturnType<ReturnType<typeof trialLog>["events"]>,
      card = {},
    ) => {
      const grader: GraderSpec = { answer: [], g1, constraints: [], checkpoints: [] };
      return gradeLabour(grader, events, card, "seed").g1[1]?.reason;
    };
    const used = trialLog()
      .call("POST", "/jobs", 201, { job_id: "J-1" })
      .call("GET", "/jobs/J-1", 200)
      .events();
    const own =
      "no job_id shown after the ones earlier segments used went where it must: segment 2 needs its own";
    expect(
      second(chain({ used_in_request_url_pattern: "^/jobs/[^/]+$", used_in_slot: { in: "path" } }), used),
    ).toBe(`${own} (used in a later request to /^/jobs/[^/]+$/ in its path)`);
    const stored = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).store("job", "J-1").events();
    expect(second(chain({ must_be_stored: true }), stored)).toBe(`${own} (stored in a variable)`);
    expect(second(chain({ answer_field: "job" }), created, { job: "J-1" })).toBe(
      `${own} (reported as 'job')`,
    );
  });
});

describe("gradeLabour's lists", () => {
  it("returns exactly the grader's constraints and checkpoints, a checkpoint with its segment", () => {
    const grader: GraderSpec = {
      answer: [],
      g1: [],
      constraints: [],
      checkpoints: [{ id: "minted", explain: "", segment: 2, url_pattern: "^/jobs$", status: 201 }],
    };
    const created = trialLog().call("POST", "/jobs", 201, { job_id: "J-1" }).events();
    expect(gradeLabour(grader, created, null, "seed")).toEqual({
      g1: [],
      constraints: [],
      checkpoints: [{ id: "minted", hit: true, explain: "", segment: 2 }],
    });
  });
});
