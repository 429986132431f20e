import { describe, expect, it } from "vitest";
import { REQUIREMENT_WORLD } from "../../test/support/requirement-banks.js";
import { SUB01, SUB03, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { trialLog } from "../../test/support/trial-log.js";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import type { Route, World } from "../bank/world-schema.js";
import { HARBOR_WORLD } from "../generate/harbor-world.js";
import { legitimateVariants, renewedOnExpiry } from "./legitimate-variants.js";

/**
 * Issue 21: the rules `npm run mutate` found unobserved in legitimate-variants.ts — each of the
 * reorder's independence rules on its own (a rule shown only where another rule also refuses the
 * pair could be dropped unnoticed), a renewed mint's body that is null or holds a non-string, and
 * the kind of the update sub-route variant.
 */

const skeleton = bankFromContent(skeletonContent());
const task = (id: string) => structuredClone(taskOf(skeleton, id));
type Execute = Extract<GoldenStep, { op: "execute" }>;

const route = (id: string) => structuredClone(HARBOR_WORLD.routes.find((r) => r.id === id) as Route);
const getVessel = route("getVessel");

/** The harbour world with extra routes, and `edit` applied. */
function harbour(extra: Route[] = [], edit: (w: World) => void = () => {}): World {
  const w = structuredClone(HARBOR_WORLD);
  w.routes.push(...structuredClone(extra));
  edit(w);
  return w;
}

const names = (world: World, t: Task) => legitimateVariants(world, t).map((v) => v.name);

const bearer = { Authorization: "Bearer {{token}}" };
const read = (url: string, capture: Record<string, string> = {}): Execute => ({
  op: "execute",
  request: { method: "GET", url, headers: bearer },
  capture,
});

/** An update of a vessel's firmware channel at `url`, capturing the channel. */
const patchChannel = (url: string): Execute => ({
  op: "execute",
  request: {
    method: "PATCH",
    url,
    headers: { ...bearer, "Content-Type": "application/json" },
    body: { firmware_channel: "maritime-edge" },
  },
  capture: { channel: "firmware_channel" },
});

/** SUB01's mint, then `a` and `b`, then an answer: `reorder@2` swaps `a` and `b` when they are independent. */
function pair(a: Execute, b: Execute): Task {
  const t = task(SUB01);
  return { ...t, golden: [t.golden[0] as GoldenStep, a, b, { op: "answer", fields: {} }] };
}

describe("reorder: each independence rule refuses a pair on its own", () => {
  it("two writes of different collections are not swapped (a write and a read of them are)", () => {
    const updateVessel: Route = { ...getVessel, id: "updateVessel", method: "PATCH", action: "update" };
    const world = harbour([updateVessel]);
    const post = task(SUB03).golden[2] as Execute;
    const order: Execute = {
      ...post,
      request: { ...post.request, body: { vessel_id: "V-204", priority: "high", firmware_build: "FW-1" } },
    };
    const patch = patchChannel("/v3/vessels/V-311");
    expect(names(world, pair(order, patch))).not.toContain("reorder@2");
    expect(names(world, pair(patch, order))).not.toContain("reorder@2");
    expect(names(world, pair(order, read("/v3/vessels/V-311", { channel: "firmware_channel" })))).toContain(
      "reorder@2",
    );
  });

  it("a pair that shares any one capture name is not swapped, though the first captures more", () => {
    const a = read("/v3/vessels/V-204", { berth: "berth", port: "last_port_call" });
    const b = read("/v3/vessels/V-311", { port: "last_port_call" });
    expect(names(HARBOR_WORLD, pair(a, b))).not.toContain("reorder@2");
    expect(names(HARBOR_WORLD, pair(a, read("/v3/vessels/V-311", { other: "last_port_call" })))).toContain(
      "reorder@2",
    );
  });

  it("a pair is not swapped when either one's route counts its calls, the other's not", () => {
    const throttled = harbour([], (w) => {
      for (const r of w.routes) if (r.id === "getVessel") r.throttle = { on_call: 9 };
    });
    const vessel = read("/v3/vessels/V-204", { a: "berth" });
    const order = read("/v3/maintenance-orders/MO-1", { b: "status" });
    expect(names(throttled, pair(vessel, order))).not.toContain("reorder@2");
    expect(names(throttled, pair(order, vessel))).not.toContain("reorder@2");
    expect(names(HARBOR_WORLD, pair(vessel, order))).toContain("reorder@2");
  });

  it("a job's poll is not swapped with a read, whichever comes first", () => {
    const getJob: Route = {
      ...getVessel,
      id: "getJob",
      path: "/v3/jobs/{job_id}",
      resource: "maintenance-orders",
      action: "job_status",
    };
    const poll = read("/v3/jobs/J-1", { state: "status" });
    const vessel = read("/v3/vessels/V-204", { a: "berth" });
    expect(names(harbour([getJob]), pair(poll, vessel))).not.toContain("reorder@2");
    expect(names(harbour([getJob]), pair(vessel, poll))).not.toContain("reorder@2");
    // The same read of the job's path on a plain get route: swapped.
    expect(names(harbour([{ ...getJob, action: "get" }]), pair(poll, vessel))).toContain("reorder@2");
    expect(names(harbour([{ ...getJob, action: "get" }]), pair(vessel, poll))).toContain("reorder@2");
  });
});

describe("other_route through an update sub-route", () => {
  it("is of kind other_route", () => {
    const update: Route = { ...getVessel, id: "updateVessel", method: "PATCH", action: "update" };
    const settings: Route = {
      ...getVessel,
      id: "putSettings",
      method: "PUT",
      action: "update",
      path: "/v3/vessels/{vessel_id}/settings",
    };
    const t = task(SUB01);
    const patch = patchChannel("/v3/vessels/V-204");
    const updating: Task = { ...t, golden: [...t.golden.slice(0, 2), patch, ...t.golden.slice(2)] };
    const v = legitimateVariants(harbour([update, settings]), updating).find(
      (x) => x.name === "other_route@3",
    );
    expect(v).toMatchObject({ kind: "other_route", step: 3 });
    expect(v?.steps[2]).toMatchObject({ request: { method: "PUT", url: "/v3/vessels/V-204/settings" } });
  });
});

describe("renewedOnExpiry: a mint's body sent as is", () => {
  /** The mint answered, then the call refused for an expired token. */
  const events = trialLog()
    .call("POST", "/v3/oauth/token", 200)
    .call("GET", "/v3/vessels/V-412", 401, { error: "token_expired", message: "the token expired" })
    .events();
  const call: GoldenStep = {
    op: "execute",
    request: { method: "GET", url: "/v3/vessels/V-412", headers: { Authorization: "Bearer {{tok}}" } },
    capture: {},
  };
  const mint = (body: Execute["request"]["body"], capture: Record<string, string>): Execute => ({
    op: "execute",
    request: { method: "POST", url: "/v3/oauth/token", body },
    capture,
  });

  it("a null body: the mint copied unchanged", () => {
    const nul = mint(null, { tok: "access_token" });
    expect(renewedOnExpiry(REQUIREMENT_WORLD, [nul, call], events)).toEqual([nul, nul, call]);
  });

  it("a captured field that is no string (a list holding the placeholder) is not resent from its binding", () => {
    const listed = mint(
      { grant_type: "refresh_token", refresh_token: ["{{refresh_token}}"] },
      { tok: "access_token", rt: "refresh_token" },
    );
    const renewed = renewedOnExpiry(REQUIREMENT_WORLD, [listed, call], events);
    expect(renewed?.[1]).toEqual(listed);
  });
});
