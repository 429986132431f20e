import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import type { JsonObject } from "../../bank/json.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";
import { cardFrom, cardMessage, playAndAnswer, scripted, trial } from "../../certify/certify-kit.js";
import { legitimateVariantFindings, requirementMutantFindings } from "../../certify/requirement-gates.js";
import { sharedTrials } from "../../certify/trial-tree.js";
import { playGolden } from "../../trial/play-golden.js";
import { defaultBankContent } from "../default-bank.js";

// Holes the January agent audit found by playing a private bank (`generate --seed audit-jan`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for. The ones still open are `it.fails`, each naming its hole.

const bank = bankFromContent(defaultBankContent());
type Execute = Extract<GoldenStep, { op: "execute" }>;
type Replay = Awaited<ReturnType<typeof trial>>;
const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";
const solo = bank.tasks.filter((t) => t.kind === "solo");

/** The golden with the execute step at `at` replaced (by nothing, one step or several). */
function swap(t: Task, at: number, by: (s: Execute) => GoldenStep[]): GoldenStep[] {
  return t.golden.flatMap((s, j) => (j === at && isExecute(s) ? by(s) : [s]));
}

/** Play `steps`, then (optionally) write variables, then finish with the golden's card from what was bound. */
function replay(t: Task, steps: readonly GoldenStep[], name: string, vars: Record<string, string> = {}) {
  return trial(
    bank,
    t,
    scripted(bank, name, async (session) => {
      if (Object.keys(vars).length === 0) {
        await playAndAnswer(session, t, steps);
        return;
      }
      const bindings = await playGolden(steps, session, { finish: false });
      for (const [id, value] of Object.entries(vars))
        await session.step({
          toolCalls: [
            {
              name: "write",
              arguments: { entity_ref: { kind: "variable", id }, content: { value }, scope: "global" },
            },
          ],
        });
      if (!session.ended) session.finish(cardMessage(cardFrom(t, bindings)));
    }),
  );
}

/**
 * The requirement-mutants gate on `t`, and on `t` with its grader broken by `breakIt` (a predicate
 * edited): the gate must pass the first and reject the second, so it would have caught the hole.
 */
async function gateOnBroken(
  t: Task,
  breakIt: (p: Task["grader"]["g1"][number]) => Task["grader"]["g1"][number],
) {
  const broken: Task = { ...t, grader: { ...t.grader, g1: t.grader.g1.map(breakIt) } };
  const brokenBank = { ...bank, tasks: bank.tasks.map((x) => (x.id === t.id ? broken : x)) };
  const sound = await requirementMutantFindings(bank, t, sharedTrials(bank));
  const weak = await requirementMutantFindings(brokenBank, broken, sharedTrials(brokenBank));
  return { sound: sound.failures, weak: weak.failures };
}

/** The exchanges the world served matching `method` and `url`, in order. */
function served(r: Replay, method: string, url: RegExp) {
  return r.events.flatMap((e) =>
    e.type === "exchange" && e.method === method && url.test(e.url) ? [e] : [],
  );
}

/** The first golden step index matching `pred`. */
const stepAt = (t: Task, pred: (s: Execute) => boolean) => t.golden.findIndex((s) => isExecute(s) && pred(s));
const body = (s: Execute) => (s.request.body ?? {}) as JsonObject;
const isCreate = (s: Execute) =>
  s.request.method === "POST" && Object.keys(s.capture).length > 0 && !/token|api-keys/.test(s.request.url);

describe("agent audit (jan): what is written into the world is compared as the world compares", () => {
  // irrigation-control-sub03 and billing-ledger-sub18 of seed audit-jan. The world keeps strings as
  // sent and matches ids exactly (`GET …/zones/Z-5B7B` answers 404), but G1 compared what the agent
  // wrote with G2's card equality (stripped, case ignored). Passed, each breaking the ticket:
  // a schedule opened for zone `Z-5B7B` (no such zone) with firmware `cf-n55bec`, the zone linked
  // to `sch-6aq8qh` (the API minted `SCH-6AQ8QH`; reading the link answers 404) and that id stored;
  // a credit note moved to `Settled` ("must end as `settled`, no other status"); a credit note
  // opened for account `ac16090463`. Closed: sent values, slots, targets, stored variables, end
  // states and record selectors compare exactly (`sameInWorld`); only the card keeps 1.0's rule.

  // A multistep task: read the parent, open a work record carrying a live value, move its status.
  const task = solo.find(
    (t) =>
      t.axes.includes("multistep") &&
      /must end as `/.test(t.ticket) &&
      stepAt(t, isCreate) >= 0 &&
      stepAt(t, (s) => s.request.method === "PATCH" && typeof body(s).status === "string") >= 0,
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no multistep status task");
    const r = await replay(task, task.golden, "golden");
    expect(r.grade.failure_reason).toBe("");
  });

  it("the status written in another case (the world stores it as sent) fails", async () => {
    if (!task) throw new Error("no multistep status task");
    const at = stepAt(task, (s) => s.request.method === "PATCH" && typeof body(s).status === "string");
    const steps = swap(task, at, (s) => {
      const status = String(body(s).status);
      const other = status.charAt(0).toUpperCase() + status.slice(1);
      return [{ ...s, request: { ...s.request, body: { ...body(s), status: other } } }];
    });
    const r = await replay(task, steps, "status-capitalised");
    // Honest: the world took the write.
    expect(served(r, "PATCH", /./).map((e) => e.status)).toContain(200);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/status/);
  });

  it("the create naming its parent in another case (a record for no such parent) fails", async () => {
    if (!task) throw new Error("no multistep status task");
    const at = stepAt(task, isCreate);
    const steps = swap(task, at, (s) => {
      const b = body(s);
      const parentKey = Object.keys(b).find(
        (k) => typeof b[k] === "string" && task.ticket.includes(String(b[k])) && /\d/.test(String(b[k])),
      );
      if (!parentKey) throw new Error("no parent id in the create");
      return [
        { ...s, request: { ...s.request, body: { ...b, [parentKey]: String(b[parentKey]).toLowerCase() } } },
      ];
    });
    const r = await replay(task, steps, "parent-lower-cased");
    expect(served(r, "POST", /./).map((e) => e.status)).toContain(201);
    expect(r.grade.passed).toBe(false);
  });

  // A statefulness task: open a record, keep its id in a variable, link it on the parent.
  const link = solo.find(
    (t) =>
      t.grader.g1.some((p) => p.kind === "workspace_value") &&
      /record it on/i.test(t.ticket) &&
      t.golden.some((s) => s.op === "store") &&
      stepAt(t, isCreate) >= 0,
  );

  it("the link task exists in the default bank", () => {
    expect(link).toBeDefined();
  });

  it("the new id linked and stored in another case (the link names no record) fails", async () => {
    if (!link) throw new Error("no link task");
    const at = stepAt(link, isCreate);
    const create = link.golden[at] as Execute;
    const store = link.golden.find((s) => s.op === "store");
    if (store?.op !== "store") throw new Error("no store");
    const binding = store.from;
    const key = create.capture[binding];
    if (!key) throw new Error("the create does not capture the stored id");
    // First run: the golden, to see the id the create mints (the trial seed makes it the same).
    const first = await replay(link, link.golden, "golden");
    expect(first.grade.failure_reason).toBe("");
    const minted = served(first, "POST", new RegExp(`^${create.request.url}$`))[0]
      ?.response_body as JsonObject | null;
    const id = String(minted?.[key]);
    const low = id.toLowerCase();
    expect(low).not.toBe(id);
    // Second run: every later use of the id written lower-cased, and the variable holding it so.
    const steps = link.golden.map((s, j): GoldenStep => {
      if (j <= at || !isExecute(s)) return s;
      const text = JSON.stringify(s.request).replaceAll(`{{${binding}}}`, low);
      return { ...s, request: JSON.parse(text) as Execute["request"] };
    });
    const r = await replay(link, steps, "link-lower-cased", { [store.name]: low });
    // Honest: the world took the link (an update whose body carries the lower-cased id).
    const linked = r.events.flatMap((e) =>
      e.type === "exchange" && Object.values((e.request_body ?? {}) as JsonObject).includes(low)
        ? [e.status]
        : [],
    );
    expect(linked).toEqual([200]);
    expect(r.grade.passed).toBe(false);
  });
});

describe("agent audit (jan): a work record opened through its parent's documented create route", () => {
  // billing-ledger-sub18 of seed audit-jan: the spec documents `POST /billing/v3/accounts/{account_no}/credit-notes`
  // ("Open a credit note for this account (the account comes from the path)"). The note opened
  // there, then moved to `settled`, is the same record the golden opens, but the trial failed
  // new_id_used_next: "no response from /^/billing/v3/credit-notes$/ with status 201". A false
  // fail: the create's data flows know one route; legitimate_variants' other_route moves reads
  // only, so the gate should also move a create to the parent's canonical create route.
  const task = solo.find((t) => {
    const world = bank.worlds.find((w) => w.id === t.world);
    const at = stepAt(t, isCreate);
    const create = t.golden[at];
    return (
      create !== undefined &&
      isExecute(create) &&
      // A schema repair fixes the client's own call, which names the flat route (the gate's
      // variant leaves those alone too).
      !t.axes.includes("schema_repair") &&
      // The golden opens it through the flat collection (in a nested world it may already go
      // through the parent's route, and then there is no other route to try).
      world?.routes.some(
        (r) => r.method === "POST" && r.action === "create" && r.path === create.request.url,
      ) === true &&
      world?.routes.some(
        (r) =>
          r.method === "POST" &&
          r.status === "canonical" &&
          r.action === "create" &&
          /\{[^}]+\}\/[^/{]+$/.test(r.path) &&
          r.path.endsWith(create.request.url.slice(create.request.url.lastIndexOf("/"))),
      ) === true
    );
  });

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the same record opened through the parent's create route passes", async () => {
    if (!task) throw new Error("no task");
    const world = bank.worlds.find((w) => w.id === task.world);
    const at = stepAt(task, isCreate);
    const create = task.golden[at] as Execute;
    const tail = create.request.url.slice(create.request.url.lastIndexOf("/"));
    const route = world?.routes.find(
      (r) =>
        r.method === "POST" &&
        r.action === "create" &&
        /\{[^}]+\}\/[^/{]+$/.test(r.path) &&
        r.path.endsWith(tail),
    );
    const param = route?.path.match(/\{([^}]+)\}/)?.[1];
    if (!route || !param) throw new Error("no nested create route");
    const b = body(create);
    const parent = String(b[param]);
    const { [param]: _p, ...rest } = b;
    const url = route.path.replace(`{${param}}`, parent);
    const r = await replay(
      task,
      swap(task, at, (s) => [{ ...s, request: { ...s.request, url, body: rest } }]),
      "nested-create",
    );
    // Honest: the world opened it there.
    expect(served(r, "POST", new RegExp(`^${url}$`)).map((e) => e.status)).toEqual([201]);
    expect(r.grade.failure_reason).toBe("");
  });

  it("the legitimate-variants gate moves the create to the parent's route, and rejects a grader that knows one create route", async () => {
    if (!task) throw new Error("no task");
    const sound = await legitimateVariantFindings(bank, task, sharedTrials(bank));
    expect(sound).toEqual([]);
    const oneRoute = (p: Task["grader"]["g1"][number]) => {
      if (p.kind !== "data_flow") return p;
      const { also_from, also_used_in: _u, ...own } = p;
      const kept = (also_from ?? []).filter((o) => o.status !== 201);
      return kept.length > 0 ? { ...own, also_from: kept } : own;
    };
    const broken: Task = { ...task, grader: { ...task.grader, g1: task.grader.g1.map(oneRoute) } };
    const brokenBank = { ...bank, tasks: bank.tasks.map((x) => (x.id === task.id ? broken : x)) };
    const weak = await legitimateVariantFindings(brokenBank, broken, sharedTrials(brokenBank));
    expect(weak.map((f) => f.check)).toContain("false_fail:other_route");
    expect(weak.find((f) => f.check === "false_fail:other_route")?.message).toMatch(/status 201/);
  });
});

describe("agent audit (jan): the idempotent retry the ticket prescribes", () => {
  // grid-substations-sub20 of seed audit-jan: "a retried write must carry an idempotency key, and
  // the key for this change is `chg-64185-relay`. Finish the write so the switching order really
  // exists, once." The grader is three data flows: the key is not held (any key passes), and a
  // second order opened with another key failed only G2 ("2 records match") on that bank, a labour fault
  // reported as a delivery one (closed on main since: the default bank now fails it in G1). A call
  // predicate cannot name a header today (CallMatch has no
  // header slot), so both are left to the template owners.
  const task = solo.find((t) => /key (?:for this change )?is `[^`]+`/.test(t.ticket));
  const key = task?.ticket.match(/key (?:for this change )?is `([^`]+)`/)?.[1];
  const at = task
    ? stepAt(task, (s) => Object.keys(s.request.headers ?? {}).includes("Idempotency-Key"))
    : -1;
  const withKey = (s: Execute, k: string): Execute => ({
    ...s,
    request: { ...s.request, headers: { ...s.request.headers, "Idempotency-Key": k } },
  });

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(key).toBeDefined();
    expect(at).toBeGreaterThanOrEqual(0);
  });

  it("the retry sent twice with the ticket's key (one record) passes (the control)", async () => {
    if (!task || !key) throw new Error("no task");
    const r = await replay(
      task,
      swap(task, at, (s) => [s, s]),
      "same-key-twice",
    );
    expect(r.grade.failure_reason).toBe("");
  });

  it("the retry carrying another key than the ticket's fails", async () => {
    if (!task || !key) throw new Error("no task");
    const r = await replay(
      task,
      swap(task, at, (s) => [withKey(s, "my-own-key-1")]),
      "other-key",
    );
    expect(served(r, "POST", /./).map((e) => e.status)).toContain(201);
    expect(r.grade.passed).toBe(false);
  });

  it("the requirement-mutants gate rejects a grader that does not read the key (a retry with another key survives)", async () => {
    if (!task) throw new Error("no task");
    const { sound, weak } = await gateOnBroken(task, (p) => {
      if (p.kind !== "call_count" || !p.call.headers) return p;
      const { headers: _h, ...call } = p.call;
      return { ...p, call };
    });
    expect(sound).toEqual([]);
    expect(weak.map((f) => f.check)).toEqual(["survived:other_value"]);
    expect(weak[0]?.message).toMatch(/keyed_retry:other_value@\d+:Idempotency-Key passes/);
  });

  it("the write done twice (two records, where the ticket says once) fails the labour", async () => {
    if (!task || !key) throw new Error("no task");
    const r = await replay(
      task,
      swap(task, at, (s) => [s, withKey(s, `${key}-2`)]),
      "two-records",
    );
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g1_passed).toBe(false);
  });
});

describe("agent audit (jan): a sweep that may mint with client credentials only once", () => {
  // lab-samples-sub09 of seed audit-jan (auth.refresh-renewal): "tonight the result publisher may
  // mint with the client credentials only once; after that it must renew with the `refresh_token`".
  // One refresh, then a second mint with the client credentials for the second renewal, passed:
  // the grader holds "a refresh token was sent back" (refresh_token_used), not "minted once". A
  // call_count on the token route sending grant_type=client_credentials (max 1) holds it; left to
  // the auth template's owner, because legitimate_variants re-mints an expired token as a careful
  // agent would, and that variant must then refresh instead on this template.
  const task = solo.find(
    (t) => /client secret is being rotated/.test(t.ticket) && /grant_type=refresh_token/.test(t.ticket),
  );
  const grant = (s: Execute) => String(body(s).grant_type ?? "");
  const renewals = task
    ? task.golden.flatMap((s, j) => (isExecute(s) && grant(s) === "refresh_token" ? [j] : []))
    : [];

  it("the task this test needs exists in the default bank, with two renewals", () => {
    expect(task).toBeDefined();
    expect(renewals.length).toBe(2);
  });

  it("the second renewal done by minting with the client credentials again fails", async () => {
    if (!task) throw new Error("no refresh-renewal task");
    const mint = task.golden.find((s): s is Execute => isExecute(s) && grant(s) === "client_credentials");
    if (!mint) throw new Error("no client-credentials mint");
    const steps = swap(task, renewals[1] as number, (s) => [
      { ...s, request: { ...s.request, body: body(mint) } },
    ]);
    const r = await replay(task, steps, "second-mint");
    // Honest: two client-credentials mints, every read answered.
    const mints = r.events.filter(
      (e) =>
        e.type === "exchange" && (e.request_body as JsonObject | null)?.grant_type === "client_credentials",
    );
    expect(mints.length).toBe(2);
    expect(r.grade.passed).toBe(false);
  });
});

describe("agent audit (jan): the async job polled is the job confirmed", () => {
  // fleet-telemetry-sub12 of seed audit-jan: "The 202 names a job: poll it until it is
  // `awaiting_confirmation`, then confirm it". Two jobs submitted, only the second polled (to
  // `awaiting_confirmation`), the first confirmed without a poll: passed. polled_before_confirm
  // (order) matches any job's poll before any job's confirm, and job_polled takes any 202's id;
  // the unconfirmed job writes nothing, so the one-record end state holds. Pinning the order's
  // poll and confirm to the same job needs a predicate that ties two exchanges' path ids (or a
  // target for a job handle the grader can resolve): left open. Class: a sibling record, for
  // handles; requirement_mutants should break "poll it" by polling another job.
  const task = solo.find(
    (t) =>
      t.axes.includes("multistep") &&
      t.grader.g1.some((p) => p.kind === "order") &&
      stepAt(t, (s) => s.request.method === "POST" && /\/confirm$/.test(s.request.url)) >= 0,
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("a sibling job polled, and the job confirmed never polled, fails", async () => {
    if (!task) throw new Error("no async multistep task");
    const confirmAt = stepAt(task, (s) => s.request.method === "POST" && /\/confirm$/.test(s.request.url));
    const confirm = task.golden[confirmAt] as Execute;
    const handle = confirm.request.url.match(/\{\{([^}]+)\}\}/)?.[1];
    const submitAt = stepAt(task, (s) => s.capture[handle ?? ""] !== undefined);
    const submit = task.golden[submitAt] as Execute;
    if (!handle || submitAt < 0) throw new Error("no submit");
    const sibling: Execute = { ...submit, capture: { audit_sibling: submit.capture[handle] as string } };
    const steps = task.golden.flatMap((s, j): GoldenStep[] => {
      if (j === submitAt) return [s, sibling];
      if (j > submitAt && j < confirmAt && isExecute(s) && s.request.url.includes(`{{${handle}}}`))
        return [
          {
            ...s,
            request: { ...s.request, url: s.request.url.replace(`{{${handle}}}`, "{{audit_sibling}}") },
          },
        ];
      return [s];
    });
    const r = await replay(task, steps, "poll-a-sibling");
    // Honest: the job confirmed was never polled.
    const confirmed = served(r, "POST", /\/confirm$/)[0]
      ?.url.split("/")
      .at(-2);
    expect(confirmed).toBeDefined();
    expect(served(r, "GET", new RegExp(`/${confirmed}$`))).toEqual([]);
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/polled_before_confirm/);
  });

  it("the requirement-mutants gate rejects an ordering that does not tie the poll to the job confirmed", async () => {
    if (!task) throw new Error("no async multistep task");
    const { sound, weak } = await gateOnBroken(task, (p) => {
      if (p.kind !== "order" || !p.same_record) return p;
      const { same_record: _s, ...loose } = p;
      return loose;
    });
    expect(sound).toEqual([]);
    expect(weak.map((f) => f.check)).toEqual(["survived:sibling_target"]);
    expect(weak[0]?.message).toMatch(/sibling_before@\d+ passes/);
  });
});

describe("agent audit (jan): a link written through the record's documented settings route", () => {
  // fleet-telemetry-sub03 of seed audit-jan: "record it on TRK-2944 itself through
  // `active_job_id`". Written through `PUT /api/v3/trucks/TRK-2944/settings` (documented: it takes
  // `active_job_id` with the version read; a 409, a re-read, the resend answered 200), the link
  // reads back and G2 passes, but id_stored_and_reused fails: its destination is the record's own
  // URL only. A false fail of the other-route kind for writes: legitimate_variants' other_route
  // moves reads only; a write's use destination should take the record's canonical settings and
  // thresholds routes too (as data flows' also_from do for reads).
  const link = solo.find(
    (t) =>
      t.grader.g1.some((p) => p.kind === "workspace_value") &&
      /record it on/i.test(t.ticket) &&
      t.golden.some((s) => s.op === "store"),
  );
  const linkAt = link ? stepAt(link, (s) => ["PUT", "PATCH"].includes(s.request.method)) : -1;

  it("the task this test needs exists in the default bank, with a settings route", () => {
    expect(link).toBeDefined();
    const step = link?.golden[linkAt];
    const world = bank.worlds.find((w) => w.id === link?.world);
    expect(step && isExecute(step)).toBe(true);
    expect(
      world?.routes.some((r) => r.path.endsWith("/settings") && ["PUT", "PATCH"].includes(r.method)),
    ).toBe(true);
  });

  it("the link written through the settings route (re-read and resent after a 409) passes", async () => {
    if (!link) throw new Error("no link task");
    const world = bank.worlds.find((w) => w.id === link.world);
    const steps = swap(link, linkAt, (s) => {
      const url = `${s.request.url}/settings`;
      const method = world?.routes.find(
        (r) => r.path.endsWith("/settings") && ["PUT", "PATCH"].includes(r.method),
      )?.method as string;
      const { "Content-Type": _ct, ...auth } = s.request.headers ?? {};
      const read = (v: string): Execute => ({
        op: "execute",
        request: { method: "GET", url, headers: auth },
        capture: { [v]: "version" },
      });
      const write = (v: string, last: boolean): Execute => ({
        ...s,
        capture: last ? s.capture : {},
        request: { ...s.request, method, url, body: { ...body(s), version: `{{${v}}}` } },
      });
      return [read("audit_v1"), write("audit_v1", false), read("audit_v2"), write("audit_v2", true)];
    });
    const r = await replay(link, steps, "link-via-settings");
    // Honest: the last write through the settings route was accepted.
    const writes = r.events.flatMap((e) =>
      e.type === "exchange" && e.url.endsWith("/settings") && e.method !== "GET" ? [e.status] : [],
    );
    expect(writes.at(-1)).toBe(200);
    expect(r.grade.failure_reason).toBe("");
  });
});

// Tried and graded right on seed audit-jan (no test needed beyond the existing ones): decoy reads
// percent-encoded (`/%762/ops/…`, `/v3/ops/%70ublic/…`) fail on their forbid; a correct read written
// `/v3//ops/./vehicles/%38462`, with a bare `?`, or with encoded query keys passes; a trailing slash
// is a 404, not a read; an empty PATCH, the right status then undone, and an unreadable card (a
// trailing comma, a comment) are graded as they must be (the last as a delivery failure); a chain's
// card holding only its last segment's fields fails. Every chain of the bank is graded `full`.
