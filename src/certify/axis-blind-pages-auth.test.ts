import { describe, expect, it } from "vitest";
import {
  answer,
  bearer,
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
 * Issue 21: what `npm run mutate certify-axis-blind` found unobserved in the pagination- and
 * auth-blind rewrites (axis-blind.test.ts shows each rule; these, the edges it left open): steps a
 * walk must step over, a first page without a query, a record found at a two-digit index or under
 * a nested field, a wait header spelt in another case, mints told apart from the reads around them.
 */

const vessels = (ids: string[]) => ids.map((vessel_id) => ({ vessel_id, name: `ship ${vessel_id}` }));

describe("pagination-blind: the walk and the steps around it", () => {
  it("an unsent read and a read of no route stay as they are beside a walk", () => {
    const steps = [
      get("/v3/vessels?page=1"),
      get("/v3/vessels/V-204", { b: "berth" }),
      get("/nowhere", { n: "x" }),
      get("/v3/vessels?page=2"),
    ];
    const ctx = ctxOf(steps, { world: blindWorld({ style: "page", max_page_size: 10 }), unsent: [1] });
    expect(whole("pagination", ctx)).toEqual({
      steps: [get("/v3/vessels?page=1&per_page=10"), steps[1], steps[2]],
      renames: [],
      what: ["one page of /v3/vessels at per_page=10"],
    });
  });

  it("a first page sent without a query gets the page query alone", () => {
    const steps = [get("/v3/vessels"), get("/v3/vessels?page=2")];
    const ctx = ctxOf(steps, { world: blindWorld({ style: "page", max_page_size: 10 }) });
    expect(whole("pagination", ctx).steps).toEqual([get("/v3/vessels?page=1&per_page=10")]);
  });

  it("a record picked at a two-digit index of a later page is found at its index on the blind page", () => {
    const ids = Array.from({ length: 12 }, (_, k) => `V-${100 + k}`);
    const steps = [get("/v3/vessels?page=1"), get("/v3/vessels?page=2", { pick: "vessels.10.vessel_id" })];
    const ctx = ctxOf(steps, {
      world: blindWorld({ style: "page", max_page_size: 20 }),
      bodies: { 0: { vessels: vessels(["V-1", "V-2"]) }, 1: { vessels: vessels(ids) } },
    });
    // V-110 is the 11th record of page 2, after page 1's two: the 13th of the collection.
    expect(whole("pagination", ctx).steps).toEqual([
      get("/v3/vessels?page=1&per_page=20", { pick: "vessels.12.vessel_id" }),
    ]);
  });

  it("a record picked by a nested field is found by that field, and the capture keeps its path", () => {
    const berthed = (ids: string[]) =>
      ids.map((vessel_id) => ({ vessel_id, berth: { name: `B-${vessel_id}` } }));
    const steps = [get("/v3/vessels?page=1"), get("/v3/vessels?page=2", { berth: "vessels.1.berth.name" })];
    const ctx = ctxOf(steps, {
      world: blindWorld({ style: "page", max_page_size: 10 }),
      bodies: { 0: { vessels: berthed(["V-1", "V-2"]) }, 1: { vessels: berthed(["V-3", "V-4"]) } },
    });
    expect(whole("pagination", ctx).steps).toEqual([
      get("/v3/vessels?page=1&per_page=10", { berth: "vessels.3.berth.name" }),
    ]);
  });

  it("pages that hold no listing: a capture is kept as written, even one whose first key is empty", () => {
    const steps = [get("/v3/vessels?page=1", { a: ".3.name" }), get("/v3/vessels?page=2", { b: "total" })];
    const ctx = ctxOf(steps, {
      world: blindWorld({ style: "page", max_page_size: 10 }),
      bodies: { 0: { total: 4 }, 1: { total: 4 } },
    });
    expect(whole("pagination", ctx).steps).toEqual([
      get("/v3/vessels?page=1&per_page=10", { a: ".3.name", b: "total" }),
    ]);
  });
});

describe("auth-blind: the edges of dropping a mint", () => {
  it("a dropped mint's pause is added to the next call's own, whatever case that call spells its wait header in", () => {
    const steps: GoldenStep[] = [
      mint(),
      send("GET", "/v3/vessels/V-204", {}, { headers: bearer("token") }),
      mint({ token2: "access_token" }, { "X-Apiflow-Wait": "30" }),
      send("GET", "/v3/vessels/V-311", {}, { headers: { ...bearer("token2"), "X-Apiflow-Wait": "5" } }),
    ];
    expect(whole("auth", ctxOf(steps)).steps[2]).toEqual(
      send("GET", "/v3/vessels/V-311", {}, { headers: { ...bearer("token"), "x-apiflow-wait": "35" } }),
    );
  });

  it("a segment with no mint is unchanged, with no renames; a signed one beside a store and an answer loses only its signer", () => {
    const plain = [get("/v3/vessels/V-204", { b: "berth" }), answer];
    expect(whole("auth", ctxOf(plain))).toEqual({ steps: plain, renames: [], what: [] });
    const store: GoldenStep = { op: "store", name: "kept", scope: "local", from: "b" };
    const signed = [
      send("GET", "/v3/vessels/V-204", { b: "berth" }, { sign: { secret: "{{s}}" } }),
      store,
      answer,
    ];
    expect(whole("auth", ctxOf(signed))).toEqual({
      steps: [get("/v3/vessels/V-204", { b: "berth" }), store, answer],
      renames: [],
      what: ["1 signed request(s) sent unsigned"],
    });
  });

  it("the earlier token is the last mint before the segment, not the last step; the segment's mint is dropped wherever it stands", () => {
    const all = [
      mint({ t1: "access_token" }),
      get("/v3/vessels/{{t1}}", { b: "berth" }),
      get("/v3/vessels/V-204"),
      mint({ t2: "access_token" }),
      get("/v3/vessels/{{t2}}"),
    ];
    expect(blindSegment("auth", ctxOf(all), 2, 5)).toEqual({
      steps: [get("/v3/vessels/V-204"), get("/v3/vessels/{{t1}}")],
      renames: [["t2", "t1"]],
      what: ["1 re-mint(s) dropped"],
    });
  });

  it("without an earlier mint, the segment's first mint is kept, though a read comes before it", () => {
    const steps = [
      get("/v3/vessels/V-204", { b: "berth" }),
      mint({ t1: "access_token" }),
      get("/v3/vessels/{{t1}}"),
      mint({ t2: "access_token" }),
      get("/v3/vessels/{{t2}}"),
    ];
    expect(whole("auth", ctxOf(steps))).toEqual({
      steps: [steps[0], steps[1], steps[2], get("/v3/vessels/{{t1}}")],
      renames: [["t2", "t1"]],
      what: ["1 re-mint(s) dropped"],
    });
  });

  it("the vault's token is kept when any quoted call went out with it stale, among others", () => {
    const steps = [mint({ tok: "access_token" }), get("/v3/vessels/{{tok}}")];
    const premises = [
      callPremise({ token: "fresh", status: 404 }),
      callPremise({ token: "stale", status: 401 }),
    ];
    const blind = whole("auth", ctxOf(steps, { premises, vault: { access_token: "tk_hb_old" } }));
    expect(blind.renames).toEqual([["tok", "access_token"]]);
    expect(blind.steps).toEqual([get("/v3/vessels/{{access_token}}")]);
  });
});

describe("discovery-blind: which capture is a listed record's", () => {
  it("an index of two digits is a pick; a list nested under another key is not", () => {
    const twelve = [get("/v3/vessels", { pick: "vessels.12.vessel_id" })];
    expect(whole("discovery", ctxOf(twelve)).steps).toEqual([
      get("/v3/vessels", { pick: "vessels.0.vessel_id" }),
    ]);
    const nested = [get("/v3/vessels", { pick: "data.vessels.2.vessel_id" })];
    expect(whole("discovery", ctxOf(nested))).toEqual({ steps: nested, renames: [], what: [] });
  });
});
