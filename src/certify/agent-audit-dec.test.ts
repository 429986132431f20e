import { describe, expect, it } from "vitest";
import {
  defaultBank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  served,
  soloTasks as solo,
} from "../../test/support/default-bank-replay.js";
import type { G1Predicate, GoldenStep, RecordRef, Task } from "../bank/task-schema.js";
import { wireRequest } from "../world/versioning.js";
import { renamePlaceholder } from "./certify-kit.js";

// Holes the December agent audit found by playing a private bank (`generate --seed audit-dec`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for. Each hole found is closed; its test shows the verdict now.

type CountPredicate = Extract<G1Predicate, { kind: "end_state" }>;

/** The task's "exactly one" predicate: an end state counting records. */
function countPredicate(t: Task): CountPredicate | undefined {
  return t.grader.g1.find((p): p is CountPredicate => p.kind === "end_state" && p.expect.is === "count");
}

/** Names an earlier step of `steps` captured before index `at`. */
function capturedBefore(steps: readonly GoldenStep[], at: number): Set<string> {
  return new Set(steps.slice(0, at).flatMap((s) => (isExecute(s) ? Object.keys(s.capture) : [])));
}

/**
 * The golden's write: its first POST whose body carries a value an earlier read captured (the live
 * value the ticket asks the record to carry), the body key it goes in, and the send steps from it on.
 */
function liveWrite(t: Task): { at: number; copyKey: string; block: Execute[] } | null {
  for (const [at, s] of t.golden.entries()) {
    if (!isExecute(s) || s.request.method !== "POST") continue;
    const body = s.request.body;
    if (!body || typeof body !== "object" || Array.isArray(body)) continue;
    const captured = capturedBefore(t.golden, at);
    const copyKey = Object.keys(body).find((k) => captured.has(String(body[k]).replace(/^\{\{|\}\}$/g, "")));
    if (!copyKey) continue;
    return { at, copyKey, block: t.golden.slice(at).filter(isExecute) };
  }
  return null;
}

/**
 * The golden's write done once more, to the end, for the same record but carrying a made-up value
 * in place of the live one: its captures renamed (`stray_…`) so the golden's card stays the
 * golden's.
 */
function strayWrite(t: Task, made = "MADE-UP-1"): Execute[] {
  const w = liveWrite(t);
  if (!w) throw new Error("no live write");
  const names = new Set(w.block.flatMap((s) => Object.keys(s.capture)));
  return w.block.map((s) => {
    let step: GoldenStep = s;
    for (const n of names) step = renamePlaceholder(step, n, `stray_${n}`);
    const e = step as Execute;
    const capture = Object.fromEntries(Object.entries(e.capture).map(([k, v]) => [`stray_${k}`, v]));
    const body = e.request.body;
    const sent =
      body && typeof body === "object" && !Array.isArray(body) && w.copyKey in body
        ? { ...e.request, body: { ...body, [w.copyKey]: made } }
        : e.request;
    return { ...e, request: sent, capture };
  });
}

/** The golden with `extra` steps played after its last call (before its answer). */
function goldenThen(t: Task, extra: readonly GoldenStep[]): GoldenStep[] {
  const last = t.golden.findLastIndex(isExecute);
  return [...t.golden.slice(0, last + 1), ...extra, ...t.golden.slice(last + 1)];
}

/** The task as graded before the fix: the count runs over the records carrying the live value only. */
function countedByCarriedValue(t: Task): Task {
  const id = t.grader.answer.find(
    (a) => a.expected !== null && typeof a.expected === "object" && "$record" in (a.expected as object),
  );
  const ref = id?.expected as RecordRef;
  return {
    ...t,
    grader: {
      ...t.grader,
      g1: t.grader.g1.map((p) =>
        p.kind === "end_state" && p.expect.is === "count" ? { ...p, record: ref.$record } : p,
      ),
    },
  };
}

describe("agent audit (dec): exactly one record means one, whatever value a second one carries", () => {
  // billing-ledger-sub10 of seed audit-dec (multistep, hard): "Follow the job through to the end …
  // Exactly one credit note for AC50782274 must come out of it." Three async jobs submitted, polled
  // and confirmed for AC50782274 at level billing-error: two with a made-up `mandate_ref`, the
  // third with the live one; the card named the third. PASSED: the count (`one_record`) selected
  // the credit notes for the account at the level carrying the live mandate_ref, so the two written
  // with another value were not counted. The same on harbor-telemetry-sub19 (error recovery,
  // partial write: "Make sure exactly one maintenance order ends up committed."): an order for
  // V-017 committed with a made-up firmware_build beside the right one, PASSED. Class: every
  // multistep async-job and error-recovery create task ("exactly one … committed / must come out").
  // Closed: the count runs over the work records for the asset at the level (story-state
  // `countScope`); the answer's reference still names the record by its carried value too, so an
  // abandoned job sent with another value (never confirmed, no record) still passes.
  const asyncJob = solo.find(
    (t) =>
      t.axes.includes("multistep") &&
      countPredicate(t) !== undefined &&
      liveWrite(t) !== null &&
      /\/async$/.test(liveWrite(t)?.block[0]?.request.url ?? ""),
  );
  const committed = solo.find(
    (t) =>
      t.axes.includes("error_recovery") &&
      countPredicate(t) !== undefined &&
      liveWrite(t) !== null &&
      /\/intake$/.test(liveWrite(t)?.block[0]?.request.url ?? ""),
  );

  it("the tasks this test needs exist in the default bank", () => {
    expect(asyncJob).toBeDefined();
    expect(committed).toBeDefined();
  });

  for (const [name, task] of [
    ["an async job", asyncJob],
    ["a partial write", committed],
  ] as const) {
    it(`${name}: the golden, then the same write completed again with a made-up value (two records), fails naming the count`, async () => {
      if (!task) throw new Error(`no ${name} task`);
      const stray = strayWrite(task);
      const r = await replay(task, goldenThen(task, stray), "stray-second-record");
      // Honest: the world wrote the second record (the stray's completing call answered 2xx).
      const url = new RegExp(`^${(stray.at(-1) as Execute).request.url.replace(/\{\{[^}]+\}\}/g, "[^/]+")}$`);
      expect(served(r, "POST", url).at(-1)?.status).toBeLessThan(300);
      expect(r.grade.passed).toBe(false);
      const count = countPredicate(task);
      expect(r.grade.g1.find((g) => g.id === count?.id)).toMatchObject({ passed: false });
      // The grader as it was (the count over the records carrying the live value) passed it.
      const before = countedByCarriedValue(task);
      const old = await replay(before, goldenThen(before, stray), "stray-second-record");
      expect(old.grade.failure_reason).toBe("");
    });
  }

  it("an async job: a job sent with a made-up value and abandoned (never confirmed) before the golden passes", async () => {
    if (!asyncJob) throw new Error("no async job task");
    const w = liveWrite(asyncJob);
    const [create] = strayWrite(asyncJob);
    if (!w || !create) throw new Error("no live write");
    const steps = [...asyncJob.golden.slice(0, w.at), create, ...asyncJob.golden.slice(w.at)];
    const r = await replay(asyncJob, steps, "abandoned-job");
    expect(served(r, "POST", new RegExp(`^${create.request.url}$`)).map((e) => e.status)).toEqual([202, 202]);
    expect(r.grade.failure_reason).toBe("");
  });
});

describe("agent audit (dec): a job's links are in the form the world serves", () => {
  // billing-ledger-sub10 of seed audit-dec (multistep, a world versioned by the Api-Version
  // header): `POST /billing/credit-notes/async` with `Api-Version: 3` answered 202 with `Location`
  // and `poll_url` `/billing/v3/jobs/job_2XKR1W`. Followed as written (with the same headers), the
  // world answered `404 no route /billing/v3/jobs/job_2XKR1W: this API takes its version in the
  // Api-Version header, not in the path`, three times; the job's `confirm_url` and `result_url` are
  // in the same path form. The agent recovered from the 404's text, so the task stayed solvable,
  // but the world's own links were untrue in every header- or query-versioned world (route-jobs.ts
  // filled the canonical poll path; the wire form drops the version segment). Fixed in the world:
  // every link it hands out is in the wire form (`wireLink`).
  const task = solo.find(
    (t) =>
      t.versioning !== undefined &&
      t.versioning.style !== "path" &&
      t.golden.some((s) => isExecute(s) && /\/async$/.test(s.request.url)),
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the 202's poll_url followed as written, with the create's headers, is served (it was 404)", async () => {
    if (!task) throw new Error("no async task in a header- or query-versioned world");
    const at = task.golden.findIndex((s) => isExecute(s) && /\/async$/.test(s.request.url));
    // Sent as an agent sends them: the wire form, no conversion by the player.
    const wire = (s: GoldenStep): GoldenStep =>
      isExecute(s) ? { ...s, request: wireRequest(task.versioning, s.request) } : s;
    const post = wire(task.golden[at] as Execute) as Execute;
    const follow: Execute = {
      op: "execute",
      request: { method: "GET", url: "{{audit_poll}}", headers: post.request.headers ?? {} },
      capture: {},
    };
    const steps = [
      ...task.golden.slice(0, at).map(wire),
      { ...post, capture: { ...post.capture, audit_poll: "poll_url" } },
      follow,
    ];
    const r = await replay({ ...task, versioning: undefined }, steps, "follow-poll-url");
    expect(served(r, "POST", /\/async$/).map((e) => e.status)).toEqual([202]);
    expect(served(r, "GET", /\/jobs\//).at(-1)?.status).toBe(200);
  });
});

/** The golden's link write: its last call, a write whose body sets one field of the asset to the new id. */
function linkWrite(t: Task): { at: number; step: Execute; field: string } | null {
  const at = t.golden.findLastIndex(isExecute);
  const step = t.golden[at];
  if (!step || !isExecute(step) || !["PATCH", "PUT"].includes(step.request.method)) return null;
  const body = step.request.body;
  if (!body || typeof body !== "object" || Array.isArray(body) || Object.keys(body).length !== 1) return null;
  return { at, step, field: Object.keys(body)[0] as string };
}

describe("agent audit (dec): a link written on the asset must stay written", () => {
  // A hard workflow position of seed audit-dec (irrigation-control-sub08, multistep: "Read z-851d
  // and open a `deep` watering schedule … Move it to `finished`. Link it on z-851d through
  // `current_schedule_id`. Check the last update's answer."). Replayed on the default bank's
  // harbor-telemetry-sub01 ("Then link it on V-650 through `open_order_id`"): the golden, then
  // `PATCH /v3/vessels/V-650 {"open_order_id": null}`, the vessel ending with no link: PASSED.
  // The link was held by the id sent in the PATCH body (`link_written`) and the card's value from
  // the update's answer (`link_read_back`), never by the asset's final state. The status move of
  // the same task has had its end state since the mar audit; the link had none. Class: every hard
  // multistep workflow and hard statefulness task that links a work record on its asset. Closed:
  // `link_final` (work-record `linkSticks`): the asset's link field ends naming the new record.
  const linking = (axis: string) =>
    solo.find(
      (t) =>
        t.axes.includes(axis as Task["axes"][number]) &&
        (t.requirements ?? []).some((r) => r.id === "linked_on_asset") &&
        linkWrite(t) !== null,
    );
  const tasks = [
    ["a multistep workflow", linking("multistep")],
    ["a statefulness store-and-link", linking("statefulness")],
  ] as const;

  it("the tasks this test needs exist in the default bank", () => {
    for (const [, t] of tasks) expect(t).toBeDefined();
  });

  for (const [name, task] of tasks) {
    it(`${name}: the link written, then cleared (the asset ends with no link), fails naming the link`, async () => {
      if (!task) throw new Error(`no ${name} task`);
      const w = linkWrite(task);
      if (!w) throw new Error("no link write");
      const clear: Execute = {
        ...w.step,
        request: { ...w.step.request, body: { [w.field]: null } },
        capture: {},
      };
      const steps = goldenThen(task, [clear]);
      const r = await replay(task, steps, "link-cleared");
      // Honest: the world took both writes.
      const url = new RegExp(`^${w.step.request.url}$`);
      expect(served(r, w.step.request.method, url).map((e) => e.status)).toEqual([200, 200]);
      expect(r.grade.passed).toBe(false);
      expect(r.grade.g1.find((g) => g.id === "link_final")).toMatchObject({
        passed: false,
        requirement: "linked_on_asset",
      });
      // The grader as it was (no end state on the link) passed it.
      const before: Task = {
        ...task,
        grader: { ...task.grader, g1: task.grader.g1.filter((p) => p.id !== "link_final") },
      };
      expect((await replay(before, steps, "link-cleared")).grade.failure_reason).toBe("");
    });

    it(`${name}: the link written twice (the same id resent) passes`, async () => {
      if (!task) throw new Error(`no ${name} task`);
      const w = linkWrite(task);
      if (!w) throw new Error("no link write");
      const r = await replay(task, goldenThen(task, [{ ...w.step, capture: {} }]), "link-twice");
      expect(r.grade.failure_reason).toBe("");
    });
  }
});

describe("agent audit (dec): what a careful agent does differently still passes", () => {
  // Played on seed audit-dec and replayed here on the default bank; each passed there and must
  // keep passing (issue 15's legitimate variants, as an agent actually produced them).
  it("an async job confirmed too early (409), then polled until ready and confirmed, passes", async () => {
    const task = solo.find(
      (t) => liveWrite(t) !== null && /\/async$/.test(liveWrite(t)?.block[0]?.request.url ?? ""),
    );
    if (!task) throw new Error("no async job task");
    const at = task.golden.findIndex((s) => isExecute(s) && /\/async$/.test(s.request.url));
    const confirm = task.golden.find((s) => isExecute(s) && /\/confirm$/.test(s.request.url)) as Execute;
    const steps = [
      ...task.golden.slice(0, at + 1),
      { ...confirm, capture: {} },
      ...task.golden.slice(at + 1),
    ];
    const r = await replay(task, steps, "early-confirm");
    expect(served(r, "POST", /\/confirm$/).map((e) => e.status)).toEqual([409, 200]);
    expect(r.grade.failure_reason).toBe("");
  });

  it("a workflow's status move and asset link done in the other order pass", async () => {
    const task = solo.find(
      (t) =>
        (t.requirements ?? []).some((r) => r.id === "status_written") &&
        (t.requirements ?? []).some((r) => r.id === "linked_on_asset"),
    );
    if (!task) throw new Error("no workflow task with a move and a link");
    const writes = task.golden.flatMap((s, i) =>
      isExecute(s) && ["PATCH", "PUT"].includes(s.request.method) ? [i] : [],
    );
    expect(writes).toHaveLength(2);
    const [a, b] = writes as [number, number];
    const steps = task.golden.map((s, i) =>
      i === a ? task.golden[b] : i === b ? task.golden[a] : s,
    ) as GoldenStep[];
    const r = await replay(task, steps, "move-link-swapped");
    expect(r.grade.failure_reason).toBe("");
  });
});

/**
 * The written body keys of `t` graded by a data flow into a PATCH/PUT body (the value the agent
 * found, sent as `used_in_slot.key` of a golden write) with no end state on that field in the
 * predicate's segment: what the agent wrote there could be undone afterwards unseen.
 */
function unheldFlowWrites(t: Task): string[] {
  return t.grader.g1.flatMap((p) => {
    if (p.kind !== "data_flow" || p.used_in_slot?.in !== "body" || !p.used_in_request_url_pattern) return [];
    const into = new RegExp(p.used_in_request_url_pattern);
    const written = t.golden.some(
      (s) =>
        isExecute(s) &&
        ["PATCH", "PUT"].includes(s.request.method.toUpperCase()) &&
        into.test(s.request.url.split("?")[0] ?? ""),
    );
    const key = p.used_in_slot.key;
    const held = t.grader.g1.some(
      (q) =>
        q.kind === "end_state" &&
        q.segment === p.segment &&
        q.expect.is === "field" &&
        q.expect.field === key,
    );
    return written && !held ? [`${t.id} ${p.id} ${key}`] : [];
  });
}

describe("agent audit (dec): the class of the link hole, bank-wide", () => {
  // The mar audit's class test holds every write graded by what it sent (a call's `sent`); the link
  // was graded by a data flow into the PATCH body instead, so it slipped through (329 such
  // predicates in the bank at the start of this session, every one a `link_written`).
  it("every value a data flow writes into a PATCH/PUT body has the end state of its field in its segment", () => {
    expect(defaultBank.tasks.flatMap(unheldFlowWrites)).toEqual([]);
  });

  it("a linking task without its link's end state is caught (built to fail the check)", () => {
    const task = solo.find((t) => t.grader.g1.some((p) => p.id === "link_final"));
    const link = task?.grader.g1.find((p) => p.id === "link_written");
    if (!task || link?.kind !== "data_flow" || link.used_in_slot?.in !== "body")
      throw new Error("no linking task in the default bank");
    expect(unheldFlowWrites(task)).toEqual([]);
    const g1 = task.grader.g1.filter((p) => p.id !== "link_final");
    expect(unheldFlowWrites({ ...task, grader: { ...task.grader, g1 } })).toEqual([
      `${task.id} link_written ${link.used_in_slot.key}`,
    ]);
  });
});
