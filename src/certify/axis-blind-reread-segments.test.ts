import { describe, expect, it } from "vitest";
import { ctxOf, get, send, whole } from "../../test/support/blind-segments.js";
import type { JsonValue } from "../bank/json.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { BlindContext } from "./axis-blind.js";

/**
 * Issue 21: the re-read rule of axis necessity 2.1.0 on hand-built segments of the harbour world,
 * what `npm run mutate certify-axis-blind` and `certify-axis-blind-calls` found unobserved: the
 * agent blind to the re-read only (`rereadOnly`) rewrites statefulness segments alone, keeps their
 * stores and their plain re-reads, and leaves out a read of a record after the golden wrote to it
 * where an earlier response shows what the read takes (the write's reply, the record's row in a
 * listing). axis-blind-reread.test.ts shows the rule on the default bank.
 */

const V204 = "/v3/vessels/V-204";
const V311 = "/v3/vessels/V-311";
const store: GoldenStep = { op: "store", name: "kept_berth", scope: "local", from: "berth" };

/** `ctx` blind to the re-read only. */
const rereadOnly = (ctx: BlindContext): BlindContext => ({ ...ctx, rereadOnly: true });

/**
 * V-204 read, moved (its PATCH reply shows the new berth), read again for the berth and stored;
 * V-311 read twice, never written.
 */
const moved = (): GoldenStep[] => [
  get(V204, { name: "name" }),
  send("PATCH", V204, {}, { body: { berth: "B-9" } }),
  get(V204, { berth: "berth" }),
  store,
  get(V311, { a: "name" }),
  get(V311, { b: "berth" }),
];
const movedBodies = {
  0: { vessel_id: "V-204", name: "Nordic Tern", berth: "B-1" },
  1: { vessel_id: "V-204", name: "Nordic Tern", berth: "B-9" },
  2: { vessel_id: "V-204", name: "Nordic Tern", berth: "B-9" },
};
const afterChange = (url: string, view: string) => `GET ${url} not read again after its change (${view})`;

describe("blind to the re-read only: which segments, which reads", () => {
  it("a statefulness segment drops only the read after the change: stores and plain re-reads stay", () => {
    const steps = moved();
    expect(whole("statefulness", rereadOnly(ctxOf(steps, { bodies: movedBodies })))).toEqual({
      steps: [
        steps[0],
        send("PATCH", V204, { berth: "berth" }, { body: { berth: "B-9" } }),
        store,
        steps[4],
        steps[5],
      ],
      renames: [],
      what: [afterChange(V204, "its PATCH reply")],
    });
  });

  it("fully blind to statefulness, the same segment also loses its plain re-read and its store", () => {
    const steps = moved();
    expect(whole("statefulness", ctxOf(steps, { bodies: movedBodies }))).toEqual({
      steps: [
        steps[0],
        send("PATCH", V204, { berth: "berth" }, { body: { berth: "B-9" } }),
        get(V311, { a: "name", b: "berth" }),
      ],
      renames: [],
      what: [
        afterChange(V204, "its PATCH reply"),
        `GET ${V311} not read again`,
        "local variable kept_berth not kept",
      ],
    });
  });

  it.each(["pagination", "auth", "discovery", "multistep"] as const)(
    "a %s segment is played as it is, though it re-reads a changed record",
    (axis) => {
      const steps = moved();
      expect(whole(axis, rereadOnly(ctxOf(steps, { bodies: movedBodies })))).toEqual({
        steps,
        renames: [],
        what: [],
      });
    },
  );
});

const LIST = "/v3/vessels";
const v204 = (fields: Record<string, string> = {}) => ({ vessel_id: "V-204", ...fields });
const v311 = (fields: Record<string, string> = {}) => ({ vessel_id: "V-311", ...fields });
/** A context whose exchange `i` answered `statuses[i]` (200 where not given). */
function withStatuses(ctx: BlindContext, statuses: Record<number, number>): BlindContext {
  const seen = new Map([...ctx.seen].map(([i, e]) => [i, { ...e, status: statuses[i] ?? e.status }]));
  return { ...ctx, seen };
}
/** The whole of `steps` blind to the re-read only, the golden's responses `bodies`. */
const rereadBlind = (
  steps: GoldenStep[],
  bodies: Record<number, JsonValue>,
  statuses: Record<number, number> = {},
) => whole("statefulness", rereadOnly(withStatuses(ctxOf(steps, { bodies }), statuses)));
/** The same rewrite with nothing left out: the steps as they are. */
const kept = (steps: GoldenStep[]) => ({ steps, renames: [], what: [] });

describe("the view that stands in for a read after a change: the write's own reply", () => {
  it.each(["PATCH", "PUT", "POST"])("a %s to the record is a change, its reply the view", (method) => {
    const steps = [send(method, V204), get(V204, { berth: "berth" })];
    expect(rereadBlind(steps, { 0: v204({ berth: "B-9" }) })).toEqual({
      steps: [send(method, V204, { berth: "berth" })],
      renames: [],
      what: [afterChange(V204, `its ${method} reply`)],
    });
  });

  it("a DELETE is no change the read follows", () => {
    const steps = [send("DELETE", V204), get(V204, { berth: "berth" })];
    expect(rereadBlind(steps, { 0: v204({ berth: "B-9" }) })).toEqual(kept(steps));
  });

  it.each([300, 409])(
    "a write answered %i changed nothing: the read after it is kept, though a view shows it",
    (status) => {
      const steps = [get(LIST), send("PATCH", V204), get(V204, { berth: "berth" })];
      const bodies = { 0: { vessels: [v204({ berth: "B-1" })] }, 1: v204({ berth: "B-9" }) };
      expect(rereadBlind(steps, bodies, { 1: status })).toEqual(kept(steps));
    },
  );

  it("a write to another record is no change of this one, nor its reply a view", () => {
    const steps = [get(LIST), send("PATCH", V311), get(V204, { berth: "berth" })];
    const bodies = { 0: { vessels: [v204({ berth: "B-1" })] }, 1: v311({ berth: "B-9" }) };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("a read that captures nothing is kept", () => {
    const steps = [send("PATCH", V204), get(V204)];
    expect(rereadBlind(steps, { 0: v204({ berth: "B-9" }) })).toEqual(kept(steps));
  });

  it("a reply that shows only some of what the read takes is no view", () => {
    const steps = [send("PATCH", V204), get(V204, { berth: "berth", fw: "firmware_build" })];
    expect(rereadBlind(steps, { 0: v204({ berth: "B-9" }) })).toEqual(kept(steps));
  });

  it("the latest view stands in: of two writes, the later reply", () => {
    const steps = [send("PATCH", V204), send("PUT", V204), get(V204, { berth: "berth" })];
    const bodies = { 0: v204({ berth: "B-5" }), 1: v204({ berth: "B-9" }) };
    expect(rereadBlind(steps, bodies)).toEqual({
      steps: [steps[0], send("PUT", V204, { berth: "berth" })],
      renames: [],
      what: [afterChange(V204, "its PUT reply")],
    });
  });

  it("a later write refused (300 or more), though its error shows the value, is no view: the earlier reply stands in", () => {
    const steps = [send("PATCH", V204), send("PATCH", V204), get(V204, { berth: "berth" })];
    const bodies = { 0: v204({ berth: "B-9" }), 1: { error: "conflict", berth: "B-7" } };
    for (const status of [300, 409])
      expect(rereadBlind(steps, bodies, { 1: status })).toEqual({
        steps: [send("PATCH", V204, { berth: "berth" }), steps[1]],
        renames: [],
        what: [afterChange(V204, "its PATCH reply")],
      });
  });

  it("a later write to another record, showing the value, is no view: the record's own reply stands in", () => {
    const steps = [send("PATCH", V204), send("PATCH", V311), get(V204, { berth: "berth" })];
    const bodies = { 0: v204({ berth: "B-9" }), 1: v311({ berth: "B-7" }) };
    expect(rereadBlind(steps, bodies).steps).toEqual([send("PATCH", V204, { berth: "berth" }), steps[1]]);
  });

  it("a later read of another record, showing the value, is no view either", () => {
    const steps = [send("PATCH", V204), get(V311), get(V204, { berth: "berth" })];
    const bodies = { 0: v204({ berth: "B-9" }), 1: v311({ berth: "B-7" }) };
    expect(rereadBlind(steps, bodies).steps).toEqual([send("PATCH", V204, { berth: "berth" }), steps[1]]);
  });

  it("a read of the record since its change, kept, is a plain read: the re-read after it is kept too", () => {
    // The PATCH reply shows no name: the first read stays, and the second re-reads what it showed.
    const steps = [send("PATCH", V204), get(V204, { name: "name" }), get(V204, { berth: "berth" })];
    const bodies = { 0: v204(), 1: v204({ name: "Nordic Tern", berth: "B-9" }) };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("the read is never its own view, though its body lists the record", () => {
    const steps = [send("PATCH", V204), get(V204, { berth: "berth" })];
    const bodies = { 0: v204(), 1: { ...v204({ berth: "B-9" }), history: [v204({ berth: "B-9" })] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });
});

describe("the view that stands in for a read after a change: the record's row in a listing", () => {
  /** V-204 moved (its reply shows no berth), then listed, then read for its berth. */
  const listed = (): GoldenStep[] => [
    send("PATCH", V204),
    get(LIST),
    get(V311),
    get(V204, { berth: "berth" }),
  ];

  it("the row's values stand in, found by the record's id wherever it is listed", () => {
    const bodies = {
      0: v204(),
      1: { total: 3, vessels: [null, v311({ berth: "B-2" }), v204({ berth: "B-9" })] },
      2: null,
    };
    expect(rereadBlind(listed(), bodies)).toEqual({
      steps: [send("PATCH", V204), get(LIST, { berth: "vessels.2.berth" }), get(V311)],
      renames: [],
      what: [afterChange(V204, `its row in GET ${LIST}`)],
    });
  });

  it("the listing's first row too", () => {
    const bodies = { 0: v204(), 1: { vessels: [v204({ berth: "B-9" }), v311({ berth: "B-2" })] } };
    expect(rereadBlind(listed(), bodies).steps[1]).toEqual(get(LIST, { berth: "vessels.0.berth" }));
  });

  it("a record id escaped in its URL is the listed id", () => {
    const url = "/v3/vessels/V%2D204";
    const steps = [send("PATCH", url), get(LIST), get(url, { berth: "berth" })];
    const bodies = { 0: v204(), 1: { vessels: [v311({ berth: "B-2" }), v204({ berth: "B-9" })] } };
    expect(rereadBlind(steps, bodies).steps).toEqual([
      send("PATCH", url),
      get(LIST, { berth: "vessels.1.berth" }),
    ]);
  });

  it.each([
    ["the record is not listed", { vessels: [v311({ berth: "B-2" })] }],
    ["its row lacks the value", { vessels: [v311({ berth: "B-2" }), v204()] }],
    ["the listing is a bare array", [v204({ berth: "B-9" })]],
  ])("no view when %s: the read is kept", (_, listing) => {
    expect(rereadBlind(listed(), { 0: v204(), 1: listing })).toEqual(kept(listed()));
  });

  it("a listing searched by POST is no view", () => {
    const steps = [send("PATCH", V204), send("POST", "/v3/vessels/search"), get(V204, { berth: "berth" })];
    const bodies = { 0: v204(), 1: { vessels: [v204({ berth: "B-9" })] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("a record whose route the world lacks has no listing view", () => {
    const dock = "/v3/docks/D-1";
    const steps = [send("PATCH", dock), get("/v3/docks"), get(dock, { berth: "berth" })];
    const bodies = { 0: { dock_id: "D-1" }, 1: { docks: [{ dock_id: "D-1", berth: "B-9" }] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("a record of a resource the world does not describe (a job) has no listing view", () => {
    const job = "/v3/jobs/J-1";
    const steps = [send("PATCH", job), get("/v3/jobs"), get(job, { state: "state" })];
    const bodies = { 0: { job_id: "J-1" }, 1: { jobs: [{ job_id: "J-1", state: "done" }] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("without a change, a listing showing the record is no view: a plain re-read is kept", () => {
    const steps = [get(V204, { name: "name" }), get(LIST), get(V204, { berth: "berth" })];
    const bodies = { 1: { vessels: [v204({ berth: "B-9" })] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("a listing read after the read is no view of it", () => {
    const steps = [send("PATCH", V204), get(V204, { berth: "berth" }), get(LIST)];
    const bodies = { 0: v204(), 2: { vessels: [v204({ berth: "B-9" })] } };
    expect(rereadBlind(steps, bodies)).toEqual(kept(steps));
  });

  it("a listing re-read and left out is no view: the first listing stands in", () => {
    const steps = [get(LIST), send("PATCH", V204), get(LIST), get(V204, { berth: "berth" })];
    const bodies = {
      0: { vessels: [v204({ berth: "B-1" })] },
      1: v204(),
      2: { vessels: [v311(), v204({ berth: "B-9" })] },
    };
    expect(whole("statefulness", ctxOf(steps, { bodies }))).toEqual({
      steps: [get(LIST, { berth: "vessels.0.berth" }), send("PATCH", V204)],
      renames: [],
      what: [`GET ${LIST} not read again`, afterChange(V204, `its row in GET ${LIST}`)],
    });
  });
});
