import { describe, expect, it } from "vitest";
import { client } from "../../test/support/world-test-helpers.js";
import type { Route, World } from "../bank/world-schema.js";
import type { HintLevel } from "./reply.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** A workflow of states (issue 16): only allowed transitions move a record; the world stamps some states. */
const base = {
  status: "canonical" as const,
  auth_required: false,
  scopes: [],
  documented: true,
  view: { omit_fields: [], overrides: {} },
  required_fields: [],
  defaults: {},
  headers: {},
  version: "v1",
  summary: "",
  resource: "requests",
};
const world: World = {
  id: "flow",
  title: "Flow",
  description: "change requests",
  base_url: "http://localhost:1",
  auth: {
    type: "oauth2_client_credentials",
    token_path: "/token",
    client_id: "c",
    client_secret: "s",
    token_prefix: "tk_",
    ttl_calls: 100,
    scopes: [],
  },
  resources: {
    requests: {
      id_field: "request_id",
      id_template: "{canary}",
      fields: { request_id: { type: "string", description: "" }, state: { type: "string", description: "" } },
      records: [
        { request_id: "CR-1", state: "draft", review_ref: null },
        { request_id: "CR-2", state: "closed", review_ref: null },
      ],
    },
  },
  routes: [
    { ...base, id: "get", method: "GET", path: "/v1/requests/{request_id}", action: "get" },
    {
      ...base,
      id: "move",
      method: "PATCH",
      path: "/v1/requests/{request_id}",
      action: "update",
      workflow: {
        field: "state",
        transitions: { draft: ["submitted"], submitted: ["in_review"], in_review: ["approved"], closed: [] },
        on_enter: {
          in_review: { after_seconds: 1, mint: { review_ref: "RV-{code}" } },
          approved: { mint: { approval_code: "AP-{code}" } },
        },
      },
    },
  ] as Route[],
};

function calls(level: HintLevel = "full") {
  const trial = new TrialWorld(world, "seed-flow");
  trial.hints = level;
  return { trial, call: client(inProcessTransport(trial)) };
}

describe("a workflow of states", () => {
  it("refuses a move no transition allows, with 409 invalid_transition naming the allowed ones", async () => {
    const { call, trial } = calls();
    const r = await call("PATCH", "/v1/requests/CR-1", { body: { state: "approved" } });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({
      error: "invalid_transition",
      from: "draft",
      to: "approved",
      allowed: ["submitted"],
    });
    expect(r.body.message).toContain("may move to: submitted");
    expect(trial.resource("requests")[0]?.state).toBe("draft");
  });

  it("at a hard task's level says what was refused, not which moves are allowed", async () => {
    const { call } = calls("terse");
    const r = await call("PATCH", "/v1/requests/CR-1", { body: { state: "approved" } });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({
      error: "invalid_transition",
      message: "requests CR-1 is draft and cannot move to approved",
      from: "draft",
      to: "approved",
    });
  });

  it("moves one allowed step at a time; a final state moves nowhere; a patch that keeps the state is no move", async () => {
    const { call } = calls();
    for (const state of ["submitted", "in_review", "approved"])
      expect((await call("PATCH", "/v1/requests/CR-1", { body: { state } })).status).toBe(200);
    const closed = await call("PATCH", "/v1/requests/CR-2", { body: { state: "draft" } });
    expect(closed.body).toMatchObject({ error: "invalid_transition", allowed: [] });
    expect((await call("PATCH", "/v1/requests/CR-2", { body: { state: "closed", note: "x" } })).status).toBe(
      200,
    );
  });

  it("changes a record between reads: a value the world stamps later is in a later read, not in the write's reply", async () => {
    const { call } = calls();
    await call("PATCH", "/v1/requests/CR-1", { body: { state: "submitted" } });
    const moved = await call("PATCH", "/v1/requests/CR-1", { body: { state: "in_review" } });
    expect(moved.body.review_ref).toBeNull();
    const reread = await call("GET", "/v1/requests/CR-1");
    expect(reread.body.review_ref).toMatch(/^RV-/);
    // Stamped with the write itself: the approval's reply carries it.
    const approved = await call("PATCH", "/v1/requests/CR-1", { body: { state: "approved" } });
    expect(approved.body.approval_code).toMatch(/^AP-/);
    expect(approved.body.review_ref).toBe(reread.body.review_ref);
  });

  it("is deterministic per seed and survives a fork", async () => {
    const a = calls();
    const b = calls();
    for (const c of [a, b]) {
      await c.call("PATCH", "/v1/requests/CR-1", { body: { state: "submitted" } });
      await c.call("PATCH", "/v1/requests/CR-1", { body: { state: "in_review" } });
    }
    const fork = a.trial.fork();
    const fromFork = await client(inProcessTransport(fork))("GET", "/v1/requests/CR-1");
    const fromA = await a.call("GET", "/v1/requests/CR-1");
    const fromB = await b.call("GET", "/v1/requests/CR-1");
    expect(fromA.body.review_ref).toBe(fromB.body.review_ref);
    expect(fromFork.body.review_ref).toBe(fromA.body.review_ref);
  });
});

describe("a text search ranked by a field (decoys listed first)", () => {
  const search: World = {
    ...world,
    resources: {
      boats: {
        id_field: "boat_id",
        id_template: "{canary}",
        fields: {},
        records: [
          { boat_id: "B1", name: "Atlas", length: 12.5 },
          { boat_id: "B2", name: "Borealis", length: 30.1 },
          { boat_id: "B3", name: "Atlas 2", length: 20.2 },
          { boat_id: "B4", name: "atlas 3", length: 12.5 },
        ],
      },
    },
    routes: [
      {
        ...base,
        resource: "boats",
        id: "search",
        method: "GET",
        path: "/v1/search/boats",
        action: "list",
        sort: { field: "length", order: "desc" },
        query_params: [{ name: "name", filter_field: "name", match: "contains" }],
      },
    ] as Route[],
  };

  it("matches text in any case and ranks by the field, ties in record order, so a namesake comes first", async () => {
    const call = client(inProcessTransport(new TrialWorld(search, "s")));
    const r = await call("GET", "/v1/search/boats?name=Atlas");
    expect(r.body.boats.map((b: { boat_id: string }) => b.boat_id)).toEqual(["B3", "B1", "B4"]);
  });

  it("keeps an exact match exact where the parameter does not say contains", async () => {
    const exact = {
      ...search,
      routes: search.routes.map((r) => ({ ...r, query_params: [{ name: "name", filter_field: "name" }] })),
    };
    const call = client(inProcessTransport(new TrialWorld(exact, "s")));
    const r = await call("GET", "/v1/search/boats?name=Atlas");
    expect(r.body.boats.map((b: { boat_id: string }) => b.boat_id)).toEqual(["B1"]);
  });
});
