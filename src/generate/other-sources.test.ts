import { describe, expect, it } from "vitest";
import type { ForbidConstraint, G1Predicate } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "./harbor-world.js";
import { literalPath, withOtherSources } from "./other-sources.js";

const route = (r: Partial<Route> & Pick<Route, "id" | "path" | "action">): Route => ({
  method: "GET",
  version: "v3",
  status: "canonical",
  summary: "",
  resource: "vessels",
  auth_required: true,
  scopes: [],
  documented: true,
  view: { omit_fields: [], overrides: {} },
  required_fields: [],
  defaults: {},
  headers: {},
  ...r,
});

/** The harbour world with a search, a nested read, a throttled read and a look-alike family. */
const WORLD: World = {
  ...HARBOR_WORLD,
  routes: [
    ...HARBOR_WORLD.routes,
    route({ id: "searchVessels", path: "/v3/search/vessels", action: "list" }),
    route({ id: "vesselAudit", path: "/v3/vessels/{vessel_id}/audit", action: "get" }),
    route({
      id: "vesselTelemetry",
      path: "/v3/vessels/{vessel_id}/telemetry",
      action: "get",
      throttle: { on_call: 1, retry_after: 3 },
    }),
    route({
      id: "partnerVessel",
      path: "/v3/partner/vessels/{vessel_id}",
      action: "get",
      view: { omit_fields: [], overrides: { berth: "cached" } },
    }),
    route({
      id: "restatedVessel",
      path: "/v3/restated/vessels/{vessel_id}",
      action: "get",
      view: { omit_fields: [], overrides: { berth: "restated" } },
    }),
  ],
};

const flow = (from: string, key: string, extra: Partial<G1Predicate> = {}): G1Predicate =>
  ({
    kind: "data_flow",
    id: "berth_read",
    explain: "",
    from_response_url_pattern: from,
    from_status: 200,
    from_body_key: key,
    answer_field: key,
    must_be_stored: false,
    used_in_request_url_pattern: null,
    ...extra,
  }) as G1Predicate;

const noPartner: ForbidConstraint = {
  kind: "forbid",
  id: "no_partner",
  explain: "",
  url_pattern: "^/v3/partner/",
};

describe("data flows widened to the other routes serving the record", () => {
  it("accept the record's item in its listings and searches, and its nested reads; never a decoy or a rewritten view", () => {
    const [p] = withOtherSources(WORLD, [flow("^/v3/vessels/V-311$", "berth")], [noPartner]);
    expect(p?.kind === "data_flow" && p.also_from).toEqual([
      {
        url_pattern: "^(?:/v3/vessels|/v3/search/vessels)(\\?.*)?$",
        status: 200,
        body_key: "vessels.berth",
        where: { vessel_id: "V-311" },
      },
      {
        // The deprecated /v2 route, the forbidden partner family and the restated view (its
        // berth rewritten) are left out; the throttled nested read serves the same record.
        url_pattern: "^(?:/v3/vessels/V-311/audit|/v3/vessels/V-311/telemetry)(\\?.*)?$",
        status: 200,
        body_key: "berth",
        where: { vessel_id: "V-311" },
      },
    ]);
  });

  it("let a token sent on the record's read be sent on another read of it instead (a header slot only)", () => {
    const token = flow("^/oauth/token$", "access_token", {
      answer_field: undefined,
      used_in_request_url_pattern: "^/v3/vessels/V-204$",
      used_in_slot: { in: "header", name: "authorization" },
    } as Partial<G1Predicate>);
    const [p] = withOtherSources(WORLD, [token], [noPartner]);
    expect(p?.kind === "data_flow" && p.also_used_in).toEqual([
      "^(?:/v3/vessels|/v3/search/vessels)(\\?.*)?$",
      "^(?:/v3/vessels/V-204/audit|/v3/vessels/V-204/telemetry|/v3/restated/vessels/V-204)(\\?.*)?$",
    ]);
    const inBody = flow("^/oauth/token$", "access_token", {
      used_in_request_url_pattern: "^/v3/vessels/V-204$",
      used_in_slot: { in: "body", key: "token" },
    } as Partial<G1Predicate>);
    expect(withOtherSources(WORLD, [inBody], [])[0]).not.toHaveProperty("also_used_in");
  });

  it("leave alone a flow from a route with a behaviour, a minted record, a nested key or a path that names no record", () => {
    const alone = [
      flow("^/v3/vessels/V-311/telemetry$", "berth"), // throttled: the wait is the skill
      flow("^/v3/maintenance-orders/[^/]+$", "status"), // a minted id
      flow("^/v3/vessels/V-311$", "crew.lead"), // a nested key
      flow("^/v3/vessels/V-999$", "berth"), // no such vessel
    ];
    for (const p of withOtherSources(WORLD, alone, [])) expect(p).not.toHaveProperty("also_from");
  });
});

describe("an id resolved from a listing", () => {
  const idFlow = (from: string) =>
    flow(from, "vessels.vessel_id", {
      answer_field: undefined,
      used_in_request_url_pattern: "^/v3/vessels/V-311$",
      used_in_slot: { in: "path" },
    } as Partial<G1Predicate>);
  const listings: Route[] = [
    route({ id: "registryVessels", path: "/v3/registry/vessels", action: "list" }),
    route({ id: "decoyVessels", path: "/v3/decoy/vessels", action: "list", status: "lookalike" }),
    route({ id: "partnerVessels", path: "/v3/partner/vessels", action: "list" }),
    route({
      id: "maskedVessels",
      path: "/v3/masked/vessels",
      action: "list",
      view: { omit_fields: ["vessel_id"], overrides: {} },
    }),
  ];
  const world: World = { ...WORLD, routes: [...WORLD.routes, ...listings] };

  it("is also taken from the collection's other canonical listings (a registry, a search), never a decoy, a forbidden or a hiding one", () => {
    const [p] = withOtherSources(world, [idFlow("^/v3/vessels(\\?.*)?$")], [noPartner]);
    expect(p?.kind === "data_flow" && p.also_from).toEqual([
      {
        url_pattern: "^(?:/v3/search/vessels|/v3/registry/vessels)(\\?.*)?$",
        status: 200,
        body_key: "vessels.vessel_id",
      },
    ]);
  });

  it("a field of a listed row (a ranking's runner-up) is also taken from the other canonical listings, not a decoy or a forbidden one", () => {
    const cached = route({
      id: "cachedVessels",
      path: "/v3/cached/vessels",
      action: "list",
      view: { omit_fields: [], overrides: { berth: "cached" } },
    });
    const [p] = withOtherSources(
      { ...world, routes: [...world.routes, cached] },
      [
        flow("^/v3/vessels(\\?.*)?$", "vessels.berth", {
          answer_field: "runner_up_berth",
        } as Partial<G1Predicate>),
      ],
      [noPartner],
    );
    // The masked registry hides the id only: the berth it still lists is a live row's. The cached
    // listing rewrites the berth, the partner's is forbidden, the decoy is no source.
    expect(p?.kind === "data_flow" && p.also_from).toEqual([
      {
        url_pattern: "^(?:/v3/search/vessels|/v3/registry/vessels|/v3/masked/vessels)(\\?.*)?$",
        status: 200,
        body_key: "vessels.berth",
      },
    ]);
  });

  it("keeps its own listing alone when that listing is not a plain canonical route", () => {
    const [p] = withOtherSources(world, [idFlow("^/v3/decoy/vessels(\\?.*)?$")], []);
    expect(p).not.toHaveProperty("also_from");
  });
});

describe("literalPath", () => {
  it("reads the path a template's pattern names, with or without a query string", () => {
    expect(literalPath("^/v3/vessels/V-311$")).toBe("/v3/vessels/V-311");
    expect(literalPath("^/v3/vessel\\.log/V\\-311$")).toBe("/v3/vessel.log/V-311");
    expect(literalPath("^/v3/vessels/V-311(\\?.*)?$")).toBe("/v3/vessels/V-311");
    expect(literalPath("^/v3/vessels/[^/]+$")).toBeNull();
    expect(literalPath("^/v3/(a|b)$")).toBeNull();
    expect(literalPath("/v3/vessels")).toBeNull();
  });
});
