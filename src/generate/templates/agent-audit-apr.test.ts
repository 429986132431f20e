import { describe, expect, it } from "vitest";
import {
  defaultBank as bank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  served,
  soloTasks as solo,
} from "../../../test/support/default-bank-replay.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";

// Holes the April agent audit found by playing a private bank (`generate --seed audit-apr`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for. The ones still open are `it.fails`, each naming its hole.

/** `steps` inserted into the golden just before its answer. */
function beforeAnswer(t: Task, steps: readonly GoldenStep[]): GoldenStep[] {
  const at = t.golden.findIndex((s) => s.op === "answer");
  return [...t.golden.slice(0, at), ...steps, ...t.golden.slice(at)];
}

/** The golden's update of a workflow record (a PATCH/PUT sending `state`), the last one. */
function workflowMove(t: Task): Execute | undefined {
  return t.golden
    .filter(
      (s): s is Execute =>
        isExecute(s) &&
        ["PATCH", "PUT"].includes(s.request.method) &&
        typeof s.request.body === "object" &&
        s.request.body !== null &&
        "state" in (s.request.body as object),
    )
    .at(-1);
}

/** The move's request with `body` instead (the same record, route and headers). */
function overwrite(move: Execute, body: Record<string, string>): Execute {
  return { ...move, request: { ...move.request, body }, capture: {} };
}

describe("agent audit (apr): a stamped review reference must stay the queue's", () => {
  // satellite-ground-sub18 of seed audit-apr (statefulness, easy): "Move CR-8171-2 from
  // `submitted` to `in_review`. The review queue assigns the `review_ref` a moment after the move:
  // read CR-8171-2 again … Keep the reference in the local variable …". The change request's update
  // takes `review_ref` in its body (the spec lists it). Moved, re-read, kept and reported right, then
  // the record's `review_ref` overwritten with a forged one: passed. Reviewers, who read the
  // reference off the record, would see the forged one. Class: every workflow stamp (review_ref,
  // approval_code); the requirement-mutant gate has no "overwrite a stamped field" mutation. Closed
  // in the template (workflow-states.ts): the record must end with the stamp it was given.
  const task = solo.find(
    (t) =>
      t.axes.includes("statefulness") &&
      t.grader.answer.some((f) => f.field === "review_ref") &&
      workflowMove(t) !== undefined,
  );
  const move = task ? workflowMove(task) : undefined;

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(move).toBeDefined();
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no review-reference task");
    expect((await replay(task, task.golden, "golden")).grade.failure_reason).toBe("");
  });

  it("the reference read, kept and reported, then overwritten on the record, fails", async () => {
    if (!task || !move) throw new Error("no review-reference task");
    const forge = overwrite(move, { review_ref: "RV-FORGED" });
    const r = await replay(task, beforeAnswer(task, [forge]), "ref-overwritten");
    // Honest: the world took the overwrite (200) and the card still holds the queue's reference.
    const item = new RegExp(`^${move.request.url.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
    expect(served(r, move.request.method, item).map((e) => e.status)).toEqual([200, 200]);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/ref_sticks/);
  });
});

describe("agent audit (apr): an approval code must stay the one the approval stamped", () => {
  // satellite-ground-sub14 of seed audit-apr (error_recovery, easy): "Get CR-3573-5 to `state` =
  // `approved` through the workflow the API enforces. The approval stamps an `approval_code`; take
  // it from the reply that approved the request." The same update takes `approval_code`: a
  // `{"approval_code": "AP-MINE01"}` after the approval is served, and the record keeps the forged
  // code. Closed with the review reference above: the record must end with its stamped code.
  const task = solo.find(
    (t) =>
      t.grader.answer.some((f) => f.field === "approval_code") &&
      t.grader.g1.some((p) => p.id === "approval_code_from_reply") &&
      workflowMove(t) !== undefined,
  );
  const move = task ? workflowMove(task) : undefined;

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(move).toBeDefined();
  });

  it("the approval done, its code then overwritten on the record, fails", async () => {
    if (!task || !move) throw new Error("no approval task");
    const r = await replay(
      task,
      beforeAnswer(task, [overwrite(move, { approval_code: "AP-FORGED" })]),
      "code-overwritten",
    );
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/code_sticks/);
  });
});

describe("agent audit (apr): a name resolved through a search world's registry route", () => {
  // grid-substations-sub16 of seed audit-apr (discovery, medium, a search world): "The crew knows
  // the substation by its name alone, "Bramble Cross" … Find the substation's id through the
  // published API and read its live record." The agent found the exact match through `GET
  // /grid/v3/registry/substations?voltage_level=132kV` (published, v3, undeprecated; it lists the
  // same live rows), then read the record: it FAILED id_from_list_used, "no response from
  // /^(?:/grid/v3/substations|/grid/v3/search/substations)(\?.*)?$/". The dec audit widened a
  // listing's source to the registry and catalog (other-sources `otherListings`), but a search
  // world's source is an alternation (listing | search), which that widening did not read. Class:
  // every find-by-name task on a search world. Closed in other-sources.ts (`literalPaths`).
  const task = solo.find(
    (t) => t.axes.includes("discovery") && t.golden.some((s) => isExecute(s) && searchCapture(s) !== null),
  );

  /** The capture of a search step: its name and `plural.N.id` path. */
  function searchCapture(s: Execute): { name: string; path: string } | null {
    if (s.request.method !== "GET" || !/\/search\//.test(s.request.url)) return null;
    const entry = Object.entries(s.capture).find(([, p]) => /^[^.]+\.\d+\.[^.]+$/.test(p));
    return entry ? { name: entry[0], path: entry[1] } : null;
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the id taken from the registry route (the target's category) in place of the search passes", async () => {
    if (!task) throw new Error("no search-world find-by-name task");
    const at = task.golden.findIndex((s) => isExecute(s) && searchCapture(s) !== null);
    const step = task.golden[at] as Execute;
    const c = searchCapture(step);
    const world = bank.worlds.find((w) => w.id === task.world);
    const [collection, index, idField] = c?.path.split(".") ?? [];
    const registry = world?.routes.find(
      (r) => r.method === "GET" && r.status === "canonical" && /\/registry\//.test(r.path),
    );
    const param = registry?.query_params?.[0];
    if (!c || !registry || !param || !collection || !idField) throw new Error("no registry route");
    // First run: the golden, then every category of the registry; the target is the id the
    // golden's search step took.
    const probes: Execute[] = (param.allowed ?? []).map((v) => ({
      op: "execute",
      request: { ...step.request, url: `${registry.path}?${param.name}=${v}` },
      capture: {},
    }));
    const first = await replay(task, beforeAnswer(task, probes), "probe");
    const search = first.events.find((e) => e.type === "exchange" && e.url === step.request.url);
    const rows =
      search?.type === "exchange" ? (search.response_body as Record<string, unknown>)[collection] : [];
    const targetId = Array.isArray(rows)
      ? (rows[Number(index)] as Record<string, unknown>)[idField]
      : undefined;
    const hit = first.events.flatMap((e) => {
      if (e.type !== "exchange" || !e.url.startsWith(`${registry.path}?`)) return [];
      const listed = (e.response_body as Record<string, unknown> | null)?.[collection];
      return Array.isArray(listed)
        ? listed.flatMap((r, i) =>
            (r as Record<string, unknown>)[idField] === targetId ? [{ url: e.url, i }] : [],
          )
        : [];
    })[0];
    if (targetId === undefined || !hit) throw new Error("the target is in no category of the registry");
    // Second run: the registry read in place of the search, then the golden's own read.
    const viaRegistry: Execute = {
      op: "execute",
      request: { ...step.request, url: hit.url },
      capture: { [c.name]: `${collection}.${hit.i}.${idField}` },
    };
    const r = await replay(
      task,
      task.golden.map((s, j) => (j === at ? viaRegistry : s)),
      "registry-route",
    );
    expect(r.events.some((e) => e.type === "exchange" && /\/search\//.test(e.url))).toBe(false);
    expect(r.grade.failure_reason).toBe("");
    expect(r.grade.passed).toBe(true);
  });
});

describe("agent audit (apr): a signed read with a nonce below the ticket's counter", () => {
  // satellite-ground-sub06 of seed audit-apr (auth.signed-read, easy): "Our signer's nonce counter
  // for this job stands at 6. Sign the read as the API documents it". The spec: "X-Nonce is an
  // integer above every nonce your key sent before". A read signed with nonce 3 was served 200 and
  // passed: the world's key starts each trial with no nonce history (`TrialWorld.lastNonce` is 0),
  // so the counter the ticket states is never load-bearing and any nonce passes. (The golden sends
  // the counter itself, 6, as the nonce: the ticket's "stands at" reads as "the next one is".)
  // Class: every auth.signed-read task. Fixed: the counter is a `nonce_counter` premise, the world's
  // set-up seeds the key's last nonce from it (the one before the counter), and the premise gate
  // checks the world refuses that nonce again and takes the counter.
  const task = solo.find(
    (t) =>
      t.axes.includes("auth") &&
      t.golden.some((s) => isExecute(s) && s.request.sign !== undefined && Number(nonceOf(s)) > 1),
  );

  function nonceOf(s: Execute): string | undefined {
    return Object.entries(s.request.headers ?? {}).find(([h]) => h.toLowerCase() === "x-nonce")?.[1];
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no signed-read task");
    expect((await replay(task, task.golden, "golden")).grade.failure_reason).toBe("");
  });

  it("the read signed with nonce 1 (below the counter the ticket states) fails", async () => {
    if (!task) throw new Error("no signed-read task");
    const steps = task.golden.map((s) => {
      if (!isExecute(s) || s.request.sign === undefined) return s;
      const headers = Object.fromEntries(
        Object.entries(s.request.headers ?? {}).map(([h, v]) => [h, h.toLowerCase() === "x-nonce" ? "1" : v]),
      );
      return { ...s, request: { ...s.request, headers } };
    });
    const r = await replay(task, steps, "stale-nonce");
    expect(r.grade.passed).toBe(false);
    // Refused by the world, as the ticket's counter says: the key's last nonce is the one before it.
    const signed = r.events.filter((e) => e.type === "exchange" && "x-nonce" in e.request_headers);
    expect(signed.length).toBeGreaterThan(0);
    for (const e of signed)
      expect(e.type === "exchange" && [e.status, /nonce/i.test(JSON.stringify(e.response_body))]).toEqual([
        401,
        true,
      ]);
  });
});
