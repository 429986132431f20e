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
import { cardFrom, cardMessage, scripted, trial, worldOf } from "../../certify/certify-kit.js";
import { playGolden } from "../../trial/play-golden.js";
import { worldSpec } from "../../workspace/world-spec.js";

// Holes the February agent audit found by playing a private bank (`generate --seed audit-feb`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for.

describe("agent audit (feb): a supersede deletes only the record the ticket names", () => {
  // warehouse-robotics-sub06 of seed audit-feb (statefulness.supersede-hard): "Delete it and read it
  // back to prove it is really gone: only the mission in `missions_amr_70783` goes, no other
  // mission in its place." Deleting the named mission AND another robot's mission (a sibling the
  // ticket says must stay), then opening the replacement as asked, passed 10/10. The grader holds
  // that the named record is gone (superseded_deleted, deletion_proved, superseded_absent) but
  // nothing holds "only it goes". Class: every supersede task (6 solo in the default bank, and the
  // chains carrying them). Closed: "only it goes" is its own requirement (`only_it_goes`), held by a
  // call count of the collection's deletes (204, at most 1); a chain's supersede segments share
  // the count (the grader adds their shares up), and requirement_mutants deletes a sibling too.
  const task = solo.find((t) => t.grader.g1.some((p) => p.id === "superseded_absent"));
  const gone = task?.grader.g1.find((p) => p.id === "superseded_absent");
  const resource = gone?.kind === "end_state" ? gone.record.resource : undefined;
  const create = task?.golden.find(
    (s): s is Execute => isExecute(s) && s.request.method === "POST" && !/token/.test(s.request.url),
  );
  const idField = create ? Object.values(create.capture)[0] : undefined;
  const del = task?.golden.find((s): s is Execute => isExecute(s) && s.request.method === "DELETE");

  /** The golden, then (before the card) a listing and the DELETE of the first record it shows. */
  function withSiblingDeleted(t: Task): GoldenStep[] {
    if (!create || !del || !resource || !idField) throw new Error("no supersede steps");
    const auth = { ...del.request.headers };
    const extra: GoldenStep[] = [
      {
        op: "execute",
        request: { method: "GET", url: create.request.url, headers: auth },
        capture: { audit_sibling: `${resource}.${idField}` },
      },
      {
        op: "execute",
        request: { method: "DELETE", url: `${create.request.url}/{{audit_sibling}}`, headers: auth },
        capture: {},
      },
    ];
    const at = t.golden.findIndex((s) => s.op === "answer");
    return [...t.golden.slice(0, at), ...extra, ...t.golden.slice(at)];
  }

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(resource).toBeDefined();
    expect(idField).toBeDefined();
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no supersede task");
    const r = await replay(task, task.golden, "golden");
    expect(r.grade.failure_reason).toBe("");
  });

  it("the named record deleted and a sibling deleted too fails", async () => {
    if (!task || !create || !idField) throw new Error("no supersede task");
    const r = await replay(task, withSiblingDeleted(task), "sibling-deleted-too");
    // Honest: two records deleted (204), and the second is not the replacement just opened.
    const item = new RegExp(`^${create.request.url}/[^/]+$`);
    const deleted = served(r, "DELETE", item).filter((e) => e.status === 204);
    expect(deleted.length).toBe(2);
    const minted = served(r, "POST", new RegExp(`^${create.request.url}$`))
      .map((e) => (e.response_body as Record<string, unknown> | null)?.[idField])
      .filter((v) => v !== undefined);
    expect(minted.length).toBe(1);
    expect(deleted[1]?.url.endsWith(`/${String(minted[0])}`)).toBe(false);
    expect(r.grade.passed).toBe(false);
  });
});

describe("agent audit (feb): a hard partial write's commit flag is discoverable", () => {
  // satellite-ground-sub15 of seed audit-feb (error_recovery, hard): "`POST /v3/gs/passes/intake`
  // … keeps returning `503 partial_write` … Make sure exactly one contact pass ends up committed."
  // At hard, the 503 is terse ("the write to passes PASS-7428CG was staged but not committed",
  // no hint); a plain resend answers 409 staged_write_pending, also terse. The golden commits by
  // resending with `"confirm": true`, but the spec's request body for the route has no `confirm`
  // (norad_id, obsw_build, pass_state, priority_class, purpose) and no response reveals it: the
  // agent can only guess it (it did, after three misses). The discoverability gate passes it
  // because `confirm` occurs as a token elsewhere in the spec (the async jobs' `…/confirm` path,
  // `confirm_url`). Class: every hard task on a partial-write route (error_recovery.partial-*,
  // and the chains carrying them); and the gate's literal check is a class of its own: a body
  // field name is "discoverable" when the word appears anywhere in the spec. Proposed fixes: the
  // spec documents `confirm` in the request body of partial-write routes (renderOpenApi), and
  // discoverability checks a body field against the route's documented body (or an earlier
  // response naming it), not the whole spec's words. Left open: the spec is shared with the
  // world owners (i16-schemes), and the gate with i21-gates.
  const task = solo.find(
    (t) =>
      t.difficulty === "hard" &&
      t.golden.some(
        (s) => isExecute(s) && (s.request.body as Record<string, unknown> | undefined)?.confirm === true,
      ),
  );

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
  });

  it("the commit flag the golden sends is named by the spec's body for the route or by an error", async () => {
    if (!task) throw new Error("no hard partial-write task");
    const commit = task.golden.find(
      (s): s is Execute =>
        isExecute(s) && (s.request.body as Record<string, unknown> | undefined)?.confirm === true,
    ) as Execute;
    const r = await replay(task, task.golden, "golden");
    expect(r.grade.failure_reason).toBe("");
    // What the agent saw before the commit: every error body, as text.
    const errors = r.events.flatMap((e) =>
      e.type === "exchange" && e.status >= 400 ? [JSON.stringify(e.response_body)] : [],
    );
    // The world words its error codes in its own style (PARTIAL_WRITE, partial_write…).
    expect(errors.some((b) => /partial_write/i.test(b))).toBe(true);
    const world = worldOf(bank, task);
    const doc = worldSpec(world) as { document?: { paths?: Record<string, Record<string, unknown>> } };
    const op = doc.document?.paths?.[commit.request.url]?.[commit.request.method.toLowerCase()] as
      | { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }
      | undefined;
    const documented = Object.keys(op?.requestBody?.content?.["application/json"]?.schema?.properties ?? {});
    expect(documented.length).toBeGreaterThan(0);
    const named = documented.includes("confirm") || errors.some((b) => /\bconfirm\b/.test(b));
    expect(named).toBe(true);
  });
});

describe("agent audit (feb): a ranking read through the documented category registry", () => {
  // hotel-housekeeping-sub08 of seed audit-feb (pagination, hard): "lowest `energy_kwh` among the
  // rooms whose `floor_zone` is `lower` … Look at every record the listing can give you. Give the
  // winner's live `lock_firmware` and `keycard_series`, and the runner-up's lock_firmware". The
  // canonical `GET /pms/v3/registry/rooms?floor_zone=lower` (its required parameter named by its
  // 400) answers every lower room in one call, with the live values. Ranked from it, the winner
  // read live, the card right: 6/7, failed runner_up_from_listing, a requirement with no ticket
  // sentence. The winner's id from the registry is accepted (`also_from`, other-sources.ts), the
  // runner-up's value is not ("another field read off a listing keeps its route"). Either way is
  // a finding: as a false fail (the ticket never says the runner-up must come from `GET
  // /pms/v3/rooms`), or, if the listing walk is the point, the ticket must say so and the
  // winner's also_from lets the registry skip the walk (the pagination axis is then one call).
  // Class: every pagination task ranking within a category (10 solo in the default bank). Closed
  // on the false-fail side: a listed row's field, like an id, is also taken from the collection's
  // other canonical listings (other-sources `otherListings`).
  const task = solo.find(
    (t) =>
      t.grader.g1.some((p) => p.id === "runner_up_from_listing") && /whose `[^`]+` is `[^`]+`/.test(t.ticket),
  );
  const [, catField, cat] = task?.ticket.match(/whose `([^`]+)` is `([^`]+)`/) ?? [];
  const world = task ? worldOf(bank, task) : undefined;
  const registry = world?.routes.find(
    (r) =>
      r.method === "GET" &&
      r.status === "canonical" &&
      r.action === "list" &&
      (r.query_params ?? []).some((q) => q.required && q.name === catField),
  );

  it("the task this test needs exists in the default bank, with a category registry", () => {
    expect(task).toBeDefined();
    expect(registry).toBeDefined();
  });

  it("the ranking taken from the registry, the winner read live, passes", async () => {
    if (!task || !registry || !catField || !cat) throw new Error("no category ranking task");
    const listing = (s: GoldenStep) =>
      isExecute(s) &&
      s.request.method === "GET" &&
      /\?page=|\?cursor=|\?limit=|\?offset=/.test(s.request.url);
    // First run: the golden, to learn the values it binds (the trial seed makes them the same).
    let bound = new Map<string, unknown>();
    const first = await trial(
      bank,
      task,
      scripted(bank, "golden", async (session) => {
        bound = await playGolden(task.golden, session, { finish: false, versioning: task.versioning });
        if (!session.ended) session.finish(cardMessage(cardFrom(task, bound as Map<string, never>)));
      }),
    );
    expect(first.grade.failure_reason).toBe("");
    const auth = (task.golden.find((s) => listing(s)) as Execute).request.headers;
    const steps = task.golden.flatMap((s): GoldenStep[] => {
      if (!listing(s)) return [s];
      if (s !== task.golden.find(listing)) return [];
      return [
        {
          op: "execute",
          request: {
            method: "GET",
            url: `${registry.path}?${catField}=${cat}`,
            ...(auth ? { headers: auth } : {}),
          },
          capture: {},
        },
      ];
    });
    // The listing's captures (the winner's id, the runner-up's value) are what the registry showed.
    const literal = steps.map((s): GoldenStep => {
      if (!isExecute(s)) return s;
      let text = JSON.stringify(s.request);
      for (const [k, v] of bound) if (typeof v === "string") text = text.replaceAll(`{{${k}}}`, v);
      return { ...s, request: JSON.parse(text) as Execute["request"] };
    });
    const r = await trial(
      bank,
      task,
      scripted(bank, "via-registry", async (session) => {
        await playGolden(literal, session, { finish: false });
        if (!session.ended) session.finish(cardMessage(cardFrom(task, bound as Map<string, never>)));
      }),
    );
    // Honest: the listing was never read, the registry answered 200 with the category's rows.
    expect(served(r, "GET", /\?(page|cursor|limit|offset)=/)).toEqual([]);
    expect(served(r, "GET", new RegExp(`^${registry.path}\\?`)).map((e) => e.status)).toEqual([200]);
    expect(r.grade.g2_passed).toBe(true);
    expect(r.grade.failure_reason).toBe("");
  });
});
