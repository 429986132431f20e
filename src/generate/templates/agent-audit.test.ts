import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";
import { playAndAnswer, scripted, trial } from "../../certify/certify-kit.js";
import { defaultBankContent } from "../default-bank.js";

// Holes the agent audit found by playing default-bank tasks over `apiflow mcp --http` as an agent
// would (issue 17/20 audit). Each test replays the task's golden with one change an agent made,
// through the real harness, and states the verdict the ticket calls for. Each hole is closed
// (schema repair's client values, ids by record role, the runner-up read from the listing, a
// chain's listing wording); the tests keep them closed.

const bank = bankFromContent(defaultBankContent());
type Execute = Extract<GoldenStep, { op: "execute" }>;
const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";
const mentions = (text: string, name: string) => text.includes(`{{${name}}}`);

function replay(task: Task, steps: readonly GoldenStep[], name: string) {
  return trial(
    bank,
    task,
    scripted(bank, name, async (session) => {
      await playAndAnswer(session, task, steps);
    }),
  );
}

/** The statuses the world answered to requests matching `method` and `url`, in order. */
function statuses(events: Awaited<ReturnType<typeof replay>>["events"], method: string, url: RegExp) {
  return events.flatMap((e) =>
    e.type === "exchange" && e.method === method && url.test(e.url) ? [e.status] : [],
  );
}

describe("agent audit: schema repair keeps the client's values", () => {
  // water-utility-sub13, epoch 7 over MCP: the create repaired to snake_case but sent
  // `category: "emergency"` where the ticket's body said "planned" (and dropped access_notes):
  // it passed. The ticket asks for the client's work order with the payload fixed, not another one.
  function changedQuotedValues(task: Task): Array<{ steps: GoldenStep[]; key: string }> {
    const urls = task.golden.filter(isExecute).map((s) => s.request.url);
    // The repaired create is the last POST: an earlier one may replay the client's failing call.
    const last = task.golden.findLastIndex((s) => isExecute(s) && s.request.method === "POST");
    const step = task.golden[last];
    if (!step || !isExecute(step)) return [];
    const body = step.request.body;
    if (!body || typeof body !== "object" || Array.isArray(body)) return [];
    return Object.entries(body).flatMap(([key, value]) => {
      // A value the client chose: written in the ticket's quoted body, not a placeholder, not
      // the record the request is about (that one appears in a URL too).
      if (typeof value !== "string" || value.includes("{{") || !task.ticket.includes(`"${value}"`)) return [];
      if (urls.some((u) => u.includes(value))) return [];
      const changed: Execute = {
        ...step,
        request: { ...step.request, body: { ...body, [key]: `${value}-not-asked` } },
      };
      return [{ steps: task.golden.map((s, j) => (j === last ? changed : s)), key }];
    });
  }

  const candidates = bank.tasks
    .filter((t) => t.kind === "solo" && t.axes.includes("schema_repair"))
    .flatMap((task) => changedQuotedValues(task).map((edit) => ({ task, edit })))
    .slice(0, 12);

  it("the tasks this test needs exist in the default bank", () => {
    expect(candidates.length).toBeGreaterThan(0);
  });

  it("a create that changes a value the ticket's body gave (the world accepts it) fails", async () => {
    let accepted = 0;
    for (const { task, edit } of candidates) {
      const r = await replay(task, edit.steps, "changed-client-value");
      // Honest: only creates the world took count (an enum value it refuses is caught by the world,
      // not the grader), so only the grader can tell.
      if (!statuses(r.events, "POST", /./).includes(201)) continue;
      accepted++;
      expect(r.grade.passed, `${task.id}: ${edit.key} changed`).toBe(false);
    }
    expect(accepted).toBeGreaterThan(0);
  });
});

describe("agent audit: the target record is the one the work was done on", () => {
  // hotel-housekeeping-sub07, epoch 4: a first create with a hand-typed value (the world answered
  // 201, not the ticket's 422), deleted at once as a duplicate, then the ticket done right on a
  // second create. G1 ("on the target record") and G2 (expected id) both wanted the deleted one:
  // the target is fixed by creation order, not by the record the workflow moved and linked.
  function strayCreateFirst(task: Task): GoldenStep[] | null {
    for (const [i, step] of task.golden.entries()) {
      if (!isExecute(step) || step.request.method !== "POST") continue;
      const [idVar, idPath] = Object.entries(step.capture)[0] ?? [];
      if (!idVar || !idPath) continue;
      // The new record's own route: a later PUT/PATCH whose URL carries the new id.
      const own = task.golden
        .slice(i + 1)
        .find((s) => isExecute(s) && s.request.method !== "GET" && mentions(s.request.url, idVar));
      if (!own || !isExecute(own)) continue;
      const stray: Execute = { ...step, capture: { audit_stray: idPath } };
      const remove: Execute = {
        op: "execute",
        request: {
          method: "DELETE",
          url: own.request.url.replace(`{{${idVar}}}`, "{{audit_stray}}"),
          headers: Object.fromEntries(
            Object.entries(own.request.headers ?? {}).filter(([k]) => k.toLowerCase() !== "content-type"),
          ),
        },
        capture: {},
      };
      return [...task.golden.slice(0, i), stray, remove, ...task.golden.slice(i)];
    }
    return null;
  }

  const task = bank.tasks.find(
    (t) => t.kind === "solo" && t.axes.includes("multistep") && strayCreateFirst(t) !== null,
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the golden itself passes (the control)", async () => {
    if (!task) throw new Error("no multistep task with a create and its own route");
    expect((await replay(task, task.golden, "golden")).grade.passed).toBe(true);
  });

  it("a stray create deleted before the real one does not move the target (closed by ids by record role, issue 15)", async () => {
    if (!task) throw new Error("no multistep task with a create and its own route");
    const steps = strayCreateFirst(task);
    if (!steps) throw new Error("unreachable");
    const r = await replay(task, steps, "stray-create-deleted");
    expect(statuses(r.events, "DELETE", /./)).toEqual([204]);
    expect(r.grade.passed).toBe(true);
  });
});

describe("agent audit: the ticket says which values must be read live", () => {
  /**
   * The golden with the single-record read that captured `bindings` dropped, and those bindings
   * taken from the listing row the read's id came from (same values, no canonical read).
   */
  function fromListing(task: Task, bindings: (names: string[]) => boolean): GoldenStep[] | null {
    for (const [i, read] of task.golden.entries()) {
      if (!isExecute(read) || read.request.method !== "GET" || !bindings(Object.keys(read.capture))) continue;
      const idVar = read.request.url.match(/\{\{([^}]+)\}\}$/)?.[1];
      if (!idVar) continue;
      const listingAt = task.golden.findIndex((s) => isExecute(s) && s.capture[idVar] !== undefined);
      const listing = task.golden[listingAt];
      if (!listing || !isExecute(listing)) continue;
      const row = listing.capture[idVar]?.replace(/\.[^.]+$/, "");
      if (!row) continue;
      const extra = Object.fromEntries(
        Object.entries(read.capture).map(([name, key]) => [name, `${row}.${key}`]),
      );
      const widened: Execute = { ...listing, capture: { ...listing.capture, ...extra } };
      return task.golden.flatMap((s, j) => (j === i ? [] : j === listingAt ? [widened] : [s]));
    }
    return null;
  }

  // warehouse-robotics-sub08 (hard pagination): "Give the winner's live `nav_map_rev` and
  // `safety_cert`, and the runner-up's nav_map_rev": only the winner's values are asked live, yet
  // runner_up_from_read demanded a GET of the runner-up's own record. Now the golden reads the
  // runner-up's value off the listing (runner_up_from_listing), and reading its record as well
  // (after the listing showed its row) still passes.
  const runnerCapture = (t: Task) =>
    t.golden.findIndex((s) => isExecute(s) && Object.keys(s.capture).some((n) => n.endsWith("_runner")));
  const solo = bank.tasks.find(
    (t) =>
      t.kind === "solo" &&
      t.axes.includes("pagination") &&
      /the runner-up's (?!live)/.test(t.ticket) &&
      runnerCapture(t) >= 0,
  );

  /** The golden with the runner-up's value read from its own record instead of the listing row. */
  function runnerFromRecord(task: Task): GoldenStep[] {
    const at = runnerCapture(task);
    const listing = task.golden[at] as Execute;
    const [runner, path] = Object.entries(listing.capture).find(([n]) => n.endsWith("_runner")) ?? [];
    const id1 = Object.keys(listing.capture).find((n) => n.endsWith("_id1"));
    const winnerRead = task.golden.find(
      (s): s is Execute => isExecute(s) && /\{\{[^}]+_id0\}\}$/.test(s.request.url),
    );
    if (!runner || !path || !id1 || !winnerRead) throw new Error("no runner-up binding in the golden");
    const { [runner]: _gone, ...kept } = listing.capture;
    const read: Execute = {
      ...winnerRead,
      request: {
        ...winnerRead.request,
        url: winnerRead.request.url.replace(/\{\{[^}]+_id0\}\}$/, `{{${id1}}}`),
      },
      capture: { [runner]: path.split(".").pop() as string },
    };
    const last = task.golden.findLastIndex(isExecute);
    return task.golden.flatMap((s, j) =>
      j === at ? [{ ...listing, capture: kept }] : j === last ? [s, read] : [s],
    );
  }

  it("the tasks these tests need exist in the default bank", () => {
    expect(solo).toBeDefined();
  });

  it("the runner-up's value taken from the full listing passes (the ticket asks it live only of the winner)", async () => {
    if (!solo) throw new Error("no hard pagination task");
    const r = await replay(solo, solo.golden, "runner-up-from-listing");
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });

  it("the runner-up's value read from its own record after the walk passes too", async () => {
    if (!solo) throw new Error("no hard pagination task");
    const r = await replay(solo, runnerFromRecord(solo), "runner-up-from-record");
    expect(statuses(r.events, "GET", /./).length).toBeGreaterThan(solo.golden.filter(isExecute).length - 1);
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });

  // satellite-ground-chain-1to03, segment 3 read "Find the satellite with the highest
  // `battery_soc_pct` across all satellites over the whole listing and report `obsw_build_3`,
  // `crypto_epoch_3`": the chain's wording dropped the solo ticket's "live", but its grader
  // demands the winner's canonical read (winner_id_from_listing, *_from_read). The wording now
  // asks for that read; a line of a chain's ticket that sends the agent over the whole listing
  // also asks for the live values from the record.
  const listingLines = bank.tasks
    .filter((t) => t.kind === "chain")
    .flatMap((t) => t.ticket.split("\n").filter((line) => /over the whole listing/.test(line)));

  it("a chain's listing segment asks for the live read its grader demands", () => {
    expect(listingLines.length).toBeGreaterThan(0);
    expect(listingLines.filter((line) => !/live values from its own record/.test(line))).toEqual([]);
  });

  it("a chain's listing segment that reads its winner from the listing only fails", async () => {
    const chain = bank.tasks.find(
      (t) =>
        t.kind === "chain" &&
        t.positions.length <= 4 &&
        /over the whole listing/.test(t.ticket) &&
        chainReadNotAsked(t) !== null,
    );
    if (!chain) throw new Error("no chain with a listing segment");
    const steps = chainReadNotAsked(chain);
    if (!steps) throw new Error("unreachable");
    expect((await replay(chain, steps, "winner-from-listing")).grade.passed).toBe(false);
  });
  const chainReadNotAsked = (t: Task) =>
    fromListing(t, (names) => names.some((n) => /_c1$/.test(n)) && names.some((n) => /_c2$/.test(n)));
});
