import { describe, expect, it } from "vitest";
import { sha256Hex } from "../bank/canonical-json.js";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate, UseSlot } from "../bank/task-schema.js";
import { mintCanary } from "../world/canary.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

// Classes 2 and 3 of issue 20: a value counts only in its slot; a write is checked on what it sent,
// on its record. Each case beside its dodge and a correct request written another way.

const SEED = "seed-slots";

function events(
  ...requests: Array<{
    method?: string;
    url: string;
    body?: JsonValue;
    headers?: Record<string, string>;
    status?: number;
    response?: JsonValue;
  }>
) {
  const log = new EventLog();
  log.append({
    type: "exchange",
    protocol: "rest",
    method: "GET",
    url: "/v3/assets?page=1",
    request_headers: {},
    request_body: null,
    status: 200,
    response_headers: {},
    response_body: { assets: [{ id: "A-1" }, { id: "A-7" }], token: "tok-9" },
  });
  for (const r of requests)
    log.append({
      type: "exchange",
      protocol: "rest",
      method: r.method ?? "GET",
      url: r.url,
      request_headers: r.headers ?? {},
      request_body: r.body ?? null,
      status: r.status ?? 200,
      response_headers: {},
      response_body: r.response ?? {},
    });
  return log.events;
}

const use = (slot: UseSlot, usedIn = "^/v3/(assets|work)(/[^/]+)?(\\?.*)?$"): G1Predicate => ({
  kind: "data_flow",
  id: "listed_id_used",
  explain: "",
  from_response_url_pattern: "^/v3/assets(\\?.*)?$",
  from_status: 200,
  from_body_key: "assets.id",
  must_be_stored: false,
  used_in_request_url_pattern: usedIn,
  used_in_slot: slot,
});

const passes = (p: G1Predicate, evs: ReturnType<typeof events>) =>
  gradeG1Predicate(p, evs, null, SEED).passed;

describe("values in their slot", () => {
  it("path: the id as a path segment passes, also written encoded (as the log canonicalises it)", () => {
    expect(passes(use({ in: "path" }), events({ url: "/v3/assets/A-7" }))).toBe(true);
    // A segment is compared as the value it carries (decoded), so a log from before canonical URLs agrees.
    expect(passes(use({ in: "path" }), events({ url: "/v3/assets/A%2D7" }))).toBe(true);
    expect(passes(use({ in: "path" }), events({ url: "/v3/assets/a%2F7x" }))).toBe(false);
  });

  it("path: the dodge — another record read, the listed id in an X-Request-Id header — fails", () => {
    const dodge = events({ url: "/v3/assets/A-9", headers: { "x-request-id": "A-7" } });
    expect(passes(use({ in: "path" }), dodge)).toBe(false);
    expect(passes(use({ in: "path" }), events({ url: "/v3/assets/A-9?note=A-7" }))).toBe(false);
  });

  it("query: the named parameter, decoded, passes; the value in another parameter does not", () => {
    const slot: UseSlot = { in: "query", name: "asset" };
    expect(passes(use(slot), events({ url: "/v3/work?asset=A%2D7&x=1" }))).toBe(true);
    expect(passes(use(slot), events({ url: "/v3/work?other=A-7" }))).toBe(false);
  });

  it("body: the field at its key passes, whatever else the body holds; the value in another field does not", () => {
    const slot: UseSlot = { in: "body", key: "asset_id" };
    expect(
      passes(use(slot), events({ method: "POST", url: "/v3/work", body: { note: "x", asset_id: "A-7" } })),
    ).toBe(true);
    // The world keeps what was sent: ` a-7 ` names no record.
    expect(
      passes(use(slot), events({ method: "POST", url: "/v3/work", body: { note: "x", asset_id: " a-7 " } })),
    ).toBe(false);
    expect(
      passes(use(slot), events({ method: "POST", url: "/v3/work", body: { asset_id: "A-9", note: "A-7" } })),
    ).toBe(false);
    expect(
      passes(
        use(slot),
        events({
          method: "POST",
          url: "/v3/work",
          body: { asset_id: "A-9" },
          headers: { "x-request-id": "A-7" },
        }),
      ),
    ).toBe(false);
  });

  it("header: the named header, whole, after a scheme, or through the log's redaction digest", () => {
    const token = { ...use({ in: "header", name: "Authorization" }), from_body_key: "token" } as G1Predicate;
    expect(passes(token, events({ url: "/v3/assets/A-1", headers: { authorization: "Bearer tok-9" } }))).toBe(
      true,
    );
    const redacted = `Bearer <redacted:${sha256Hex("tok-9").slice(0, 8)}>`;
    expect(passes(token, events({ url: "/v3/assets/A-1", headers: { authorization: redacted } }))).toBe(true);
    expect(passes(token, events({ url: "/v3/assets/A-1", headers: { "x-token": "tok-9" } }))).toBe(false);
  });

  it("without a slot (a grader from before slots) the value anywhere still counts: the hole certification refuses", () => {
    const { used_in_slot: _s, ...legacy } = use({ in: "path" }) as Extract<
      G1Predicate,
      { kind: "data_flow" }
    >;
    expect(passes(legacy, events({ url: "/v3/assets/A-9", headers: { "x-request-id": "A-7" } }))).toBe(true);
  });
});

describe("write checks read what was sent, on the target record", () => {
  const wid = { $canary: "work:id#1", format: "WO-{code}" };
  const id = mintCanary(SEED, wid);
  const close: G1Predicate = {
    kind: "call",
    id: "closed",
    explain: "",
    method: "PATCH",
    url_pattern: "^/v3/work/[^/]+$",
    target: wid,
    status: 200,
    body_has_keys: [],
    sent: { status: "closed" },
  };
  const patch = (url: string, body: JsonValue) =>
    events({ method: "PATCH", url, body, response: { id, status: "open", copy: "x" } });

  it("the update sending the value to the record passes, also with other fields", () => {
    expect(passes(close, patch(`/v3/work/${id}`, { status: "closed" }))).toBe(true);
    expect(passes(close, patch(`/v3/work/${id}`, { note: "done", status: "closed" }))).toBe(true);
  });

  // The world stores what was sent: ` Closed` is another status, and an id in another case names
  // no record (agent audit jan).
  it("the value sent in another case or spacing, or the record named in another case, fails", () => {
    expect(passes(close, patch(`/v3/work/${id}`, { status: " Closed" }))).toBe(false);
    expect(passes(close, patch(`/v3/work/${id.toLowerCase()}`, { status: "closed" }))).toBe(false);
  });

  it("the empty update, another value, or the right update on another record fails", () => {
    expect(passes(close, patch(`/v3/work/${id}`, {}))).toBe(false);
    expect(passes(close, patch(`/v3/work/${id}`, { status: "open" }))).toBe(false);
    expect(passes(close, patch("/v3/work/WO-OTHER1", { status: "closed" }))).toBe(false);
  });

  it("the old check on the response's echo passes the empty update (the hole)", () => {
    const { target: _t, sent: _s, ...rest } = close as Extract<G1Predicate, { kind: "call" }>;
    const echo: G1Predicate = { ...rest, body_has_keys: ["status"] };
    expect(passes(echo, patch("/v3/work/WO-OTHER1", {}))).toBe(true);
  });
});
