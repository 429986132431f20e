import { describe, expect, it } from "vitest";
import {
  defaultBank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  soloTasks as solo,
} from "../../test/support/default-bank-replay.js";
import type { JsonValue } from "../bank/json.js";
import type { AnswerField, G1Predicate, GoldenStep, Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { explainVerdict } from "../grade/explain-verdict.js";
import { answerAccepts } from "../grade/grade-answer-field.js";
import { gradeConstraint, urlMatchesPattern } from "../grade/grade-g1.js";
import { isCredentialHeader } from "../world/credential.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { cardFrom, cardMessage, playAndAnswer, scripted, trial } from "./certify-kit.js";
import { encodedDecoyExploit } from "./exploits/encoded-decoy.js";

// Holes the issue-20 agent audit found by playing a private bank (`generate --seed
// audit-20-kestrel`) over `apiflow mcp --http` as an agent would, then attacking the grader's
// matching: routes spelled another way, values in the wrong slot, no-op writes, card formats and
// their attribution. Each test replays a default-bank task's golden with the one change the agent
// made, through the real harness, and states the verdict the ticket calls for.

type DataFlow = Extract<G1Predicate, { kind: "data_flow" }>;

const dataFlows = (t: Task) => t.grader.g1.filter((p): p is DataFlow => p.kind === "data_flow");

/** A pattern anchored on a route with no query allowed: `^/v3/vessels/V-916$`. */
const anchored = (re: string) => re.endsWith("$") && !re.endsWith("(\\?.*)?$") && !re.includes("\\?");

/**
 * The golden's last GET of one record whose response an anchored data-flow source reads (the read
 * the ticket asks for, on the record's own route), or -1.
 */
function anchoredRead(t: Task): number {
  return t.golden.findLastIndex(
    (s) =>
      isExecute(s) &&
      s.request.method === "GET" &&
      !s.request.url.includes("?") &&
      !s.request.url.includes("{{") &&
      dataFlows(t).some(
        (p) =>
          anchored(p.from_response_url_pattern) &&
          new RegExp(p.from_response_url_pattern).test(s.request.url),
      ),
  );
}

/** The golden with step `at`'s URL (canonical form) followed by `query`. */
function withQuery(t: Task, at: number, query: string): GoldenStep[] {
  return t.golden.map((s, i) =>
    i === at && isExecute(s) ? { ...s, request: { ...s.request, url: `${s.request.url}${query}` } } : s,
  );
}

const worldOf = (t: Task) => defaultBank.worlds.find((w) => w.id === t.world);

describe("agent audit (20): a correct call with a query the route ignores is the same call", () => {
  // hotel-housekeeping-sub14 of seed audit-20-kestrel (discovery, query-versioned world): the
  // canonical single-room read sent as `GET /pms/rooms/007?api-version=3&` (a trailing `&`, as a
  // URL template leaves it) was served 200 with the room, logged as `/pms/v3/rooms/007?`, and
  // FAILED "keycard_series_from_canonical": the source pattern `^/pms/v3/rooms/007$` did not match
  // the logged URL. The same with `&fields=all`, or `?x=1` in a path-versioned world
  // (grid-substations-sub02). 5,058 data-flow sources, 2,608 use destinations and 1,683 call,
  // count and order patterns of that bank are anchored that way. Closed: a pattern matches the
  // logged URL or, when it has a query, its path (`urlMatchesPattern`).
  const queryVersioned = solo.find((t) => worldOf(t)?.versioning?.style === "query" && anchoredRead(t) >= 0);
  const pathVersioned = solo.find(
    (t) => (worldOf(t)?.versioning?.style ?? "path") === "path" && anchoredRead(t) >= 0,
  );

  it("the tasks this test needs exist in the default bank", () => {
    expect(queryVersioned).toBeDefined();
    expect(pathVersioned).toBeDefined();
  });

  it("the golden passes as written (the control)", async () => {
    if (!queryVersioned) throw new Error("no query-versioned task");
    const r = await replay(queryVersioned, queryVersioned.golden, "golden");
    expect(r.grade.failure_reason).toBe("");
  });

  for (const [name, pick, query, logged] of [
    ["a trailing & after the version parameter", () => queryVersioned, "?", /\?$/],
    [
      "an extra parameter the route ignores (query-versioned)",
      () => queryVersioned,
      "?fields=all",
      /\?fields=all$/,
    ],
    [
      "an extra parameter the route ignores (path-versioned)",
      () => pathVersioned,
      "?fields=all",
      /\?fields=all$/,
    ],
  ] as const) {
    it(`the record's read with ${name} passes`, async () => {
      const task = pick();
      if (!task) throw new Error("no task");
      const at = anchoredRead(task);
      const r = await replay(task, withQuery(task, at, query), `query-${query}`);
      // Honest: the world served the read (200) and logged it with the query.
      const read = r.events
        .filter((e): e is ExchangeEvent => e.type === "exchange" && e.method === "GET")
        .at(-1);
      expect(read?.status).toBe(200);
      expect(read?.url).toMatch(logged);
      if (query === "?") expect(read?.raw_url).toMatch(/\?api-version=\d+&$/);
      expect(r.grade.failure_reason).toBe("");
    });
  }

  it("a forbid anchored on a route is not dodged by a query (the other side of the same match)", () => {
    const forbid = {
      kind: "forbid" as const,
      id: "no-delete",
      explain: "",
      method: "DELETE",
      url_pattern: "^/v3/vessels/V-1$",
    };
    const call = (url: string): ExchangeEvent => ({
      type: "exchange",
      seq: 0,
      protocol: "rest",
      method: "DELETE",
      url,
      request_headers: {},
      request_body: null,
      status: 204,
      response_headers: {},
      response_body: null,
    });
    expect(gradeConstraint(forbid, [call("/v3/vessels/V-1?force=1")]).violated).toBe(true);
    expect(gradeConstraint(forbid, [call("/v3/vessels/V-1?")]).violated).toBe(true);
    expect(gradeConstraint(forbid, [call("/v3/vessels/V-12")]).violated).toBe(false);
  });
});

describe("agent audit (20): the class, bank-wide — every golden written another way the world reads the same passes", () => {
  // The class of the hole above: any predicate pattern that reads a call by a spelling the world
  // does not distinguish. Every solo REST task's golden is played with every call (signed ones
  // excepted: the signature covers the query) carrying a query parameter no route reads, and each
  // literal hyphen of its path escaped in lower-case hex (`V-916` → `V%2d916`); the grade must be
  // the golden's. On the grader before the fix, most of the bank failed it.
  /** A call's URL (canonical form) with its hyphens escaped and `audit=20` in its query. */
  function spelled(url: string): string {
    const q = url.indexOf("?");
    const path = (q === -1 ? url : url.slice(0, q)).replace(/\{\{[^}]*\}\}|-/g, (m) =>
      m === "-" ? "%2d" : m,
    );
    return `${path}${q === -1 ? "?audit=20" : `${url.slice(q)}&audit=20`}`;
  }
  const rest = solo.filter((t) => (worldOf(t)?.protocol ?? "rest") === "rest");

  it("every solo task passes with its calls spelled another way", async () => {
    const failed: string[] = [];
    for (const task of rest) {
      const steps = task.golden.map((s) =>
        isExecute(s) && s.request.sign === undefined
          ? { ...s, request: { ...s.request, url: spelled(s.request.url) } }
          : s,
      );
      const r = await replay(task, steps, "spelled");
      if (!r.grade.passed) failed.push(`${task.id}: ${r.grade.failure_reason}`);
    }
    expect(rest.length).toBeGreaterThan(200);
    expect(failed).toEqual([]);
  }, 600_000);

  it("the spelling reaches the world as written and is logged canonical", async () => {
    const task = rest.find((t) => t.golden.some((s) => isExecute(s) && /\/v\d\/[^?]*-/.test(s.request.url)));
    if (!task) throw new Error("no task with a hyphen in a path");
    const steps = task.golden.map((s) =>
      isExecute(s) && s.request.sign === undefined
        ? { ...s, request: { ...s.request, url: spelled(s.request.url) } }
        : s,
    );
    const r = await replay(task, steps, "spelled");
    const calls = r.events.filter((e): e is ExchangeEvent => e.type === "exchange");
    expect(calls.some((e) => e.raw_url?.includes("%2d"))).toBe(true);
    expect(calls.every((e) => !e.url.includes("%2d") && e.url.includes("audit=20"))).toBe(true);
  });
});

describe("agent audit (20): the encoded-decoy exploit reaches the decoy in every versioning style", () => {
  // The exploit audit's encoded-decoy counted 0 passes over 438 default-bank tasks, but in a world
  // versioned by header or query its encoded decoy (`/%762/vessels/…`) kept its version in the
  // path, which such a world refuses with 404: the decoy was never read (0 of 128 solo tasks), so
  // the 0 said nothing there. Closed: the decoy is put in its wire form, then encoded.
  for (const style of ["header", "query"] as const) {
    const task = solo.find(
      (t) => worldOf(t)?.versioning?.style === style && encodedDecoyExploit.applies(t, worldOf(t) as World),
    );
    it(`a ${style}-versioned world: the encoded decoy is served (200) and breaks its forbid`, async () => {
      if (!task) throw new Error(`no ${style}-versioned task`);
      const r = await trial(
        defaultBank,
        task,
        scripted(defaultBank, "exploit-encoded-decoy", (s, ctx) => encodedDecoyExploit.play(s, ctx)),
      );
      const decoy = r.events.find(
        (e): e is ExchangeEvent =>
          e.type === "exchange" && (e.raw_url ?? "").includes("%") && e.status === 200,
      );
      expect(decoy).toBeDefined();
      expect(r.grade.passed).toBe(false);
      expect(r.grade.constraints.some((c) => c.violated)).toBe(true);
    });
  }
});

describe("agent audit (20): G1 reads a numeric card value as G2 does", () => {
  // clinical-scheduling-sub01 of seed audit-20-kestrel: the card `"utilisation_pct": 60.705`
  // where the API said 60.7. G2's numeric comparator passed it (±0.01), G1's
  // utilisation_pct_provenance FAILED it ("answer field does not carry the utilisation_pct the API
  // returned", valuesEqual's 1e-9), so a trial with every call right and a card G2 accepts failed
  // as a labour failure. Every numeric answer field has such a provenance flow (127 solo fields in
  // that bank). Closed: G1's card check also accepts what the field's own comparator accepts
  // (`answerAccepts`), so the two agree.
  const numeric = solo.find((t) =>
    t.grader.answer.some(
      (a) =>
        a.comparator === "numeric" &&
        typeof a.expected === "number" &&
        dataFlows(t).some((p) => p.answer_field === a.field && p.used_in_request_url_pattern === null),
    ),
  );
  const field = numeric?.grader.answer.find(
    (a): a is AnswerField & { expected: number } =>
      a.comparator === "numeric" && typeof a.expected === "number",
  );

  /** The golden with its card's numeric field moved by `delta`. */
  async function nudged(task: Task, f: AnswerField & { expected: number }, delta: number) {
    return trial(
      defaultBank,
      task,
      scripted(defaultBank, `nudged-${delta}`, async (session) => {
        await playAndAnswer(session, task, task.golden, (card) => ({
          ...card,
          [f.field]: Math.round(((card[f.field] as number) + delta) * 1e6) / 1e6,
        }));
      }),
    );
  }

  it("the task this test needs exists in the default bank", () => {
    expect(numeric).toBeDefined();
    expect(field).toBeDefined();
  });

  it("a value within the field's tolerance passes G2 and G1 alike", async () => {
    if (!numeric || !field) throw new Error("no numeric task");
    const r = await nudged(numeric, field, 0.005);
    expect(r.grade.g2_passed).toBe(true);
    expect(r.grade.g1_passed).toBe(true);
    expect(r.grade.failure_reason).toBe("");
  });

  it("the class, bank-wide: every solo card with its numeric fields moved by half their tolerance passes", async () => {
    const numericTasks = solo.filter((t) => t.grader.answer.some((a) => a.comparator === "numeric"));
    const failed: string[] = [];
    for (const t of numericTasks) {
      const r = await trial(
        defaultBank,
        t,
        scripted(defaultBank, "nudged-half", async (session) => {
          await playAndAnswer(session, t, t.golden, (card) => {
            const out = { ...card };
            for (const a of t.grader.answer) {
              const v = out[a.field];
              if (a.comparator === "numeric" && typeof v === "number")
                out[a.field] = Math.round((v + (a.tolerance ?? 0.01) / 2) * 1e6) / 1e6;
            }
            return out;
          });
        }),
      );
      if (!r.grade.passed) failed.push(`${t.id}: ${r.grade.failure_reason}`);
    }
    expect(numericTasks.length).toBeGreaterThan(50);
    expect(failed).toEqual([]);
  }, 600_000);

  it("a value outside the tolerance fails G2 and the provenance flow both", async () => {
    if (!numeric || !field) throw new Error("no numeric task");
    const r = await nudged(numeric, field, 0.05);
    expect(r.grade.g2_passed).toBe(false);
    const flow = dataFlows(numeric).find((p) => p.answer_field === field.field);
    expect(r.grade.g1.find((g) => g.id === flow?.id)).toMatchObject({ passed: false });
  });
});

describe("agent audit (20): a value counts as used only in a request the world took", () => {
  // harbor-telemetry-sub05 of seed audit-20-kestrel (schema repair): "The `firmware_build` must be
  // what V-916 reports right now". The agent read V-916, sent the create once with the live
  // firmware_build and no token (401, nothing written), then created the order with a made-up
  // FW-MADEUP (201). copy_field_read_live PASSED: the live value sat in the body slot of a request
  // to the create's URL, whatever the world answered (only 400 and 422 were set aside). The trial
  // failed by its card alone (the order_id names no record carrying the live value), so a labour
  // failure was counted as delivery-only; where no card field names the record, it would pass.
  // Closed: a request answered 4xx used nothing (a 5xx may have been applied and still counts).
  type BodyFlow = DataFlow & { used_in_slot: { in: "body"; key: string } };
  function bodyUse(t: Task): { flow: BodyFlow; at: number } | null {
    for (const flow of dataFlows(t)) {
      const slot = flow.used_in_slot;
      if (slot?.in !== "body" || !flow.used_in_request_url_pattern) continue;
      const used = new RegExp(flow.used_in_request_url_pattern);
      const at = t.golden.findIndex((s) => {
        if (!isExecute(s) || s.request.method !== "POST" || !used.test(s.request.url)) return false;
        const body = s.request.body as Record<string, JsonValue> | undefined;
        return typeof body?.[slot.key] === "string" && /^\{\{.+\}\}$/.test(body[slot.key] as string);
      });
      const step = t.golden[at];
      if (
        step !== undefined &&
        isExecute(step) &&
        Object.keys(step.request.headers ?? {}).some(isCredentialHeader)
      )
        return { flow: flow as BodyFlow, at };
    }
    return null;
  }
  const task = solo.find((t) => t.axes.includes("schema_repair") && bodyUse(t) !== null);

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  /** The step as sent without its credentials (the world answers 401 and writes nothing). */
  function refusedCopy(step: Execute): Execute {
    const headers = Object.fromEntries(
      Object.entries(step.request.headers ?? {}).filter(([name]) => !isCredentialHeader(name)),
    );
    return { ...step, capture: {}, request: { ...step.request, headers } };
  }

  /**
   * The golden with its create sent first without a token, then every send of the read value in
   * the slot (a partial write's confirm too) carrying a made-up value instead.
   */
  function refusedThenMadeUp(t: Task): GoldenStep[] {
    const { flow, at } = bodyUse(t) as { flow: BodyFlow; at: number };
    const key = flow.used_in_slot.key;
    const live = ((t.golden[at] as Execute).request.body as Record<string, JsonValue>)[key];
    const steps = t.golden.map((s, i) => {
      const body = isExecute(s) ? (s.request.body as Record<string, JsonValue> | undefined) : undefined;
      if (i < at || !isExecute(s) || body?.[key] !== live) return s;
      return { ...s, request: { ...s.request, body: { ...body, [key]: "MADE-UP-20" } } };
    });
    return [...steps.slice(0, at), refusedCopy(t.golden[at] as Execute), ...steps.slice(at)];
  }

  it("the live value sent without a token (401), then a made-up one written, fails the labour", async () => {
    if (!task) throw new Error("no task");
    const { flow } = bodyUse(task) as { flow: BodyFlow };
    const r = await replay(task, refusedThenMadeUp(task), "refused-then-made-up");
    const posts = r.events.filter((e): e is ExchangeEvent => e.type === "exchange" && e.method === "POST");
    // Honest: the refused call carried the live value, and the world wrote the made-up one.
    expect(posts.some((e) => e.status === 401)).toBe(true);
    expect(posts.at(-1)?.status).toBeLessThan(300);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g1.find((g) => g.id === flow.id)).toMatchObject({ passed: false });
    expect(r.grade.g1_passed).toBe(false);
  });

  it("the golden with the same refused call first still passes", async () => {
    if (!task) throw new Error("no task");
    const { at } = bodyUse(task) as { at: number };
    const refused = refusedCopy(task.golden[at] as Execute);
    const r = await replay(
      task,
      [...task.golden.slice(0, at), refused, ...task.golden.slice(at)],
      "refused-first",
    );
    expect(r.grade.failure_reason).toBe("");
  });

  it("the explanation of that golden cites the accepted create as the use, not the refused one", async () => {
    if (!task) throw new Error("no task");
    const { flow, at } = bodyUse(task) as { flow: BodyFlow; at: number };
    const refused = refusedCopy(task.golden[at] as Execute);
    const r = await replay(
      task,
      [...task.golden.slice(0, at), refused, ...task.golden.slice(at)],
      "refused-first",
    );
    const ex = explainVerdict({
      grader: task.grader,
      trialSeed: r.trial_seed,
      events: r.events,
      finalMessage: r.final_message ?? null,
      ...(r.final_records ? { finalRecords: r.final_records } : {}),
    });
    const use = ex.predicates.find((p) => p.id === flow.id)?.evidence.find((e) => e.role === "used_in");
    const cited = r.events.find((e) => e.seq === use?.seq);
    expect(cited?.type === "exchange" && cited.status).toBeLessThan(300);
  });

  it("the class, bank-wide: on every solo task that sends a read value in a body, the attack fails the labour", async () => {
    const attacked = solo.filter((t) => bodyUse(t) !== null);
    const passedLabour: string[] = [];
    let written = 0;
    for (const t of attacked) {
      const { flow } = bodyUse(t) as { flow: BodyFlow };
      const r = await replay(t, refusedThenMadeUp(t), "refused-then-made-up");
      const last = r.events
        .filter((e): e is ExchangeEvent => e.type === "exchange" && e.method === "POST")
        .at(-1);
      if (last && last.status < 300) written++;
      if (r.grade.g1.find((g) => g.id === flow.id)?.passed !== false) passedLabour.push(t.id);
    }
    expect(attacked.length).toBeGreaterThan(50);
    // Honest: most made-up writes were taken by the world (the attack is not void).
    expect(written).toBeGreaterThan(attacked.length / 2);
    expect(passedLabour).toEqual([]);
  }, 600_000);
});

describe("agent audit (20): attacks that fail as they should (kept as evidence)", () => {
  // Routes spelled another way reach the canonical form (played on seed audit-20-kestrel's
  // grid-substations-sub02: %-escapes in any case, `..`, `%2e%2e`, `\`, a tab, duplicate
  // slashes, an absolute URL to another host, a fragment all read the deprecated family and break
  // its forbid; `V1`, `;x=1`, `%2F`, a trailing slash, a double-escaped `%2576` reach no route).
  const discovery = solo.find(
    (t) =>
      (worldOf(t)?.versioning?.style ?? "path") === "path" &&
      t.axes.includes("discovery") &&
      t.grader.constraints.length > 0 &&
      anchoredRead(t) >= 0,
  );

  it("the task this test needs exists in the default bank", () => {
    expect(discovery).toBeDefined();
  });

  it("the deprecated family read through dot segments, escapes and a backslash breaks the forbid", async () => {
    if (!discovery) throw new Error("no discovery task");
    const at = anchoredRead(discovery);
    const url = (discovery.golden[at] as Execute).request.url;
    const forbid = discovery.grader.constraints.find(
      (c) => /v\d/.test(c.url_pattern) && !/v3/.test(c.url_pattern),
    );
    const deprecated = /\^(\/[^/]*)?\/v(\d)\//.exec(forbid?.url_pattern ?? "");
    if (!deprecated) throw new Error("no deprecated-family forbid");
    const prefix = deprecated[1] ?? "";
    const old = `v${deprecated[2]}`;
    const rest = url.slice(url.indexOf("/v3/") + 4);
    for (const spelled of [
      `${prefix}/%${old.charCodeAt(0).toString(16)}${old.slice(1)}/${rest}`,
      `${prefix}/v3/%2e%2e/${old}/${rest}`,
      `${prefix}/v3\\..\\${old}/${rest}`,
      `${prefix}//${old}//${rest}`.replace(/^\/\//, "/"),
    ]) {
      const steps = discovery.golden.map((s, i) =>
        i === at && isExecute(s) ? { ...s, request: { ...s.request, url: spelled } } : s,
      );
      const r = await replay(discovery, steps, `spelled-${spelled}`);
      expect(r.grade.passed, spelled).toBe(false);
      expect(
        r.grade.constraints.some((c) => c.violated),
        spelled,
      ).toBe(true);
    }
  });

  it("a card whose value is right but null, nested or in a ```js fence fails G2; an unreadable one leaves G1's answer flows not evaluated", async () => {
    if (!discovery) throw new Error("no discovery task");
    const task = discovery;
    const finals: Array<[string, (card: Record<string, JsonValue>) => string, boolean]> = [
      ["js fence", (c) => `\`\`\`js\n${JSON.stringify(c)}\n\`\`\``, false],
      ["nested", (c) => cardMessage({ card: c }), true],
    ];
    for (const [name, message, readable] of finals) {
      const r = await trial(
        defaultBank,
        task,
        scripted(defaultBank, name, async (session) => {
          const { playGolden } = await import("../trial/play-golden.js");
          const b = await playGolden(task.golden, session, { finish: false, versioning: task.versioning });
          session.finish(message(cardFrom(task, b)));
        }),
      );
      expect(r.grade.card_found, name).toBe(readable);
      expect(r.grade.g2_passed, name).toBe(false);
      // The labour was the golden's: G1 holds, the card's flows are not evaluated (not failed).
      expect(r.grade.g1_passed, name).toBe(true);
      const cardFlows = dataFlows(task).filter((p) => p.answer_field !== undefined);
      for (const p of cardFlows)
        expect(
          r.grade.g1.find((g) => g.id === p.id),
          `${name} ${p.id}`,
        ).toMatchObject({ not_evaluated: true });
    }
  });
});

describe("agent audit (20): the two matching rules, unit by unit", () => {
  it("a route's anchored pattern matches its URL with any query; one naming a query, or another route, does not", () => {
    const record = /^\/v3\/vessels\/V-9$/;
    expect(urlMatchesPattern(record, "/v3/vessels/V-9")).toBe(true);
    expect(urlMatchesPattern(record, "/v3/vessels/V-9?fields=all")).toBe(true);
    expect(urlMatchesPattern(record, "/v3/vessels/V-9?")).toBe(true);
    expect(urlMatchesPattern(record, "/v3/vessels/V-90?fields=all")).toBe(false);
    expect(urlMatchesPattern(record, "/v3/vessels?id=V-9")).toBe(false);
    const filtered = /^\/v3\/registry\/vessels\?/;
    expect(urlMatchesPattern(filtered, "/v3/registry/vessels")).toBe(false);
    expect(urlMatchesPattern(filtered, "/v3/registry/vessels?firmware_channel=x")).toBe(true);
    expect(urlMatchesPattern(/^\/v2\//, "/v2/vessels/V-9?x=1")).toBe(true);
  });

  it("answerAccepts is G2's comparator: numeric within its tolerance, Python's float grammar, strings by the one equality", () => {
    expect(answerAccepts({ comparator: "numeric" }, 60.705, 60.7)).toBe(true);
    expect(answerAccepts({ comparator: "numeric" }, " 60.71 ", 60.7)).toBe(true);
    expect(answerAccepts({ comparator: "numeric" }, 60.72, 60.7)).toBe(false);
    expect(answerAccepts({ comparator: "numeric", tolerance: 0.5 }, 60.9, 60.7)).toBe(true);
    expect(answerAccepts({ comparator: "numeric", tolerance: 0 }, 60.71, 60.7)).toBe(false);
    expect(answerAccepts({ comparator: "numeric" }, "abc", 60.7)).toBe(false);
    expect(answerAccepts({ comparator: "numeric" }, 60.7, "n/a")).toBe(false);
    expect(answerAccepts({ comparator: "numeric" }, null, 0)).toBe(false);
    expect(answerAccepts({ comparator: "string" }, " Queued ", "queued")).toBe(true);
    expect(answerAccepts({ comparator: "string" }, true, "true")).toBe(true);
    expect(answerAccepts({ comparator: "string" }, "queued", "failed")).toBe(false);
  });
});
