import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bank/json.js";
import type { G1Predicate } from "../bank/task-schema.js";
import { EventLog } from "../world/event-log.js";
import { gradeG1Predicate } from "./grade-g1.js";

// Issue 15, legitimate variants: a careful agent may read the record the ticket names through
// another canonical route (its collection's listing, a nested read). A data flow's `also_from`
// takes the record's value from there too — only the record's own item, only on the routes listed.

const SEED = "seed-other-sources";

function events(
  ...exchanges: Array<{
    method?: string;
    url: string;
    headers?: Record<string, string>;
    response?: JsonValue;
  }>
) {
  const log = new EventLog();
  for (const e of exchanges)
    log.append({
      type: "exchange",
      protocol: "rest",
      method: e.method ?? "GET",
      url: e.url,
      request_headers: e.headers ?? {},
      request_body: null,
      status: 200,
      response_headers: {},
      response_body: e.response ?? {},
    });
  return log.events;
}

const LISTING = {
  vessels: [
    { vessel_id: "V-204", berth: "B-1" },
    { vessel_id: "V-311", berth: "B-7" },
  ],
  total: 2,
};

const berth: G1Predicate = {
  kind: "data_flow",
  id: "berth_read",
  explain: "",
  from_response_url_pattern: "^/v3/vessels/V-311$",
  from_status: 200,
  from_body_key: "berth",
  answer_field: "berth",
  must_be_stored: false,
  used_in_request_url_pattern: null,
  also_from: [
    {
      url_pattern: "^/v3/vessels(\\?.*)?$",
      status: 200,
      body_key: "vessels.berth",
      where: { vessel_id: "V-311" },
    },
    {
      url_pattern: "^/v3/vessels/V-311/audit(\\?.*)?$",
      status: 200,
      body_key: "berth",
      where: { vessel_id: "V-311" },
    },
  ],
};

const grade = (p: G1Predicate, log: ReturnType<typeof events>, card: Record<string, unknown>) =>
  gradeG1Predicate(p, log, card, SEED);

describe("a data flow with other sources", () => {
  it("takes the record's value from its item in the listing, or from a nested read of it", () => {
    const listed = events({ url: "/v3/vessels?page=1", response: LISTING });
    expect(grade(berth, listed, { berth: "B-7" })).toMatchObject({ passed: true, value: "B-7" });
    const nested = events({ url: "/v3/vessels/V-311/audit", response: { vessel_id: "V-311", berth: "B-7" } });
    expect(grade(berth, nested, { berth: "B-7" })).toMatchObject({ passed: true });
  });

  it("refuses another record's item in the same listing, and a route it does not list", () => {
    const listed = events({ url: "/v3/vessels", response: LISTING });
    expect(grade(berth, listed, { berth: "B-1" })).toMatchObject({
      passed: false,
      reason: "answer field 'berth' does not carry the berth the API returned",
    });
    const decoy = events({ url: "/v2/vessels/V-311", response: { vessel_id: "V-311", berth: "B-7" } });
    expect(grade(berth, decoy, { berth: "B-7" })).toMatchObject({
      passed: false,
      reason: "no response from /^/v3/vessels/V-311$/ with status 200",
    });
    // Without its other sources the same grader fails the listing read: the control.
    const { also_from: _others, ...ownRouteOnly } = berth as Extract<G1Predicate, { kind: "data_flow" }>;
    expect(
      grade(ownRouteOnly, events({ url: "/v3/vessels", response: LISTING }), { berth: "B-7" }),
    ).toMatchObject({
      passed: false,
    });
  });

  it("counts a token sent on another read of the record (also_used_in), not on an unrelated call", () => {
    const token: G1Predicate = {
      kind: "data_flow",
      id: "fresh_token_used",
      explain: "",
      from_response_url_pattern: "^/oauth/token$",
      from_status: 200,
      from_body_key: "access_token",
      must_be_stored: false,
      used_in_request_url_pattern: "^/v3/vessels/V-311$",
      used_in_slot: { in: "header", name: "authorization" },
      also_used_in: ["^/v3/vessels(\\?.*)?$"],
    };
    const mint = { method: "POST", url: "/oauth/token", response: { access_token: "tk-fresh" } };
    const auth = { authorization: "Bearer tk-fresh" };
    expect(grade(token, events(mint, { url: "/v3/vessels?page=1", headers: auth }), {})).toMatchObject({
      passed: true,
    });
    expect(grade(token, events(mint, { url: "/v3/maintenance-orders", headers: auth }), {})).toMatchObject({
      passed: false,
    });
  });
});
