import { describe, expect, it } from "vitest";
import { trialLog } from "../../test/support/trial-log.js";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate, UseSlot } from "../bank/task-schema.js";
import { gradeG1Predicate } from "./grade-g1.js";

/**
 * The log index's stores and uses, read through data flows (issue 21: mutation testing of
 * grade-g1.ts's index): where a value counts as stored, which requests count as its later use (in
 * a slot or, for a grader from before slots, anywhere), and the reasons a data flow fails with.
 */

type Event =
  | {
      method?: string;
      url: string;
      headers?: Record<string, string>;
      body?: JsonValue;
      status?: number;
      response?: JsonValue;
    }
  | { scope: "vault" | "local" | "global"; name: string; value: JsonValue };

/** A log opening with the listing the value comes from (`GET /v3/assets`), then the events. */
function log(listed: JsonValue, ...events: Event[]) {
  return logFrom({ url: "/v3/assets", response: { assets: [{ id: listed }] } }, ...events);
}

function logFrom(...events: Event[]) {
  const l = trialLog();
  for (const e of events)
    if ("scope" in e) l.store(e.name, e.value, e.scope);
    else l.call(e.method ?? "GET", e.url, e.status ?? 200, e.response ?? {}, e.body ?? null, e.headers ?? {});
  return l.events();
}

const USED = "^/v3/(assets|work)(/[^/]+)?(\\?.*)?$";

/** The listed id used in a later request to /v3/work or /v3/assets (in `slot`, or anywhere without one). */
const flow = (slot?: UseSlot, used = USED): G1Predicate => ({
  kind: "data_flow",
  id: "listed_id_used",
  explain: "",
  from_response_url_pattern: "^/v3/assets(\\?.*)?$",
  from_status: 200,
  from_body_key: "assets.id",
  must_be_stored: false,
  used_in_request_url_pattern: used,
  ...(slot ? { used_in_slot: slot } : {}),
});

/** The listed id stored in a variable after the listing (no later use asked). */
const stored: G1Predicate = {
  kind: "data_flow",
  id: "listed_id_stored",
  explain: "",
  from_response_url_pattern: "^/v3/assets(\\?.*)?$",
  from_status: 200,
  from_body_key: "assets.id",
  must_be_stored: true,
  used_in_request_url_pattern: null,
};

const grade = (p: G1Predicate, events: ReturnType<typeof log>) => gradeG1Predicate(p, events, null, "seed");
const passes = (p: G1Predicate, events: ReturnType<typeof log>) => grade(p, events).passed;

describe("stored in a variable", () => {
  it("a plain value, or the value inside a stored list or object, counts", () => {
    expect(passes(stored, log("A-7", { scope: "local", name: "id", value: "A-7" }))).toBe(true);
    expect(passes(stored, log("A-7", { scope: "local", name: "ids", value: ["A-1", "A-7"] }))).toBe(true);
    expect(
      passes(stored, log("A-7", { scope: "global", name: "asset", value: { name: "x", id: "A-7" } })),
    ).toBe(true);
  });

  it("the task's vault is not the agent's store; a longer string holding the value is another value", () => {
    expect(grade(stored, log("A-7", { scope: "vault", name: "id", value: "A-7" }))).toEqual({
      id: "listed_id_stored",
      kind: "data_flow",
      explain: "",
      passed: false,
      reason: "the assets.id from the response was not stored in a variable",
    });
    expect(passes(stored, log("7", { scope: "local", name: "note", value: "A-7" }))).toBe(false);
  });

  it("a null stored first is skipped, not read into", () => {
    const events = log(
      "A-7",
      { scope: "local", name: "none", value: null },
      { scope: "local", name: "id", value: "A-7" },
    );
    expect(passes(stored, events)).toBe(true);
  });
});

describe("used later, without a slot (a grader from before slots): anywhere in the request", () => {
  it("inside a longer body string (the JSON text, without the value's quotes)", () => {
    expect(passes(flow(), log("A-7", { method: "POST", url: "/v3/work", body: { note: "see A-7" } }))).toBe(
      true,
    );
  });

  it("a number only where it is written: a request holding neither it nor its digits fails", () => {
    expect(passes(flow(), log(42, { method: "POST", url: "/v3/work", body: { n: 7 } }))).toBe(false);
    expect(passes(flow(), log(42, { method: "POST", url: "/v3/work", body: { n: 42 } }))).toBe(true);
  });

  it("in the URL as written, or URI-encoded", () => {
    expect(passes(flow(), log("PRJ/7", { url: "/v3/work?ref=PRJ/7" }))).toBe(true);
    expect(passes(flow(), log("PRJ 7", { url: "/v3/work?ref=PRJ%207" }))).toBe(true);
    expect(passes(flow(), log("PRJ 7", { url: "/v3/work?ref=PRJ-7" }))).toBe(false);
  });

  it("a request without a body carries nothing in its body (not the text null, not a letter)", () => {
    expect(passes(flow(), log("null", { url: "/v3/work" }))).toBe(false);
    expect(passes(flow(), log("S", { url: "/v3/work" }))).toBe(false);
  });

  it("the listing's own request is not a later use, though it carries the value", () => {
    const events = logFrom(
      { url: "/v3/assets?q=A-7", response: { assets: [{ id: "A-7" }] } },
      { url: "/v3/work" },
    );
    expect(passes(flow(), events)).toBe(false);
    expect(passes(flow({ in: "query", name: "q" }), events)).toBe(false);
    const used = logFrom(
      { url: "/v3/assets?q=A-7", response: { assets: [{ id: "A-7" }] } },
      { url: "/v3/work?q=A-7" },
    );
    expect(passes(flow({ in: "query", name: "q" }), used)).toBe(true);
  });
});

describe("used later, in a slot", () => {
  it("only in a request to the pattern's URLs", () => {
    const slot: UseSlot = { in: "query", name: "asset" };
    expect(passes(flow(slot, "^/v3/work(\\?.*)?$"), log("A-7", { url: "/v3/audit?asset=A-7" }))).toBe(false);
    expect(passes(flow(slot, "^/v3/work(\\?.*)?$"), log("A-7", { url: "/v3/work?asset=A-7" }))).toBe(true);
  });

  it("a request the API refused (any 4xx) used nothing; a 2xx or a 5xx (maybe applied) counts", () => {
    const slot: UseSlot = { in: "body", key: "asset_id" };
    const post = (status: number) =>
      log("A-7", { method: "POST", url: "/v3/work", body: { asset_id: "A-7" }, status });
    for (const refused of [400, 401, 403, 404, 409, 422, 429, 499])
      expect(passes(flow(slot), post(refused)), String(refused)).toBe(false);
    for (const counted of [200, 201, 202, 204, 500, 503])
      expect(passes(flow(slot), post(counted)), String(counted)).toBe(true);
  });

  it("a header: the value whole passes; another value, after a scheme or redacted, fails", () => {
    const token = { ...flow({ in: "header", name: "X-Asset" }) } as G1Predicate;
    const withHeader = (h: string) => log("A-7", { url: "/v3/work", headers: { "x-asset": h } });
    expect(passes(token, withHeader("A-7"))).toBe(true);
    expect(passes(token, withHeader("Bearer A-7"))).toBe(true);
    expect(passes(token, withHeader(`Bearer <redacted:${sha256Hex("A-7").slice(0, 8)}>`))).toBe(true);
    expect(passes(token, withHeader("A-9"))).toBe(false);
    expect(passes(token, withHeader("Bearer A-9"))).toBe(false);
    expect(passes(token, withHeader(`Bearer <redacted:${sha256Hex("A-9").slice(0, 8)}>`))).toBe(false);
  });
});

describe("the reason a data flow's use fails with names its slot", () => {
  const reason = (slot?: UseSlot) => grade(flow(slot), log("A-7", { url: "/v3/work" })).reason;
  const unused = `the assets.id was not used in a later request to /${USED}/`;

  it("anywhere, the path, a query parameter, a body key, a header", () => {
    expect(reason()).toBe(unused);
    expect(reason({ in: "path" })).toBe(`${unused} in its path`);
    expect(reason({ in: "query", name: "asset" })).toBe(`${unused} in its query parameter asset`);
    expect(reason({ in: "body", key: "asset_id" })).toBe(`${unused} in its body at asset_id`);
    expect(reason({ in: "header", name: "X-Asset" })).toBe(`${unused} in its X-Asset header`);
  });
});
