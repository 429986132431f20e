import { describe, expect, it } from "vitest";
import {
  defaultBank as bank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  soloTasks as solo,
} from "../../../test/support/default-bank-replay.js";
import type { JsonValue } from "../../bank/json.js";
import type { Premise } from "../../bank/premise-schema.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";
import { premiseFindings } from "../../certify/premises.js";
import { demandsSomething } from "../ticket-sentences.js";

// Holes the December agent audit found by playing a private bank (`generate --seed audit-dec`) over
// `apiflow mcp --http` as an agent would. Each test replays a default-bank task's golden with the
// one change the agent made, through the real harness, and states the verdict the ticket calls
// for. The ones still open are `it.fails`, each naming its hole.

/** The statuses the world answered to requests matching `method` and `url`, in order. */
function statuses(events: Awaited<ReturnType<typeof replay>>["events"], method: string, url: RegExp) {
  return events.flatMap((e) =>
    e.type === "exchange" && e.method === method && url.test(e.url) ? [e.status] : [],
  );
}

const WAIT = "x-apiflow-wait";
const waits = (s: Execute) => Object.keys(s.request.headers ?? {}).some((h) => h.toLowerCase() === WAIT);

describe("agent audit (dec): an auth sweep's pauses are part of the job", () => {
  // billing-ledger-sub05 (hard) and fleet-telemetry-sub11 (medium) of seed audit-dec: "Run the
  // whole sweep, pauses included, so that every read succeeds" (5 reads, `x-apiflow-wait` at each
  // pause). One mint, no pause at all and only the 3 reads whose values the card names passed in
  // 4 tool calls: no predicate holds the pauses or the unreported reads, so the token never
  // expires and the auth skill is never used.
  const task = solo.find(
    (t) =>
      t.axes.includes("auth") && /\(pause\)/.test(t.ticket) && t.golden.some((s) => isExecute(s) && waits(s)),
  );

  /** The golden without any pause, and without the reads that capture nothing. */
  function noPauses(t: Task): GoldenStep[] {
    return t.golden.flatMap((s): GoldenStep[] => {
      if (!isExecute(s)) return [s];
      if (s.request.method === "GET" && Object.keys(s.capture).length === 0) return [];
      const headers = Object.fromEntries(
        Object.entries(s.request.headers ?? {}).filter(([h]) => h.toLowerCase() !== WAIT),
      );
      return [{ ...s, request: { ...s.request, headers } }];
    });
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the golden itself passes (the control)", async () => {
    if (!task) throw new Error("no auth sweep with pauses");
    expect((await replay(task, task.golden, "golden")).grade.passed).toBe(true);
  });

  // Closed: each pause carries an `order` predicate (`paused_before_<id>`) measured from the read
  // before the pause (on its own route) to the first read after it by any route (own, nested or
  // the listing: `from_first_before`), so the legitimate other_route variant still passes.
  it("a sweep that never pauses (so no token ever expires) fails", async () => {
    if (!task) throw new Error("no auth sweep with pauses");
    const r = await replay(task, noPauses(task), "no-pauses");
    // Honest: every read the world served answered 200; the auth challenge was never met.
    expect(statuses(r.events, "GET", /./).every((s) => s === 200)).toBe(true);
    expect(r.grade.passed).toBe(false);
  });

  it("a sweep that reads every asset but drops the pauses fails, naming the pause", async () => {
    if (!task) throw new Error("no auth sweep with pauses");
    const steps = task.golden.map((s): GoldenStep => {
      if (!isExecute(s) || !waits(s)) return s;
      const headers = Object.fromEntries(
        Object.entries(s.request.headers ?? {}).filter(([h]) => h.toLowerCase() !== WAIT),
      );
      return { ...s, request: { ...s.request, headers } };
    });
    const r = await replay(task, steps, "all-reads-no-pauses");
    expect(r.grade.passed).toBe(false);
    const failed = r.grade.g1.filter((p) => !p.passed).map((p) => p.id);
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((id) => id.startsWith("paused_before_"))).toBe(true);
    expect(r.grade.failure_reason).toMatch(/order paused_before_\S+ \(requirement paused_before_/);
  });

  // Issue 15: graded pauses are an instruction of the ticket, not only its story: a requirement
  // holding a pause states a sentence that demands it (and a brief, for a chain's step).
  it("every sweep's pauses are demanded by a requirement sentence held by the pause predicates", () => {
    const sweeps = bank.tasks.filter((t) => t.grader.g1.some((p) => p.id.startsWith("paused_before_")));
    expect(sweeps.length).toBeGreaterThan(0);
    for (const t of sweeps) {
      const stated = (t.requirements ?? []).filter(
        (r) => r.sentence !== undefined && r.predicates.some((p) => p.startsWith("paused_before_")),
      );
      expect(stated.length, t.id).toBeGreaterThan(0);
      for (const r of stated) {
        expect(r.kind, t.id).toBe("ordering");
        expect(r.brief, t.id).toBeDefined();
        expect(demandsSomething(r.sentence as string), t.id).toBe(true);
        expect(t.story ?? [], t.id).not.toContain(r.sentence);
        const told = t.kind === "chain" ? (r.brief as string) : (r.sentence as string);
        expect(t.ticket, t.id).toContain(told);
      }
      // Every pause predicate holds a requirement (the first one's states the sentence for all).
      for (const p of t.grader.g1.filter((q) => q.id.startsWith("paused_before_")))
        expect(p.requirement, `${t.id} ${p.id}`).toMatch(/^paused_before_/);
    }
  });
});

describe("agent audit (dec): a recovered write must stick", () => {
  // water-utility-sub14 (405, hard) and harbor-telemetry-sub07 (409, medium) of seed audit-dec:
  // "Make the change stick". The right PATCH, then a second PATCH putting the old value back,
  // passed: the write is checked as a call, and no error-recovery task has an end-state predicate.
  function writeStep(t: Task): { at: number; step: Execute; key: string } | null {
    for (const [at, s] of t.golden.entries()) {
      if (!isExecute(s) || !["PUT", "PATCH"].includes(s.request.method)) continue;
      const body = s.request.body;
      if (!body || typeof body !== "object" || Array.isArray(body) || "version" in body) continue;
      const key = Object.keys(body).find(
        (k) => typeof body[k] === "string" && !String(body[k]).includes("{{"),
      );
      if (key) return { at, step: s, key };
    }
    return null;
  }
  /** The golden with a read of the record before the write (the control: an extra read) and, with `undo`, the old value written back after it. */
  function withUndo(t: Task, undo: boolean): GoldenStep[] {
    const w = writeStep(t);
    if (!w) throw new Error("no write");
    const { "Content-Type": _ct, "content-type": _lct, ...headers } = w.step.request.headers ?? {};
    const read: Execute = {
      op: "execute",
      request: { method: "GET", url: w.step.request.url, headers },
      capture: { audit_old: w.key },
    };
    const back: Execute = {
      ...w.step,
      request: { ...w.step.request, body: { [w.key]: "{{audit_old}}" } },
      capture: {},
    };
    return t.golden.flatMap((s, j) => (j !== w.at ? [s] : undo ? [read, s, back] : [read, s]));
  }

  // Closed: the wrong-verb and version-conflict updates, and the close of a planted work record,
  // carry an end-state predicate (change_sticks / close_sticks: the record's field ends as the
  // value asked); the call alone did not see an undo.
  describe.each([
    ["an asset's field", (t: Task) => !/variable/.test(t.ticket)],
    ["a planted work record's status", (t: Task) => /variable/.test(t.ticket)],
  ])("%s", (_label, kind) => {
    const task = solo.find(
      (t) => t.axes.includes("error_recovery") && /`405 /.test(t.ticket) && kind(t) && writeStep(t) !== null,
    );

    it("the task this test needs exists in the default bank", () => {
      expect(task).toBeDefined();
    });

    it("the golden with an extra read of the record first passes (the control)", async () => {
      if (!task) throw new Error("no 405 error-recovery task with a literal write");
      const r = await replay(task, withUndo(task, false), "extra-read");
      expect(r.grade.failure_reason).toBe("");
      expect(r.grade.passed).toBe(true);
    });

    it("the change written and then undone (the record ends with its old value) fails", async () => {
      if (!task) throw new Error("no 405 error-recovery task with a literal write");
      const r = await replay(task, withUndo(task, true), "write-undone");
      const w = writeStep(task);
      // Honest: both writes were accepted.
      expect(statuses(r.events, w?.step.request.method ?? "", /./)).toEqual([200, 200]);
      expect(r.grade.passed).toBe(false);
      expect(r.grade.failure_reason).toMatch(/_sticks/);
    });
  });
});

describe("agent audit (dec): multistep creates and the hand-typed value", () => {
  // clinical-scheduling-sub07 of seed audit-dec: "its create sent a calibration_cert typed in by
  // hand and came back `422 validation-failed`". The world took a create with any value
  // ("cal 2024-11", another epoch's cert) with 201. An agent that tried a typed value first, left
  // that record alone, then did the job right (live value, confirmed, linked) failed: "the target
  // record is unknown: 2 records match" (the record's role is room and level only).
  function createStep(t: Task): { at: number; step: Execute; copyKey: string } | null {
    for (const [at, s] of t.golden.entries()) {
      if (!isExecute(s) || s.request.method !== "POST") continue;
      const body = s.request.body;
      if (!body || typeof body !== "object" || Array.isArray(body)) continue;
      // The live value: a placeholder an earlier read captured (not a vault secret).
      const captured = new Set(
        t.golden.slice(0, at).flatMap((e) => (isExecute(e) ? Object.keys(e.capture) : [])),
      );
      const copyKey = Object.keys(body).find((k) =>
        captured.has(String(body[k]).replace(/^\{\{|\}\}$/g, "")),
      );
      if (copyKey && Object.keys(s.capture).length > 0) return { at, step: s, copyKey };
    }
    return null;
  }
  const task = solo.find((t) => t.axes.includes("multistep") && /`422 /.test(t.ticket) && createStep(t));
  const quoting422 = solo.filter((t) => t.axes.includes("multistep") && /`422 /.test(t.ticket));

  const createUrl = (t: Task) => new RegExp(`^${createStep(t)?.step.request.url ?? "-"}$`);

  /** The create with the live value replaced by a typed one, capturing nothing. */
  function typedCreate(t: Task): Execute {
    const c = createStep(t);
    if (!c) throw new Error("no create");
    const body = c.step.request.body as Record<string, unknown>;
    return {
      ...c.step,
      request: { ...c.step.request, body: { ...body, [c.copyKey]: "TYPED-BY-HAND-1" } as never },
      capture: {},
    };
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  // Closed: the world takes any string there (the value is checked by the grader's data flow, not
  // refused), so no ticket says a typed value came back 422. What the tickets say got 422, a create
  // without the value, is declared as a premise, and the premises gate plays it on the world.
  it("no multistep ticket says a hand-typed value was refused", () => {
    expect(quoting422.length).toBeGreaterThan(0);
    expect(quoting422.filter((t) => /by hand/.test(t.ticket)).map((t) => t.id)).toEqual([]);
  });

  it("every multistep ticket's 422 is a premise the world answers", async () => {
    for (const t of quoting422) {
      const calls = (t.premises ?? []).filter((p) => p.kind === "call" && p.status === 422);
      expect(calls, t.id).not.toEqual([]);
      expect(await premiseFindings(bank, t), t.id).toEqual([]);
    }
  });

  it("the old claim, declared as a premise, is caught by the premises gate", async () => {
    if (!task) throw new Error("no multistep task quoting a 422 create");
    const typed = typedCreate(task);
    // Honest: the world accepts the typed value.
    const r = await replay(task, [...task.golden.slice(0, createStep(task)?.at), typed], "typed-create");
    expect(statuses(r.events, "POST", createUrl(task)).at(-1)).toBe(201);
    const claim: Premise = {
      kind: "call",
      method: "POST",
      url: typed.request.url,
      body: typed.request.body as Record<string, JsonValue>,
      token: "fresh",
      status: 422,
      error: "validation_failed",
    };
    const findings = await premiseFindings(bank, { ...task, premises: [claim] });
    expect(findings.map((f) => f.check)).toEqual(["call:status"]);
  });

  // Closed: an abandoned create (never confirmed, never linked) before the right one made the
  // record's role ambiguous; issue 15 lists "an abandoned job, with only the right one confirmed"
  // among the variants that must pass. The role now includes the copied value the ticket asks for
  // (story-state `createWork`), which the typed create does not carry.
  it("a typed create left abandoned before the right one passes", async () => {
    if (!task) throw new Error("no multistep task with a hand-typed create");
    const c = createStep(task);
    const steps = task.golden.flatMap((s, j) => (j === c?.at ? [typedCreate(task), s] : [s]));
    const r = await replay(task, steps, "abandoned-typed-create");
    expect(statuses(r.events, "POST", createUrl(task))).toEqual([201, 201]);
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });
});

describe("agent audit (dec): a chain's replacement segment asks for the read its grader demands", () => {
  // lab-samples-chain-1to12 of seed audit-dec, segment 8: "Delete the superseded test run in
  // `runs_ins_99v`, prove it is gone, open a `routine` replacement for INS-99V carrying the old
  // record's `reagent_lot`". The agent carried the reagent_lot it had seen when it created that run
  // (segment 2's 201; the chain's ticket says "Keep what you find; later steps need it") and failed
  // copy_carried_over: the grader wants the value from a GET of the run before the delete. The solo
  // ticket says so ("Before deleting it, note the `…` it carries"); the chain's line does not, and in
  // its order (delete, prove gone, then open) the old record can no longer be read.
  const lines = bank.tasks
    .filter((t) => t.kind === "chain")
    .flatMap((t) => t.ticket.split("\n").filter((line) => /the superseded/.test(line)));

  it("the chains this test needs exist in the default bank", () => {
    expect(lines.length).toBeGreaterThan(0);
  });

  // Closed: the chain's line, like the solo ticket, asks to read the record and note the value
  // before deleting it.
  it("every such line asks to read the old record before deleting it", () => {
    expect(lines.filter((line) => !/before deleting/i.test(line))).toEqual([]);
  });
});

describe("agent audit (dec): a name resolved through the canonical registry route", () => {
  // transit-operations-sub06 (discovery) and event-ticketing-sub02 (pagination) of seed audit-dec:
  // "Resolve "Tram Altmarkt 4" to its id using the documented routes, then read it". The agent
  // found it through `GET /v3/ops/catalog/vehicles?service_state=…` (documented, v3, canonical in
  // the world: a 12-position chain of the same bank sends the agent there itself), then read the
  // record: it failed id_from_list_used, "no response from /^/v3/ops/vehicles(\?.*)?$/".
  const task = solo.find(
    (t) =>
      t.axes.includes("discovery") && /^Resolve "|Resolve "/.test(t.ticket) && listingCapture(t) !== null,
  );

  /** The golden step that captures the id from the listing, and that capture. */
  function listingCapture(t: Task): { at: number; step: Execute; name: string; path: string } | null {
    for (const [at, s] of t.golden.entries()) {
      if (!isExecute(s) || s.request.method !== "GET") continue;
      const entry = Object.entries(s.capture).find(([, p]) => /^[^.]+\.\d+\.[^.]+$/.test(p));
      if (entry) return { at, step: s, name: entry[0], path: entry[1] };
    }
    return null;
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  // Closed: the data flow's source was the listing route only; the world's registry and catalog
  // routes are canonical and list the same live rows, and are now its `also_from` (other-sources
  // `otherListings`).
  it("the id taken from the canonical registry route (the target's category) passes", async () => {
    if (!task) throw new Error("no discovery task resolving a name");
    const c = listingCapture(task);
    const world = bank.worlds.find((w) => w.id === task.world);
    const [collection, , idField] = c?.path.split(".") ?? [];
    const listPath = c?.step.request.url.split("?")[0];
    const registry = world?.routes.find(
      (r) =>
        r.method === "GET" &&
        r.status === "canonical" &&
        /\/registry\//.test(r.path) &&
        (r.query_params?.length ?? 0) > 0,
    );
    const param = registry?.query_params?.[0];
    if (!c || !registry || !param || !collection || !idField || !listPath)
      throw new Error("no registry route");
    // First run: the golden, which shows the target's row, then every category of the registry.
    const probes: Execute[] = (param.allowed ?? []).map((v) => ({
      op: "execute",
      request: { ...c.step.request, url: `${registry.path}?${param.name}=${v}` },
      capture: {},
    }));
    const first = await replay(
      task,
      [...task.golden.slice(0, -1), ...probes, ...task.golden.slice(-1)],
      "probe",
    );
    const row = first.events.flatMap((e) => {
      if (e.type !== "exchange" || !e.url.startsWith(`${registry.path}?`)) return [];
      const rows = (e.response_body as Record<string, unknown> | null)?.[collection];
      return Array.isArray(rows)
        ? rows.map((r, i) => ({ url: e.url, i, r: r as Record<string, unknown> }))
        : [];
    });
    // The target: the record the golden read after the listing.
    const read = first.events.find(
      (e) =>
        e.type === "exchange" && e.method === "GET" && e.status === 200 && e.url.startsWith(`${listPath}/`),
    );
    const targetId =
      read?.type === "exchange" ? read.url.slice(listPath.length + 1).split(/[/?]/)[0] : undefined;
    const hit = row.find((x) => x.r[idField] === targetId);
    if (!hit) throw new Error("the target is in no category of the registry");
    // Second run: the registry read in place of the listing, then the golden's own read.
    const viaRegistry: Execute = {
      op: "execute",
      request: { ...c.step.request, url: hit.url },
      capture: { [c.name]: `${collection}.${hit.i}.${idField}` },
    };
    const r = await replay(
      task,
      task.golden.flatMap((s, j) =>
        j === c.at ? [viaRegistry] : isExecute(s) && s.request.url.startsWith(`${listPath}?`) ? [] : [s],
      ),
      "registry-route",
    );
    expect(statuses(r.events, "GET", new RegExp(`^${listPath}(\\?|$)`))).toEqual([]);
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });
});
