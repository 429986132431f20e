import { describe, expect, it } from "vitest";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { TrialWorld } from "./trial-world.js";

/**
 * A trial's hint level per route and its copy-on-write of records, on the trial alone (issue 21:
 * the world area's mutants; hint-level.test.ts states the same through served requests, but builds
 * the default bank, so the area does not run it).
 */
describe("hintLevel", () => {
  it("a full trial is terse exactly on the routes of terseRoutes, told by the route a path takes", () => {
    const trial = new TrialWorld(W, "seed-hints");
    expect(trial.hintLevel("/v3/valves/VL-1")).toBe("full");
    trial.terseRoutes = ["/v3/valves/{valve_id}"];
    expect(trial.hintLevel("/v3/valves/VL-1")).toBe("terse");
    expect(trial.hintLevel("/v3/valves/{valve_id}")).toBe("terse");
    expect(trial.hintLevel("/v3/valves")).toBe("full");
    expect(trial.hintLevel("/nowhere")).toBe("full");
    expect(trial.fork().hintLevel("/v3/valves/VL-2")).toBe("terse");
  });

  it("a terse trial is terse on every path, listed routes or not", () => {
    const trial = new TrialWorld(W, "seed-hints");
    trial.hints = "terse";
    expect(trial.hintLevel("/v3/valves")).toBe("terse");
    trial.terseRoutes = ["/v3/valves/{valve_id}"];
    expect(trial.hintLevel("/v3/valves")).toBe("terse");
    expect(trial.hintLevel("/nowhere")).toBe("terse");
  });
});

describe("writable", () => {
  it("moves only the jobs and staged writes that named the record written to its copy", () => {
    const t = new TrialWorld(W, "s");
    const [first, second] = t.resource("valves");
    if (!first || !second) throw new Error("the example world has fewer than two valves");
    const job = (id: string, record: typeof first) =>
      ({ id, routeId: "r", resource: "valves", record, createdAt: 1, state: "pending" }) as const;
    t.jobs.set("j1", job("j1", first));
    t.jobs.set("j2", job("j2", second));
    t.staged.set("s1", { recordId: "VL-1", record: first });
    t.staged.set("s2", { recordId: "VL-2", record: second });
    const copy = t.fork();
    const written = copy.writable("valves", first);
    expect(written).not.toBe(first);
    expect(copy.jobs.get("j1")?.record).toBe(written);
    expect(copy.staged.get("s1")?.record).toBe(written);
    expect(copy.jobs.get("j2")?.record).toBe(second);
    expect(copy.staged.get("s2")?.record).toBe(second);
    expect(copy.resource("valves")[1]).toBe(second);
  });
});
