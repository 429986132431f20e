import { describe, expect, it } from "vitest";
import {
  answer,
  bearer,
  blindRoute,
  blindWorld,
  callPremise,
  ctxOf,
  get,
  mint,
  send,
  whole,
} from "../../test/support/blind-segments.js";
import type { GoldenStep } from "../bank/task-schema.js";
import { blindSegment } from "./axis-blind.js";

/**
 * Issue 21: what `npm run mutate certify-axis-blind-calls` found unobserved in the discovery-,
 * schema_repair/error_recovery-, statefulness- and multistep-blind rewrites (axis-blind.test.ts
 * shows each rule; these, the edges it left open): routes of other resources and other methods,
 * listings read more than once, steps the golden run never sent, a segment's first step, a write
 * that is the segment's first step.
 */

/** A vessel search answered as a listing, sent by POST (paginated when `paginated`). */
const search = (paginated = false) =>
  blindRoute({
    id: "searchVessels",
    method: "POST",
    path: "/v3/vessels/search",
    resource: "vessels",
    action: "list",
    ...(paginated ? { pagination: { style: "page" as const, max_page_size: 10 } } : {}),
  });

/** A deprecated read of another resource, listed before every route. */
const orderV1 = blindRoute({
  id: "getOrderV1",
  method: "GET",
  path: "/v1/orders/{order_id}",
  resource: "maintenance-orders",
  action: "get",
  version: "v1",
  status: "deprecated",
});

describe("pagination-blind: only GET listings are walks", () => {
  it("a paginated search sent by POST is sent as the golden sent it", () => {
    const steps = [send("POST", "/v3/vessels/search?page=1"), send("POST", "/v3/vessels/search?page=2")];
    const ctx = ctxOf(steps, { world: blindWorld({ style: "page", max_page_size: 10 }, [search(true)]) });
    expect(whole("pagination", ctx)).toEqual({ steps, renames: [], what: [] });
  });
});

describe("discovery-blind: candidates and walks", () => {
  it("the first candidate is of the call's own resource: another resource's route listed first is none", () => {
    const steps = [get("/v3/vessels/V-311")];
    const blind = whole("discovery", ctxOf(steps, { world: blindWorld(undefined, [orderV1]) }));
    expect(blind).toEqual({
      steps: [get("/v2/vessels/V-311")],
      renames: [],
      what: ["GET /v2/vessels/{vessel_id} instead of /v3/vessels/{vessel_id}"],
    });
  });

  it("a listing searched by POST is no walk: its pick stays", () => {
    const steps = [send("POST", "/v3/vessels/search", { pick: "vessels.2.vessel_id" })];
    expect(whole("discovery", ctxOf(steps, { world: blindWorld(undefined, [search()]) }))).toEqual({
      steps,
      renames: [],
      what: [],
    });
  });

  it("the walk is reported by its own listing's path, whatever route the spec lists first", () => {
    const steps = [get("/v3/vessels", { pick: "vessels.2.vessel_id" })];
    expect(whole("discovery", ctxOf(steps, { world: blindWorld(undefined, [orderV1]) })).what).toEqual([
      "the first record listed by GET /v3/vessels taken, from its first page",
    ]);
  });

  it("a paginated walk that picks no record is left as the golden sent it, later pages and all", () => {
    const steps = [
      get("/v3/vessels?page=1", { total: "total" }),
      get("/v3/vessels?page=2", { pages: "total_pages" }),
    ];
    expect(whole("discovery", ctxOf(steps, { world: blindWorld({ style: "page" }) }))).toEqual({
      steps,
      renames: [],
      what: [],
    });
  });

  it("an unpaginated listing read twice: each read kept, each pick its first record", () => {
    const steps = [
      get("/v3/vessels", { a: "vessels.2.vessel_id" }),
      get("/v3/vessels", { b: "vessels.1.name" }),
    ];
    expect(whole("discovery", ctxOf(steps))).toEqual({
      steps: [get("/v3/vessels", { a: "vessels.0.vessel_id" }), get("/v3/vessels", { b: "vessels.0.name" })],
      renames: [],
      what: ["the first record listed by GET /v3/vessels taken, from its first page"],
    });
  });
});

describe("schema_repair-blind: which sends carry the quoted call", () => {
  const order = { vessel_id: "V-204", priority: "high", firmware_build: "FW-1" };
  const quoted = callPremise({
    method: "POST",
    url: "/v3/maintenance-orders",
    body: { vessel: "V-204" },
    status: 422,
  });
  const asQuoted = (capture: Record<string, string>) =>
    send("POST", "/v3/maintenance-orders", capture, { headers: bearer("token"), body: { vessel: "V-204" } });

  it("a send the golden run never sent is stepped over", () => {
    const steps = [
      mint(),
      get("/v3/vessels/V-204", { fw: "firmware_build" }),
      send("POST", "/v3/maintenance-orders", { o: "order_id" }, { headers: bearer("token"), body: order }),
    ];
    const blind = whole("schema_repair", ctxOf(steps, { premises: [quoted], unsent: [1] }));
    expect(blind.steps).toEqual([steps[0], steps[1], asQuoted({ o: "order_id" })]);
  });

  it("the quoted path's own sends only, though the golden wrote elsewhere first", () => {
    const note = send(
      "POST",
      "/v3/notes",
      { n: "note_id" },
      { headers: bearer("token"), body: { text: "x" } },
    );
    const steps = [
      mint(),
      note,
      send("POST", "/v3/maintenance-orders", { o: "order_id" }, { headers: bearer("token"), body: order }),
    ];
    const blind = whole("schema_repair", ctxOf(steps, { premises: [quoted] }));
    expect(blind.steps).toEqual([steps[0], note, asQuoted({ o: "order_id" })]);
    expect(blind.what).toEqual(["POST /v3/maintenance-orders sent as the client sent it (1×)"]);
  });

  it("a quoted write to a wrong path steps over an unsent write of another method", () => {
    const patch = send("PATCH", "/v3/maintenance-orders/MO-1", {}, { body: { status: "done" } });
    const steps = [
      mint(),
      patch,
      send("POST", "/v3/maintenance-orders", { o: "order_id" }, { headers: bearer("token"), body: order }),
    ];
    const wrong = callPremise({ method: "POST", url: "/v3/maintenance-orders/Nordic", status: 404 });
    const blind = whole("schema_repair", ctxOf(steps, { premises: [wrong], unsent: [1] }));
    expect(blind.steps).toEqual([
      steps[0],
      patch,
      send("POST", "/v3/maintenance-orders/Nordic", { o: "order_id" }, { headers: bearer("token") }),
    ]);
  });
});

describe("statefulness-blind: the segment's bounds", () => {
  it("a re-read after the segment is not the segment's", () => {
    const steps = [
      get("/v3/vessels/V-204", { a: "berth" }),
      get("/v3/vessels/V-311"),
      get("/v3/vessels/V-204", { c: "name" }),
    ];
    const ctx = ctxOf(steps);
    expect(blindSegment("statefulness", ctx, 0, 2)).toEqual({
      steps: steps.slice(0, 2),
      renames: [],
      what: [],
    });
    expect(ctx.steps[0]).toEqual(get("/v3/vessels/V-204", { a: "berth" }));
  });

  it("a segment that opens with a re-read drops it, its captures moved onto the earlier read", () => {
    const steps: GoldenStep[] = [
      get("/v3/vessels/V-204", { a: "berth" }),
      get("/v3/vessels/V-204", { b: "name" }),
      answer,
    ];
    const ctx = ctxOf(steps);
    expect(blindSegment("statefulness", ctx, 1, 3)).toEqual({
      steps: [answer],
      renames: [],
      what: ["GET /v3/vessels/V-204 not read again"],
    });
    expect(ctx.steps[0]).toEqual(get("/v3/vessels/V-204", { a: "berth", b: "name" }));
  });

  it("the segment's own steps are left in the context as they were; only its result gains the captures", () => {
    const steps = [get("/v3/vessels/V-204", { a: "berth" }), get("/v3/vessels/V-204", { b: "name" })];
    const ctx = ctxOf(steps);
    expect(whole("statefulness", ctx).steps).toEqual([get("/v3/vessels/V-204", { a: "berth", b: "name" })]);
    expect(ctx.steps[0]).toEqual(get("/v3/vessels/V-204", { a: "berth" }));
  });
});

describe("multistep-blind: a write that opens the segment", () => {
  it("its follow-up is skipped and its captures taken from the write, sent or not", () => {
    const steps = [
      send("POST", "/v3/maintenance-orders", { o: "order_id" }, { body: { a: 1 } }),
      get("/v3/maintenance-orders/{{o}}", { s: "status" }),
    ];
    const skipped = [
      send("POST", "/v3/maintenance-orders", { s: "status", o: "order_id" }, { body: { a: 1 } }),
    ];
    const urls = { 1: "/v3/maintenance-orders/MO-1" };
    const blind = whole("multistep", ctxOf(steps, { urls }));
    expect(blind.steps).toEqual(skipped);
    expect(blind.what).toEqual([
      "GET /v3/maintenance-orders/MO-1 skipped (it follows up the write's answer)",
    ]);
    expect(whole("multistep", ctxOf(steps, { urls, unsent: [0] })).steps).toEqual(skipped);
    // A follow-up the golden run never sent is skipped all the same.
    expect(whole("multistep", ctxOf(steps, { unsent: [1] })).steps).toEqual(skipped);
  });

  it("a confirm that is the first capturing write is the write, not a skipped job call", () => {
    const steps = [
      send("POST", "/v3/jobs/J-1/confirm", { order: "result.order_id" }),
      get("/v3/maintenance-orders/{{order}}", { status: "status" }),
    ];
    const blind = whole("multistep", ctxOf(steps, { urls: { 1: "/v3/maintenance-orders/MO-1" } }));
    expect(blind.steps).toEqual([
      send("POST", "/v3/jobs/J-1/confirm", { status: "status", order: "result.order_id" }),
    ]);
  });
});
