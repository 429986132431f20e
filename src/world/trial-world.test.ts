import { describe, expect, it } from "vitest";
import type { World } from "../bank/world-schema.js";
import { mintCanary } from "./canary.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { MAX_WAIT_SECONDS, TrialWorld } from "./trial-world.js";

/**
 * A trial's state on its own (issue 21: mutation testing): the logical clock, token lifetime by
 * seconds and by calls at their edges, scopes, refresh tokens, stale tokens and forks.
 */
const withAuth = (auth: Partial<World["auth"]>): World => ({ ...W, auth: { ...W.auth, ...auth } });

describe("the logical clock", () => {
  it("starts at 0; tick adds one; advance adds whole seconds and refuses negative or infinite", () => {
    const t = new TrialWorld(W, "s");
    expect(t.clock).toBe(0);
    expect(t.tick()).toBe(1);
    expect(t.advance(2.9)).toBe(3);
    expect(t.advance(0)).toBe(3);
    expect(() => t.advance(-1)).toThrow("cannot advance the clock by -1");
    expect(() => t.advance(Number.POSITIVE_INFINITY)).toThrow(/cannot advance/);
    expect(() => t.advance(Number.NaN)).toThrow(/cannot advance/);
    expect(t.clock).toBe(3);
    expect(MAX_WAIT_SECONDS).toBe(3600);
  });

  it("records exchanges by default; a fork keeps the original's choice", () => {
    const t = new TrialWorld(W, "s");
    expect(t.recording).toBe(true);
    t.recording = false;
    expect(t.fork().recording).toBe(false);
  });

  it("counters start at 1 and are per name", () => {
    const t = new TrialWorld(W, "s");
    expect([t.nextSeq("a"), t.nextSeq("a"), t.nextSeq("b")]).toEqual([1, 2, 1]);
  });
});

describe("tokens", () => {
  it("by seconds: valid until ttl_seconds have passed since minting, expired from then on", () => {
    const t = new TrialWorld(withAuth({ ttl_seconds: 10, ttl_calls: 1000 }), "s");
    t.advance(5);
    const { token, ttl } = t.issueToken();
    expect(ttl).toBe(10);
    t.advance(9);
    expect(t.spendToken(token, [])).toBe("ok");
    t.advance(1);
    expect(t.spendToken(token, [])).toBe("expired");
  });

  it("by calls: exactly ttl_calls calls pass; a refused call is not spent", () => {
    const t = new TrialWorld(withAuth({ ttl_seconds: undefined, ttl_calls: 2 }), "s");
    const { token, ttl } = t.issueToken(["valves:read"]);
    expect(ttl).toBe(2);
    expect(t.spendToken(token, ["valves:write"])).toEqual({ missing: "valves:write" });
    expect(t.spendToken(token, ["valves:read"])).toBe("ok");
    t.advance(1_000_000);
    expect(t.spendToken(token, [])).toBe("ok");
    expect(t.spendToken(token, [])).toBe("expired");
  });

  it("scopes: the requested ones, else the defaults, else every scope; the first missing one is named", () => {
    const t = new TrialWorld(W, "s");
    expect(t.issueToken(["valves:write"]).scopes).toEqual(["valves:write"]);
    expect(t.issueToken().scopes).toEqual(["valves:read"]);
    const all = new TrialWorld(withAuth({ default_scopes: undefined }), "s").issueToken();
    expect(all.scopes).toEqual(W.auth.scopes);
    const { token } = t.issueToken(["valves:read"]);
    expect(t.spendToken(token, ["valves:read", "schedules:write", "valves:write"])).toEqual({
      missing: "schedules:write",
    });
  });

  it("minted tokens are the trial seed's canaries token#n and refresh#n, each label counted apart", () => {
    const t = new TrialWorld(W, "s");
    const first = t.issueToken();
    const second = t.issueToken();
    expect(first.token).toBe(mintCanary("s", { $canary: "token#1", format: "tk_irr_{code}" }));
    expect(first.refreshToken).toBe(mintCanary("s", { $canary: "refresh#1", format: "rt_{code}" }));
    expect(second.token).toBe(mintCanary("s", { $canary: "token#2", format: "tk_irr_{code}" }));
    expect(second.refreshToken).toBe(mintCanary("s", { $canary: "refresh#2", format: "rt_{code}" }));
  });

  it("tokens are unique, carry the world's prefix and are unknown to another trial", () => {
    const t = new TrialWorld(W, "s");
    const a = t.issueToken().token;
    const b = t.issueToken().token;
    expect(a).not.toBe(b);
    expect(a.startsWith(W.auth.token_prefix)).toBe(true);
    expect(new TrialWorld(W, "other").spendToken(a, [])).toBe("unknown");
  });

  it("stale tokens of the world are expired, other unknown tokens unknown", () => {
    const t = new TrialWorld(W, "s");
    expect(t.spendToken("tk_irr_OLD000", [])).toBe("expired");
    expect(t.spendToken("tk_irr_NEW000", [])).toBe("unknown");
    expect(new TrialWorld(withAuth({ stale_tokens: undefined }), "s").spendToken("tk_irr_OLD000", [])).toBe(
      "unknown",
    );
  });

  it("refresh tokens: only when the world issues them, single use (in an unrecorded replay too), same scopes", () => {
    const t = new TrialWorld(W, "s");
    const first = t.issueToken(["valves:write"]);
    expect(first.refreshToken).toMatch(/^rt_/);
    const second = t.refresh(first.refreshToken!);
    expect(second?.scopes).toEqual(["valves:write"]);
    expect(t.refresh(first.refreshToken!)).toBeUndefined();
    expect(t.refresh("rt_never")).toBeUndefined();
    const replay = new TrialWorld(W, "s");
    replay.recording = false;
    const minted = replay.issueToken().refreshToken!;
    expect(replay.refresh(minted)).toBeDefined();
    expect(replay.refresh(minted)).toBeUndefined();
    const plain = new TrialWorld(withAuth({ refresh: false }), "s").issueToken();
    expect(plain.refreshToken).toBeUndefined();
    expect(Object.keys(plain)).not.toContain("refreshToken");
  });
});

describe("changes the world makes later (settle)", () => {
  const change = (
    id: string,
    due: number,
    changes: Record<string, string | number>,
    resource = "valves",
  ) => ({
    resource,
    idField: "valve_id",
    id,
    due,
    changes,
  });
  const valve = (t: TrialWorld, id: string) => t.resource("valves").find((r) => r.valve_id === id)!;

  it("a new trial has none; each applies when the clock reaches its due second, in scheduling order", () => {
    const t = new TrialWorld(W, "s");
    expect(t.pending).toEqual([]);
    const later = change("VL-1", 3, { zone: "D" });
    t.pending.push(change("VL-2", 2, { zone: "Q" }), change("VL-2", 2, { zone: "R", flow_lpm: 1 }), later);
    t.tick();
    t.settle();
    expect(valve(t, "VL-2").zone).toBe("B");
    expect(t.pending).toHaveLength(3);
    t.tick();
    t.settle();
    expect(valve(t, "VL-2")).toMatchObject({ zone: "R", flow_lpm: 1 });
    expect(valve(t, "VL-1").zone).toBe("A");
    expect(t.pending).toEqual([later]);
    t.advance(5);
    t.settle();
    expect(valve(t, "VL-1").zone).toBe("D");
    expect(t.pending).toEqual([]);
  });

  it("a change to a record since deleted, or to no resource, is dropped", () => {
    const t = new TrialWorld(W, "s");
    const before = structuredClone(t.resource("valves"));
    t.pending.push(change("VL-404", 0, { zone: "Z" }), change("VL-1", 0, { zone: "Z" }, "nope"));
    t.settle();
    expect(t.pending).toEqual([]);
    expect(t.resource("valves")).toEqual(before);
  });

  it("a fork carries the pending changes and applies them to its own records only", () => {
    const t = new TrialWorld(W, "s");
    t.pending.push(change("VL-2", 1, { zone: "F" }));
    const copy = t.fork();
    copy.tick();
    copy.settle();
    expect(valve(copy, "VL-2").zone).toBe("F");
    expect(valve(t, "VL-2").zone).toBe("B");
    expect(t.pending).toHaveLength(1);
  });
});

describe("removeRecord", () => {
  it("deletes the record wherever it stands and keeps every deleted one, in order", () => {
    const t = new TrialWorld(W, "s");
    const [first, second] = t.resource("valves");
    const count = t.resource("valves").length;
    t.removeRecord("valves", first!);
    t.removeRecord("valves", second!);
    expect(t.resource("valves")).toHaveLength(count - 2);
    expect(t.resource("valves")).not.toContain(first);
    expect(t.removed.get("valves")).toEqual([first, second]);
  });

  it("a record not in the resource (an equal copy) changes nothing", () => {
    const t = new TrialWorld(W, "s");
    const before = [...t.resource("valves")];
    t.removeRecord("valves", { ...before.at(-1)! });
    expect(t.resource("valves")).toEqual(before);
    expect(t.removed.size).toBe(0);
  });
});

describe("fork", () => {
  it("copies the clock, tokens and counters; later changes stay apart", () => {
    const t = new TrialWorld(withAuth({ ttl_calls: 2 }), "s");
    t.advance(4);
    const { token } = t.issueToken();
    expect(t.spendToken(token, [])).toBe("ok");
    t.nextSeq("x");
    t.throttles.set("r", 9);
    const copy = t.fork();
    expect(copy.clock).toBe(4);
    expect(copy.nextSeq("x")).toBe(2);
    expect(copy.throttles.get("r")).toBe(9);
    expect(copy.spendToken(token, [])).toBe("ok");
    expect(copy.spendToken(token, [])).toBe("expired");
    expect(t.spendToken(token, [])).toBe("ok");
    copy.tick();
    expect(t.clock).toBe(4);
  });

  it("shares records until one side writes one: each write, add and removal stays on its side", () => {
    const t = new TrialWorld(W, "s");
    const [first, second, third] = t.resource("valves");
    const zone = first!.zone;
    const copy = t.fork();
    expect(copy.resource("valves")[0]).toBe(first);
    Object.assign(copy.writable("valves", first!), { zone: "Z" });
    expect(copy.resource("valves")[0]!.zone).toBe("Z");
    expect(first!.zone).toBe(zone);
    expect(t.resource("valves")[0]).toBe(first);
    // The trial forked from writes its own copy too, after the fork.
    Object.assign(t.writable("valves", second!), { zone: "Y" });
    expect(t.resource("valves")[1]!.zone).toBe("Y");
    expect(copy.resource("valves")[1]).toBe(second);
    expect(second!.zone).not.toBe("Y");
    // A second write changes the copy already made, in place, wherever it stands.
    const mine = copy.writable("valves", copy.resource("valves")[0]!);
    expect(mine).toBe(copy.resource("valves")[0]);
    const count = t.resource("valves").length;
    copy.addRecord("valves", { valve_id: "VL-NEW" });
    copy.removeRecord("valves", third!);
    expect(t.resource("valves")).toHaveLength(count);
    expect(t.resource("valves")).toContain(third);
    expect(t.removed.size).toBe(0);
    expect(copy.resource("valves")).toHaveLength(count);
    expect(copy.removed.get("valves")).toEqual([third]);
    // A fork of the fork shares the copy's own records, which neither changes in place again.
    const again = copy.fork();
    Object.assign(again.writable("valves", mine), { zone: "X" });
    expect(mine.zone).toBe("Z");
    expect(copy.writable("valves", mine)).not.toBe(mine);
  });

  it("a record a reply showed is copied before its next write", () => {
    const t = new TrialWorld(W, "s");
    const mine = t.writable("valves", t.resource("valves")[0]!);
    expect(t.writable("valves", mine)).toBe(mine);
    const shown = t.expose(mine);
    expect(shown).toBe(mine);
    Object.assign(t.writable("valves", mine), { zone: "Z" });
    expect(shown.zone).not.toBe("Z");
    expect(t.resource("valves")[0]!.zone).toBe("Z");
  });

  it("copies jobs, shares staged writes and stored replies; a job's record follows its row's writes", () => {
    const t = new TrialWorld(W, "s");
    const row = t.resource("valves")[0]!;
    t.jobs.set("j1", {
      id: "j1",
      routeId: "r",
      resource: "valves",
      record: row,
      createdAt: 2,
      state: "pending",
    });
    t.staged.set("s1", { recordId: "VL-9", record: row });
    t.replies.set("k", { fingerprint: "f", status: 201, headers: {}, body: null });
    const copy = t.fork();
    expect(copy.jobs.get("j1")).toEqual(t.jobs.get("j1"));
    expect(copy.staged.get("s1")).toEqual({ recordId: "VL-9", record: row });
    expect(copy.replies.get("k")).toEqual({ fingerprint: "f", status: 201, headers: {}, body: null });
    copy.jobs.get("j1")!.state = "done";
    expect(t.jobs.get("j1")!.state).toBe("pending");
    const written = copy.writable("valves", row);
    expect(copy.jobs.get("j1")!.record).toBe(written);
    expect(copy.staged.get("s1")!.record).toBe(written);
    expect(t.jobs.get("j1")!.record).toBe(row);
    expect(t.staged.get("s1")!.record).toBe(row);
  });

  it("an unknown resource is a bug, named", () => {
    expect(() => new TrialWorld(W, "s").resource("nope")).toThrow(
      "world example-irrigation: route names unknown resource nope",
    );
  });
});
