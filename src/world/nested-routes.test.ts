import { describe, expect, it } from "vitest";
import { client } from "../../test/support/world-test-helpers.js";
import type { World } from "../bank/world-schema.js";
import { convertStep } from "./protocol-step.js";
import { serveRoute } from "./serve-route.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/** Nested sub-resources and a derived balance (issue 16 item 3: ledger and nested archetypes). */
const world: World = {
  id: "ledger",
  title: "Ledger",
  description: "accounts and their entries",
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
    accounts: {
      id_field: "account_id",
      id_template: "{canary}",
      fields: { account_id: { type: "string", description: "" } },
      records: [{ account_id: "A1" }, { account_id: "A2" }],
    },
    entries: {
      id_field: "entry_id",
      id_template: "E-{seq}",
      fields: {
        entry_id: { type: "string", description: "" },
        account_id: { type: "string", description: "" },
        amount: { type: "number", description: "" },
      },
      records: [
        { entry_id: "E1", account_id: "A1", amount: 10.5 },
        { entry_id: "E2", account_id: "A1", amount: -3.25 },
        { entry_id: "E3", account_id: "A2", amount: 99 },
      ],
    },
  },
  routes: [],
};
const base = {
  status: "canonical",
  auth_required: false,
  scopes: [],
  documented: true,
  view: { omit_fields: [], overrides: {} },
  required_fields: [],
  defaults: {},
  headers: {},
  version: "v1",
  summary: "",
} as const;
const list = {
  ...base,
  id: "list_entries",
  method: "GET",
  path: "/accounts/{account_id}/entries",
  resource: "entries",
  action: "list",
  aggregate: { field: "amount", as: "balance" },
} as const;
const get = {
  ...base,
  id: "get_entry",
  method: "GET",
  path: "/accounts/{account_id}/entries/{entry_id}",
  resource: "entries",
  action: "get",
} as const;
const append = {
  ...base,
  id: "append_entry",
  method: "POST",
  path: "/accounts/{account_id}/entries",
  resource: "entries",
  action: "create",
  required_fields: ["amount"],
} as const;
const req = (url: string, params: Record<string, string>, body: unknown = null) => ({
  url: new URL(`http://x${url}`),
  params,
  header: () => undefined,
  body,
  bodyError: null,
  protocol: "rest",
});

describe("nested routes", () => {
  it("list only the named parent's children, with the balance derived from them", () => {
    const trial = new TrialWorld(world, "s");
    const r = serveRoute(trial, list as never, req("/accounts/A1/entries", { account_id: "A1" }) as never);
    expect(r.body).toMatchObject({ total: 2, balance: 7.25 });
  });

  it("find a child only under its own parent", () => {
    const trial = new TrialWorld(world, "s");
    expect(
      serveRoute(
        trial,
        get as never,
        req("/accounts/A1/entries/E1", { account_id: "A1", entry_id: "E1" }) as never,
      ).status,
    ).toBe(200);
    expect(
      serveRoute(
        trial,
        get as never,
        req("/accounts/A2/entries/E1", { account_id: "A2", entry_id: "E1" }) as never,
      ).status,
    ).toBe(404);
  });

  it("append a child that carries its parent from the path, and the balance follows", () => {
    const trial = new TrialWorld(world, "s");
    const made = serveRoute(
      trial,
      append as never,
      req("/accounts/A2/entries", { account_id: "A2" }, { amount: 1 }) as never,
    );
    expect(made).toMatchObject({ status: 201, body: { account_id: "A2", amount: 1 } });
    const r = serveRoute(trial, list as never, req("/accounts/A2/entries", { account_id: "A2" }) as never);
    expect(r.body).toMatchObject({ total: 2, balance: 100 });
  });

  it("serve the derived balance in GraphQL too, beside the page, and the converted golden asks for it", async () => {
    const gqlWorld: World = { ...world, protocol: "graphql", routes: [list as never, append as never] };
    const step = convertStep(
      gqlWorld,
      "graphql",
      { op: "execute", request: { method: "GET", url: "/accounts/A1/entries" }, capture: { b: "balance" } },
      "test",
    );
    if (typeof step === "string" || step.op !== "execute_native" || step.request.protocol !== "graphql")
      throw new Error(String(step));
    expect(step.capture).toEqual({ b: "data.r.balance" });
    const call = client(inProcessTransport(new TrialWorld(gqlWorld, "s")));
    const r = await call("POST", "/graphql", {
      body: { query: step.request.query, variables: step.request.variables } as never,
    });
    expect(r.body.data.r).toMatchObject({ totalCount: 2, balance: 7.25 });
    // A listing that derives nothing has no such field: asking for it is a GraphQL error.
    const plain: World = { ...gqlWorld, routes: [{ ...list, aggregate: undefined } as never] };
    const call2 = client(inProcessTransport(new TrialWorld(plain, "s")));
    const bad = await call2("POST", "/graphql", {
      body: { query: step.request.query, variables: step.request.variables } as never,
    });
    expect(bad.body.errors[0].message).toMatch(/Cannot query field "balance"/);
  });
});
