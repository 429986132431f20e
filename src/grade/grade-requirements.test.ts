import { describe, expect, it } from "vitest";
import type { JsonObject, JsonValue } from "../bank/json.js";
import type { G1Predicate, GraderSpec } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import type { FinalRecords } from "./final-state.js";
import { gradeG1Predicate } from "./grade-g1.js";
import { gradeTrial } from "./grade-trial.js";

const SEED = "seed-req";

/** A small event log: exchanges in order, each with optional request body and headers. */
function log() {
  const l = new EventLog();
  const api = {
    call(
      method: string,
      url: string,
      status: number,
      response: JsonValue = {},
      request: { body?: JsonValue; headers?: Record<string, string> } = {},
    ) {
      l.append({
        type: "exchange",
        protocol: "rest",
        method,
        url,
        request_headers: request.headers ?? {},
        request_body: request.body ?? null,
        status,
        response_headers: {},
        response_body: response,
      });
      return api;
    },
    events: () => l.events,
  };
  return api;
}

const grade = (
  p: G1Predicate,
  events: ReturnType<ReturnType<typeof log>["events"]>,
  records?: FinalRecords,
) => gradeG1Predicate(p, events, null, SEED, records);

const NOTE = "^/v2/notes/[^/]+$";

describe("value written and exact target (call)", () => {
  const moved: G1Predicate = {
    kind: "call",
    id: "status_moved",
    explain: "",
    requirement: "note_settled",
    method: "PATCH",
    url_pattern: NOTE,
    status: 200,
    body_has_keys: [],
    target: "CN-12",
    sent: { status: "settled" },
  };

  it("passes the value the ticket names, on the record it names", () => {
    const events = log()
      .call("PATCH", "/v2/notes/CN-12", 200, {}, { body: { status: "settled" } })
      .events();
    expect(grade(moved, events)).toMatchObject({ passed: true, requirement: "note_settled" });
  });

  it("fails another valid value written (the key alone is not enough)", () => {
    const events = log()
      .call("PATCH", "/v2/notes/CN-12", 200, {}, { body: { status: "approved" } })
      .events();
    expect(grade(moved, events)).toMatchObject({ passed: false, requirement: "note_settled" });
  });

  it("fails the right value written onto a sibling record", () => {
    const events = log()
      .call("PATCH", "/v2/notes/CN-13", 200, {}, { body: { status: "settled" } })
      .events();
    expect(grade(moved, events).passed).toBe(false);
  });

  it("finds a target named by its role in the final state, and names it when it is missing", () => {
    const byRole: G1Predicate = {
      ...moved,
      target: {
        $record: { resource: "notes", where: { asset: "A-1" }, role: "the note of A-1" },
        field: "note_id",
      },
    };
    const events = log()
      .call("PATCH", "/v2/notes/CN-77", 200, {}, { body: { status: "settled" } })
      .events();
    const records = {
      notes: [
        { note_id: "CN-77", asset: "A-1" },
        { note_id: "CN-78", asset: "A-2" },
      ],
    };
    expect(grade(byRole, events, records).passed).toBe(true);
    const other = { notes: [{ note_id: "CN-78", asset: "A-1" }] };
    expect(grade(byRole, events, other).passed).toBe(false);
    expect(grade(byRole, events, { notes: [] }).reason).toBe(
      "the target record is unknown: the note_id of the note of A-1: no such record at the end of the trial",
    );
  });
});

describe("call count", () => {
  const once: G1Predicate = {
    kind: "call_count",
    id: "one_create",
    explain: "",
    call: { method: "POST", url_pattern: "^/v2/runs$", status: 201 },
    max: 1,
  };

  it("passes one create and fails a create repeated", () => {
    const one = log().call("POST", "/v2/runs", 422).call("POST", "/v2/runs", 201).events();
    expect(grade(once, one)).toMatchObject({ passed: true, value: 1 });
    const two = log().call("POST", "/v2/runs", 201).call("POST", "/v2/runs", 201).events();
    expect(grade(once, two)).toMatchObject({
      passed: false,
      value: 2,
      reason: "2 POST calls to /^/v2/runs$/ answered 201; the ticket allows at most 1",
    });
  });

  it("holds exactly n: too few fails too", () => {
    const exactly: G1Predicate = { ...once, min: 2, max: 2 };
    const one = log().call("POST", "/v2/runs", 201).events();
    expect(grade(exactly, one).reason).toMatch(/allows exactly 2$/);
  });
});

describe("ordering", () => {
  const polledFirst: G1Predicate = {
    kind: "order",
    id: "polled_first",
    explain: "",
    before: { method: "GET", url_pattern: "^/jobs/[^/]+$", returned: { state: "awaiting_confirmation" } },
    after: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$", status: 200 },
  };

  it("passes A before B and fails the two swapped", () => {
    const ok = log()
      .call("GET", "/jobs/J1", 200, { state: "awaiting_confirmation" })
      .call("POST", "/jobs/J1/confirm", 200)
      .events();
    expect(grade(polledFirst, ok).passed).toBe(true);
    const swapped = log()
      .call("POST", "/jobs/J1/confirm", 200)
      .call("GET", "/jobs/J1", 200, { state: "awaiting_confirmation" })
      .events();
    expect(grade(polledFirst, swapped)).toMatchObject({
      passed: false,
      reason: expect.stringMatching(/^the first of the POST calls .* came before any GET calls/),
    });
  });

  it("fails a poll that never showed the state the confirmation needs, and a missing B", () => {
    const pending = log()
      .call("GET", "/jobs/J1", 200, { state: "pending" })
      .call("POST", "/jobs/J1/confirm", 200);
    expect(grade(polledFirst, pending.events()).passed).toBe(false);
    expect(
      grade(polledFirst, log().call("GET", "/jobs/J1", 200, { state: "awaiting_confirmation" }).events())
        .reason,
    ).toBe("no POST calls to /^/jobs/[^/]+/confirm$/ answered 200");
  });

  it("holds a wait between the calls on the log's logical clock", () => {
    const waited: G1Predicate = {
      kind: "order",
      id: "waited",
      explain: "",
      before: { url_pattern: "^/v2/runs$", status: 429 },
      after: { url_pattern: "^/v2/runs$", status: 201 },
      min_wait_seconds: 5,
    };
    const tooSoon = log().call("POST", "/v2/runs", 429).call("POST", "/v2/runs", 201).events();
    expect(grade(waited, tooSoon)).toMatchObject({
      passed: false,
      value: 1,
      reason: expect.stringMatching(/came 1 s after .*; at least 5 s were required$/),
    });
    const withHeader = log()
      .call("POST", "/v2/runs", 429)
      .call("POST", "/v2/runs", 201, {}, { headers: { "x-apiflow-wait": "5" } })
      .events();
    expect(grade(waited, withHeader)).toMatchObject({ passed: true, value: 6 });
    const byCalls = log().call("POST", "/v2/runs", 429);
    for (let i = 0; i < 4; i++) byCalls.call("GET", "/v2/runs", 200);
    expect(grade(waited, byCalls.call("POST", "/v2/runs", 201).events()).passed).toBe(true);
    const badHeader = log()
      .call("POST", "/v2/runs", 429)
      .call("POST", "/v2/runs", 201, {}, { headers: { "x-apiflow-wait": "soon" } })
      .events();
    expect(grade(waited, badHeader).passed).toBe(false);
  });

  it("measures a sweep's pause from the first read before it to the next read after it by any route", () => {
    // Issue 15 (audit hole 1): the read after the pause may go through the listing, which the agent
    // may also have read before the pause for another asset of the sweep.
    const pause: G1Predicate = {
      kind: "order",
      id: "paused_before_A-3",
      explain: "",
      before: { method: "GET", url_pattern: "^/v2/assets/A-2$", status: 200 },
      after: { method: "GET", url_pattern: "^/v2/assets(?:/A-3(?:/[^/?]+)?)?(\\?.*)?$", status: 200 },
      min_wait_seconds: 20,
      from_first_before: true,
    };
    const wait = { headers: { "x-apiflow-wait": "20" } };
    const viaListing = log()
      .call("GET", "/v2/assets?page=1", 200)
      .call("GET", "/v2/assets/A-2", 200)
      .call("POST", "/auth/token", 200, {}, wait)
      .call("GET", "/v2/assets?page=1", 200)
      .events();
    expect(grade(pause, viaListing)).toMatchObject({ passed: true, value: 22 });
    // The same reads without the pause: the listing read before A-2 does not count as "after".
    const noPause = log()
      .call("GET", "/v2/assets?page=1", 200)
      .call("GET", "/v2/assets/A-2", 200)
      .call("POST", "/auth/token", 200)
      .call("GET", "/v2/assets/A-3", 200)
      .events();
    expect(grade(pause, noPause)).toMatchObject({
      passed: false,
      value: 2,
      reason: expect.stringMatching(
        /came 2 s after the first of the GET calls .*A-2.*; at least 20 s were required$/,
      ),
    });
    // Without the default rule the listing read first would be "the first after", before any A-2.
    const { from_first_before: _, ...plain } = pause as Extract<G1Predicate, { kind: "order" }>;
    expect(grade(plain, viaListing).passed).toBe(false);
    expect(grade(pause, log().call("GET", "/v2/assets/A-3", 200).events()).reason).toMatch(/^no GET calls/);
    expect(
      grade(pause, log().call("GET", "/v2/assets/A-3", 200).call("GET", "/v2/assets/A-2", 200).events())
        .reason,
    ).toMatch(/^no GET calls .* after the first of the GET calls/);
  });
});

describe("end state", () => {
  const notes = (...rows: JsonObject[]): FinalRecords => ({ notes: rows });
  const settled: G1Predicate = {
    kind: "end_state",
    id: "note_settled_end",
    explain: "",
    record: { resource: "notes", where: { note_id: "CN-12" } },
    expect: { is: "field", field: "status", value: "settled" },
  };
  const none = log().events();

  it("passes the field the ticket names and fails another value, naming the record", () => {
    expect(grade(settled, none, notes({ note_id: "CN-12", status: "settled" })).passed).toBe(true);
    expect(grade(settled, none, notes({ note_id: "CN-12", status: "approved" }))).toMatchObject({
      passed: false,
      reason: 'the notes record with note_id=CN-12 ends with status "approved", not "settled"',
    });
    expect(grade(settled, none, notes()).reason).toBe(
      "the notes record with note_id=CN-12: no such record at the end of the trial",
    );
  });

  it("fails without the final records, saying so", () => {
    expect(grade(settled, none).reason).toBe(
      "the notes record with note_id=CN-12: the world's final records were not kept",
    );
  });

  it("holds a record absent: the named one left in place fails, a sibling's absence does not help", () => {
    const gone: G1Predicate = {
      kind: "end_state",
      id: "incident_deleted",
      explain: "",
      record: { resource: "notes", where: { note_id: "CN-12" }, role: "incident CN-12" },
      expect: { is: "absent" },
    };
    expect(grade(gone, none, notes({ note_id: "CN-13" })).passed).toBe(true);
    expect(grade(gone, none, notes({ note_id: "CN-12" }))).toMatchObject({
      passed: false,
      reason: "incident CN-12 is still there at the end of the trial",
    });
  });

  it("holds how many records are in a state", () => {
    const oneOpen: G1Predicate = {
      kind: "end_state",
      id: "one_open",
      explain: "",
      record: { resource: "notes", where: { asset: "A-1", status: "open" } },
      expect: { is: "count", min: 1, max: 1 },
    };
    const one = notes({ asset: "A-1", status: "open" }, { asset: "A-1", status: "closed" });
    expect(grade(oneOpen, none, one).passed).toBe(true);
    const two = notes({ asset: "A-1", status: "open" }, { asset: "A-1", status: "open" });
    expect(grade(oneOpen, none, two)).toMatchObject({
      passed: false,
      reason: "2 records are notes record with asset=A-1, status=open; the ticket wants exactly 1",
    });
  });
});

describe("answers by record identity, and failure reasons naming the requirement", () => {
  const grader: GraderSpec = {
    answer: [
      {
        field: "run_id",
        comparator: "string",
        expected: {
          $record: { resource: "runs", where: { sample: "S-1" }, role: "the run confirmed for S-1" },
          field: "run_id",
        },
        explain: "",
        requirement: "report_run",
      },
    ],
    g1: [
      {
        kind: "call_count",
        id: "one_confirm",
        explain: "",
        requirement: "confirm_once",
        call: { method: "POST", url_pattern: "^/jobs/[^/]+/confirm$", status: 200 },
        max: 1,
      },
    ],
    constraints: [],
    checkpoints: [],
  };
  const events = log().call("POST", "/jobs/J2/confirm", 200).events();
  const finalMessage = (id: string) => `\`\`\`json\n{"run_id": "${id}"}\n\`\`\``;

  it("reads the expected id from the record in its role, whatever order ids were minted in", () => {
    const records = {
      runs: [
        { run_id: "RUN-OLD", sample: "S-0" },
        { run_id: "RUN-2ND", sample: "S-1" },
      ],
    };
    const g = gradeTrial({
      grader,
      trialSeed: SEED,
      events,
      finalMessage: finalMessage("RUN-2ND"),
      finalRecords: records,
    });
    expect(g.passed).toBe(true);
    const wrong = gradeTrial({
      grader,
      trialSeed: SEED,
      events,
      finalMessage: finalMessage("RUN-OLD"),
      finalRecords: records,
    });
    expect(wrong.passed).toBe(false);
    expect(wrong.failure_reason).toBe(
      "1/2 predicates matched; failed: G2 answer; first failure: answer field 'run_id' (requirement report_run): 'RUN-OLD' != expected 'RUN-2ND' (expected the run_id of the run confirmed for S-1)",
    );
  });

  it("fails the field, naming the record, when no record holds the role", () => {
    const g = gradeTrial({
      grader,
      trialSeed: SEED,
      events,
      finalMessage: finalMessage("RUN-2ND"),
      finalRecords: { runs: [] },
    });
    expect(g.g2[0]).toMatchObject({
      passed: false,
      reason: "expected the run_id of the run confirmed for S-1: no such record at the end of the trial",
    });
  });

  it("names the requirement of the first failing G1 predicate", () => {
    const twice = log().call("POST", "/jobs/J1/confirm", 200).call("POST", "/jobs/J2/confirm", 200).events();
    const records = { runs: [{ run_id: "RUN-2ND", sample: "S-1" }] };
    const g = gradeTrial({
      grader,
      trialSeed: SEED,
      events: twice,
      finalMessage: finalMessage("RUN-2ND"),
      finalRecords: records,
    });
    expect(g.failure_reason).toMatch(
      /first failure: call_count one_confirm \(requirement confirm_once\): 2 POST calls/,
    );
    expect(g.g1[0]).toMatchObject({ requirement: "confirm_once", passed: false });
  });
});

describe("diagnostics name the requirement", () => {
  it("explainVerdict carries each predicate's requirement and prints it", async () => {
    const { explainVerdict, formatExplanation } = await import("./explain-verdict.js");
    const grader: GraderSpec = {
      answer: [{ field: "x", comparator: "string", expected: "1", explain: "", requirement: "report" }],
      g1: [
        {
          kind: "end_state",
          id: "gone",
          explain: "CN-1 is deleted.",
          requirement: "note_gone",
          record: { resource: "notes", where: { note_id: "CN-1" } },
          expect: { is: "absent" },
        },
      ],
      constraints: [],
      checkpoints: [],
    };
    const ex = explainVerdict({
      grader,
      trialSeed: SEED,
      events: log().events(),
      finalMessage: '```json\n{"x": "1"}\n```',
      finalRecords: { notes: [{ note_id: "CN-1" }] },
    });
    const gone = ex.predicates.find((p) => p.id === "gone");
    expect(gone).toMatchObject({ passed: false, requirement: "note_gone" });
    expect(ex.failure_reason).toContain(
      "end_state gone (requirement note_gone): the notes record with note_id=CN-1 is still there",
    );
    expect(formatExplanation(ex, "t")).toContain(
      "✗ G1 end_state gone (requirement note_gone): CN-1 is deleted.",
    );
  });
});
