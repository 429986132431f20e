import { describe, expect, it } from "vitest";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { GraderSpec } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { EventLog } from "../world/event-log.js";
import { checkpointHit, gradeConstraint, gradeG1Predicate } from "./grade-g1.js";
import { gradeTrial } from "./grade-trial.js";

const SEED = "seed-g1";

/** A small event log builder: exchanges and variable writes in order. */
function log() {
  const l = new EventLog();
  const api = {
    call(
      method: string,
      url: string,
      status: number,
      body: JsonValue,
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
        response_headers: { "content-type": "application/json" },
        response_body: body,
      });
      return api;
    },
    store(name: string, value: JsonValue, scope: "local" | "global" = "local") {
      l.append({ type: "variable_write", scope, name, value });
      return api;
    },
    events: () => l.events,
  };
  return api;
}

const flow = (over: Partial<Extract<GraderSpec["g1"][number], { kind: "data_flow" }>> = {}) =>
  ({
    kind: "data_flow",
    id: "df",
    explain: "",
    from_response_url_pattern: "^/v3/items$",
    from_status: 200,
    from_body_key: "items.serial",
    must_be_stored: false,
    used_in_request_url_pattern: null,
    ...over,
  }) as const;

describe("G1 data flow", () => {
  const items = { items: [{ serial: "S-1" }, { serial: "S-2" }] };

  it("finds the value through arrays and requires it in the answer card", () => {
    const events = log().call("GET", "/v3/items", 200, items).events();
    const p = flow({ answer_field: "serial" });
    expect(gradeG1Predicate(p, events, { serial: "S-2" }, SEED)).toMatchObject({
      passed: true,
      value: "S-2",
    });
    expect(gradeG1Predicate(p, events, { serial: "S-3" }, SEED)).toMatchObject({
      passed: false,
      reason: "answer field 'serial' does not carry the items.serial the API returned",
    });
    expect(gradeG1Predicate(p, events, null, SEED).passed).toBe(false);
  });

  it("fails when no response matched the pattern and status", () => {
    const events = log().call("GET", "/v3/items", 500, items).call("GET", "/v2/items", 200, items).events();
    expect(gradeG1Predicate(flow(), events, {}, SEED)).toMatchObject({
      passed: false,
      reason: "no response from /^/v3/items$/ with status 200",
    });
  });

  it("fails when the matching response lacks the key", () => {
    const events = log().call("GET", "/v3/items", 200, { items: [] }).events();
    expect(gradeG1Predicate(flow(), events, {}, SEED).reason).toMatch(/carry no value at items\.serial/);
  });

  it("must_be_stored needs a variable write after the response", () => {
    const p = flow({ must_be_stored: true });
    const before = log().store("serial", "S-1").call("GET", "/v3/items", 200, items).events();
    expect(gradeG1Predicate(p, before, {}, SEED).passed).toBe(false);
    const after = log().call("GET", "/v3/items", 200, items).store("serial", { value: "S-1" }).events();
    expect(gradeG1Predicate(p, after, {}, SEED).passed).toBe(true);
  });

  it("used_in_request needs a later request matching the pattern that carries the value", () => {
    const p = flow({ used_in_request_url_pattern: "^/v3/orders" });
    const inUrl = log()
      .call("GET", "/v3/items", 200, items)
      .call("GET", "/v3/orders?serial=S-1", 200, {})
      .events();
    expect(gradeG1Predicate(p, inUrl, {}, SEED).passed).toBe(true);
    const inBody = log()
      .call("GET", "/v3/items", 200, items)
      .call("POST", "/v3/orders", 201, {}, { body: { serial: "S-2" } })
      .events();
    expect(gradeG1Predicate(p, inBody, {}, SEED).passed).toBe(true);
    const wrongRoute = log()
      .call("GET", "/v3/items", 200, items)
      .call("GET", "/v2/orders?serial=S-1", 200, {})
      .events();
    expect(gradeG1Predicate(p, wrongRoute, {}, SEED).passed).toBe(false);
    const earlier = log()
      .call("GET", "/v3/orders?serial=S-1", 200, {})
      .call("GET", "/v3/items", 200, items)
      .events();
    expect(gradeG1Predicate(p, earlier, {}, SEED).passed).toBe(false);
  });

  it("a token used in a later request is recognised through the redacted header's digest", () => {
    const token = "tk_ABC123";
    const p = flow({
      from_response_url_pattern: "^/oauth/token$",
      from_body_key: "access_token",
      used_in_request_url_pattern: "^/v3/",
    });
    const used = log()
      .call("POST", "/oauth/token", 200, { access_token: token })
      .call("GET", "/v3/items", 200, items, {
        headers: { authorization: `Bearer <redacted:${sha256Hex(token).slice(0, 8)}>` },
      })
      .events();
    expect(gradeG1Predicate(p, used, {}, SEED).passed).toBe(true);
    const stale = log()
      .call("POST", "/oauth/token", 200, { access_token: token })
      .call("GET", "/v3/items", 200, items, {
        headers: { authorization: `Bearer <redacted:${sha256Hex("tk_OLD").slice(0, 8)}>` },
      })
      .events();
    expect(gradeG1Predicate(p, stale, {}, SEED).passed).toBe(false);
  });

  it("every destination must be reached by the same value", () => {
    const p = flow({ answer_field: "serial", must_be_stored: true });
    const split = log().call("GET", "/v3/items", 200, items).store("x", "S-1").events();
    expect(gradeG1Predicate(p, split, { serial: "S-2" }, SEED).passed).toBe(false);
    expect(gradeG1Predicate(p, split, { serial: "S-1" }, SEED).passed).toBe(true);
  });
});

describe("G1 call, workspace value, constraints, checkpoints", () => {
  const events = log()
    .call("POST", "/v3/jobs", 202, { job: { id: "J-1" } })
    .call("GET", "/v2/jobs/J-1", 200, {})
    .store("job_id", "J-1")
    .store("job_id", "J-2")
    .events();

  it("call predicates match method, URL, status and body keys", () => {
    const base = {
      kind: "call" as const,
      id: "c",
      explain: "",
      url_pattern: "^/v3/jobs$",
      body_has_keys: [] as string[],
    };
    expect(
      gradeG1Predicate(
        { ...base, method: "POST", status: 202, body_has_keys: ["job.id"] },
        events,
        null,
        SEED,
      ).passed,
    ).toBe(true);
    expect(gradeG1Predicate({ ...base, method: "GET" }, events, null, SEED).passed).toBe(false);
    expect(gradeG1Predicate({ ...base, status: 200 }, events, null, SEED).passed).toBe(false);
    expect(gradeG1Predicate({ ...base, body_has_keys: ["job.owner"] }, events, null, SEED).passed).toBe(
      false,
    );
  });

  it("workspace values read the last write, and resolve canaries per trial", () => {
    const wv = (value: JsonValue | { $canary: string }) =>
      gradeG1Predicate(
        { kind: "workspace_value", id: "w", explain: "", name: "job_id", scope: "local", value },
        events,
        null,
        SEED,
      );
    expect(wv("J-2").passed).toBe(true);
    expect(wv("J-1").passed).toBe(false);
    const canary = mintCanary(SEED, { $canary: "job" });
    const withCanary = log().store("job_id", canary).events();
    const p = {
      kind: "workspace_value",
      id: "w",
      explain: "",
      name: "job_id",
      scope: "any",
      value: { $canary: "job" },
    } as const;
    expect(gradeG1Predicate(p, withCanary, null, SEED).passed).toBe(true);
    expect(gradeG1Predicate(p, withCanary, null, "another-seed").passed).toBe(false);
  });

  it("a forbid constraint is violated by any matching call and names it", () => {
    expect(
      gradeConstraint({ kind: "forbid", id: "no_v2", explain: "", url_pattern: "^/v2/" }, events),
    ).toMatchObject({
      violated: true,
      detail: "GET /v2/jobs/J-1",
    });
    expect(
      gradeConstraint({ kind: "forbid", id: "no_v1", explain: "", url_pattern: "^/v1/" }, events).violated,
    ).toBe(false);
  });

  it("checkpoints report milestones", () => {
    expect(checkpointHit({ id: "k", explain: "", url_pattern: "^/v3/jobs$", status: 202 }, events)).toBe(
      true,
    );
    expect(checkpointHit({ id: "k", explain: "", url_pattern: "^/v3/jobs$", status: 200 }, events)).toBe(
      false,
    );
  });
});

describe("verdict, partial score and chain diagnostics", () => {
  const grader: GraderSpec = {
    answer: [
      { field: "a", comparator: "string", expected: "A", explain: "", segment: 1 },
      { field: "b", comparator: "numeric", expected: 2, explain: "", segment: 2 },
    ],
    g1: [
      {
        ...flow({ id: "seg1", from_response_url_pattern: "^/one$", from_body_key: "a", answer_field: "a" }),
        segment: 1,
      },
      {
        ...flow({ id: "seg2", from_response_url_pattern: "^/two$", from_body_key: "b", answer_field: "b" }),
        segment: 2,
      },
    ],
    constraints: [{ kind: "forbid", id: "no_decoy", explain: "", url_pattern: "^/decoy" }],
    checkpoints: [{ id: "never", explain: "", url_pattern: "^/never$" }],
  };
  const card = (a: string, b: number) => `done\n\`\`\`json\n${JSON.stringify({ a, b })}\n\`\`\``;

  it("passes when every predicate passes; a missed checkpoint never gates", () => {
    const events = log().call("GET", "/one", 200, { a: "A" }).call("GET", "/two", 200, { b: 2 }).events();
    const g = gradeTrial({ grader, trialSeed: SEED, events, finalMessage: card("A", 2) });
    expect(g).toMatchObject({
      passed: true,
      partial_score: 1,
      predicates_passed: 4,
      predicates_total: 4,
      failure_reason: "",
    });
    expect(g.checkpoints[0]?.hit).toBe(false);
    expect(g.segments).toEqual({
      per_segment: {
        "1": { passed: 2, total: 2, g1_passed: true, g2_passed: true },
        "2": { passed: 2, total: 2, g1_passed: true, g2_passed: true },
      },
      failure_stage: null,
    });
  });

  it("names the first failure and the first failing segment", () => {
    const events = log().call("GET", "/one", 200, { a: "A" }).call("GET", "/two", 200, { b: 2 }).events();
    const g = gradeTrial({ grader, trialSeed: SEED, events, finalMessage: card("X", 2) });
    expect(g.passed).toBe(false);
    expect(g.partial_score).toBe(0.5);
    expect(g.segments?.failure_stage).toBe(1);
    expect(g.failure_reason).toBe(
      "2/4 predicates matched; failed: G1 labour, G2 answer; first failure: data_flow seg1: answer field 'a' does not carry the a the API returned",
    );
  });

  it("a violated constraint fails G1 even when every predicate passes", () => {
    const events = log()
      .call("GET", "/decoy", 200, {})
      .call("GET", "/one", 200, { a: "A" })
      .call("GET", "/two", 200, { b: 2 })
      .events();
    const g = gradeTrial({ grader, trialSeed: SEED, events, finalMessage: card("A", 2) });
    expect(g).toMatchObject({ passed: false, g1_passed: false, g2_passed: true });
    expect(g.failure_reason).toMatch(/first failure: constraint no_decoy violated by GET \/decoy$/);
  });

  it("selective mode grades only the graded segments; full mode grades all", () => {
    const events = log().call("GET", "/two", 200, { b: 2 }).events();
    const selective = gradeTrial({
      grader,
      gradedSegments: [2],
      trialSeed: SEED,
      events,
      finalMessage: card("?", 2),
    });
    expect(selective.passed).toBe(true);
    expect(selective.predicates_total).toBe(2);
    const full = gradeTrial({ grader, trialSeed: SEED, events, finalMessage: card("?", 2) });
    expect(full.passed).toBe(false);
    expect(full.segments?.failure_stage).toBe(1);
  });

  it("one grader object, prepared once, grades every log and seed afresh", () => {
    // Canary, list and scalar expected values: the prepared grader must hold none of a trial's.
    const shared: GraderSpec = {
      ...grader,
      answer: [
        ...grader.answer,
        { field: "code", comparator: "string", expected: { $canary: "code" }, explain: "" },
        { field: "tags", comparator: "set", expected: ["x", "y"], explain: "" },
      ],
    };
    const good = log().call("GET", "/one", 200, { a: "A" }).call("GET", "/two", 200, { b: 2 }).events();
    const bad = log().call("GET", "/two", 200, { b: 2 }).events();
    const message = `\`\`\`json\n${JSON.stringify({ a: "A", b: 2, code: mintCanary(SEED, { $canary: "code" }), tags: ["y", "x"] })}\n\`\`\``;
    const trials = [
      { events: good, seed: SEED, passed: true, stage: null },
      { events: bad, seed: SEED, passed: false, stage: 1 },
      { events: good, seed: "another-seed", passed: false, stage: null },
      { events: good, seed: SEED, passed: true, stage: null },
    ];
    const grades = trials.map(({ events, seed, passed, stage }) => {
      const input = { trialSeed: seed, events, finalMessage: message };
      const g = gradeTrial({ grader: shared, ...input });
      // A structurally equal grader never graded before: what an unprepared grader says.
      expect(g).toEqual(gradeTrial({ grader: structuredClone(shared), ...input }));
      expect([g.passed, g.segments?.failure_stage]).toEqual([passed, stage]);
      return g;
    });
    expect(grades[2]?.failure_reason).toMatch(/first failure: answer field 'code': /);
    // Every grade owns its expected list: a caller editing one grade edits no other, nor the bank.
    expect(grades[0]?.g2[3]?.expected).not.toBe(grades[3]?.g2[3]?.expected);
    expect(grades[0]?.g2[3]?.expected).not.toBe(shared.answer[3]?.expected);
  });

  it("no final message fails every G2 field as absent", () => {
    const g = gradeTrial({ grader, trialSeed: SEED, events: [], finalMessage: null });
    expect(g.card_found).toBe(false);
    expect(g.g2.map((f) => f.reason)).toEqual([
      "field absent from the declared JSON answer card",
      "field absent from the declared JSON answer card",
    ]);
  });
});
