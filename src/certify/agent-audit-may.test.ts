import { describe, expect, it } from "vitest";
import {
  defaultBank as bank,
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  served,
  soloTasks as solo,
} from "../../test/support/default-bank-replay.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { playAndAnswer, scripted, trial, worldOf } from "./certify-kit.js";
import { goldenExchanges } from "./golden-edits.js";
import { goldenMutants } from "./golden-mutants.js";
import { kills, legitimateVariantFindings, requirementMutantFindings } from "./requirement-gates.js";
import { sharedTrials } from "./trial-tree.js";

// Holes the May agent audit found by playing a private bank (`generate --seed audit-may`) over
// `apiflow mcp --http` as an agent would, then breaking its tickets on purpose. Each test replays a
// default-bank task's golden with the one change the agent made, through the real harness, and
// states the verdict the ticket calls for. The ones still open are `it.fails`, each naming its hole.

/** The path (no query) of a listing step: a GET with a query string. */
function listingPath(s: GoldenStep): string | null {
  if (!isExecute(s) || s.request.method !== "GET") return null;
  const at = s.request.url.indexOf("?");
  return at < 0 ? null : s.request.url.slice(0, at);
}

/**
 * A pagination scan whose golden walks the listing past every page it takes a value from: the
 * indexes of its listing steps, and of the last one a value is captured from.
 */
function walkPastTarget(t: Task): { pages: number[]; lastUsed: number } | null {
  const capturing = t.golden.findIndex(
    (s) => isExecute(s) && Object.keys(s.capture).some((k) => /_id0$/.test(k)),
  );
  if (capturing < 0) return null;
  const path = listingPath(t.golden[capturing] as GoldenStep);
  if (path === null) return null;
  const pages = t.golden.flatMap((s, i) => (listingPath(s) === path ? [i] : []));
  const lastUsed = Math.max(...pages.filter((i) => Object.keys((t.golden[i] as Execute).capture).length > 0));
  return lastUsed < (pages.at(-1) as number) ? { pages, lastUsed } : null;
}

describe("agent audit (may): a ranking over the whole collection must walk the whole collection", () => {
  // billing-ledger-sub08 of seed audit-may (pagination, medium): "highest `balance_eur` across all
  // accounts … It pages by `page` and `per_page` (pages of up to 25): pages 1, 2, 3, 4. Look at
  // every record the listing can give you. Give that account's live `mandate_ref` and
  // `tax_id_token`." The winner sat on page 2. Pages 1 and 2 read, pages 3 and 4 never asked for,
  // the winner of those two read live and reported: PASSED (5 calls). An agent that stops there
  // cannot know its pick is the maximum; it is right by luck. The `whole_collection` requirement is
  // held by `winner_id_from_listing` alone (the id came from some listing page), and the axis gate
  // breaks the golden to "one page only", which fails only when the winner is past page one. Class:
  // every scan task whose winner (and runner-up) sit before the last page. Closed: whole_collection
  // is also held by `listing_read_to_end` (kind `covered`): every record of the question's scope
  // shown by some 200 page of the listing, or of the collection's other canonical listings (the
  // category registry the feb audit admitted, a search read through its pages), in any order and
  // page size; requirement_mutants stops the golden's walk after the winner's page.
  const task = solo.find((t) => t.axes.includes("pagination") && walkPastTarget(t) !== null);
  const walk = task ? walkPastTarget(task) : null;

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(walk).not.toBeNull();
  });

  it("the golden passes (the control)", async () => {
    if (!task) throw new Error("no scan task with pages past its winner");
    expect((await replay(task, task.golden, "golden")).grade.failure_reason).toBe("");
  });

  it("the walk stopped at the winner's page (later pages never read) fails naming whole_collection", async () => {
    if (!task || !walk) throw new Error("no scan task with pages past its winner");
    const dropped = new Set(walk.pages.filter((i) => i > walk.lastUsed));
    const steps = task.golden.filter((_, i) => !dropped.has(i));
    expect(dropped.size).toBeGreaterThan(0);
    const r = await replay(task, steps, "stopped-at-winner-page");
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/whole_collection|page/);
    const walked = r.grade.g1.find((g) => g.id === "listing_read_to_end");
    expect(walked).toMatchObject({ passed: false, requirement: "whole_collection" });
    expect(walked?.reason).toMatch(/not read through to its end/);
  });

  it("the same walk in the other page order passes (any order is a walk to the end)", async () => {
    if (!task || !walk) throw new Error("no scan task with pages past its winner");
    const order = [...walk.pages].reverse();
    const steps = task.golden.map((s, i) => {
      const k = walk.pages.indexOf(i);
      return k < 0 ? s : (task.golden[order[k] as number] as GoldenStep);
    });
    expect(steps).not.toEqual(task.golden);
    expect((await replay(task, steps, "walk-reversed")).grade.failure_reason).toBe("");
  });

  it("requirement_mutants stops the walk after the winner's page, and that mutant is killed naming whole_collection; without the new predicate it passes", async () => {
    if (!task) throw new Error("no scan task with pages past its winner");
    const world = worldOf(bank, task);
    const runner = sharedTrials(bank);
    const golden = await runner.run(task, goldenAgentFactory);
    const exchanges = goldenExchanges(task, golden.events);
    const mutants = goldenMutants(
      world,
      task,
      exchanges.map((e) => e?.status),
      exchanges,
    );
    const stopped = mutants.find((m) => m.requirement === "whole_collection");
    expect(stopped?.name).toMatch(/^whole_collection:stopped_walk@\d+$/);
    if (!stopped) throw new Error("no stopped-walk mutant");
    const play = (t: Task) =>
      trial(
        bank,
        t,
        scripted(bank, `mutant-${stopped.name}`, async (session, ctx) => {
          await playAndAnswer(session, t, stopped.steps(ctx.trialSeed), stopped.card);
        }),
      );
    expect(kills((await play(task)).grade, stopped)).toBe(true);
    // The grader as it was (whole_collection held by the winner's id alone) lets the mutant pass.
    const before: Task = {
      ...task,
      grader: { ...task.grader, g1: task.grader.g1.filter((p) => p.kind !== "covered") },
      requirements: (task.requirements ?? []).map((r) => ({
        ...r,
        predicates: r.predicates.filter((n) => n !== "listing_read_to_end"),
      })),
    };
    const old = await play(before);
    expect(old.grade.failure_reason).toBe("");
    expect(kills(old.grade, stopped)).toBe(false);
    // The gates agree on the task: every mutant killed, every legitimate variant passes.
    expect((await requirementMutantFindings(bank, task, runner)).failures).toEqual([]);
    expect(await legitimateVariantFindings(bank, task, runner)).toEqual([]);
  });
});

/** The search route of a task's world (a search-archetype world), or undefined. */
function searchPath(t: Task): string | undefined {
  const world = bank.worlds.find((w) => w.id === t.world);
  if (world?.archetype !== "search") return undefined;
  return world.routes.find((r) => r.status === "canonical" && r.method === "GET" && /\/search\//.test(r.path))
    ?.path;
}

/**
 * The golden with its listing walk replaced by one call to the world's search (ranked by the scan's
 * number field, highest first), filtered to the ticket's category, showing just the top rows: the
 * winner's id (and the runner-up's value) captured from rows 0 (and 1).
 */
function rankedShortcut(t: Task, search: string): GoldenStep[] | null {
  const walk = t.golden.flatMap((s, i) => (listingPath(s) !== null && isExecute(s) ? [i] : []));
  const captures = Object.assign({}, ...walk.map((i) => (t.golden[i] as Execute).capture)) as Record<
    string,
    string
  >;
  const id0 = Object.entries(captures).find(([k]) => /_id0$/.test(k));
  if (!id0 || walk.length < 2) return null;
  const capture: Record<string, string> = {};
  for (const [name, path] of Object.entries(captures)) {
    if (/_id1$/.test(name)) continue;
    capture[name] = path.replace(/^([^.]+)\.\d+\./, /_runner$/.test(name) ? "$1.1." : "$1.0.");
  }
  const cat = /whose `([^`]+)` is `([^`]+)`/.exec(t.ticket);
  const query = `per_page=2${cat ? `&${cat[1]}=${encodeURIComponent(cat[2] as string)}` : ""}`;
  const first = t.golden[walk[0] as number] as Execute;
  const step: Execute = { ...first, request: { ...first.request, url: `${search}?${query}` }, capture };
  const at = walk[0] as number;
  return [...t.golden.slice(0, at), step, ...t.golden.slice(at).filter((_, j) => !walk.includes(at + j))];
}

describe("agent audit (may): a search world's ranked search answers a highest-of scan in one call", () => {
  // lab-samples-chain-1to08 of seed audit-may (segment 3, pagination: "Find the analyser with the
  // highest `drift_ppm` across all analysers over the whole listing"). The world's published search
  // (`GET /lims/v3/search/analysers`) is documented as "ranked by drift_ppm, highest first": one
  // `?per_page=1` call names the winner. The chain done that way, the listing never walked (23
  // calls against 40): PASSED. The scan's number field is the one every search world ranks by
  // (archetype-routes.ts), so on a search world every "highest" scan (within a category too: the
  // search filters by it) needs no paging; the axis is not necessary. Class: pagination scans
  // asking "highest" on search-archetype worlds, solo and in chains. Open: the fix is in the
  // question choice (pagination.ts pickQuestion: no "highest" question on a search world, or a
  // search ranked by another field) and moves the default bank. Closed by the first hole's fix:
  // the ranked search shows two rows, and `listing_read_to_end` needs every record of the scope
  // shown (the search read through all its pages would count: that is a walk, the axis's skill).
  const task = solo.find(
    (t) =>
      t.axes.includes("pagination") &&
      /\bhighest\b/.test(t.ticket) &&
      searchPath(t) !== undefined &&
      rankedShortcut(t, searchPath(t) as string) !== null,
  );
  const steps = task ? rankedShortcut(task, searchPath(task) as string) : null;

  it("the task this test needs exists in the default bank", () => {
    expect(task).toBeDefined();
    expect(steps).not.toBeNull();
  });

  it("the shortcut finds the right winner (the ranked search is honest; the golden's card holds)", async () => {
    if (!task || !steps) throw new Error("no highest-of scan on a search world");
    const r = await replay(task, steps, "ranked-search-shortcut");
    // One search call served, the listing never asked for; the card is the golden's (G2 holds), so
    // only G1 could catch the shortcut.
    expect(served(r, "GET", /\/search\//).map((e) => e.status)).toEqual([200]);
    expect(served(r, "GET", /\?.*(page|offset|cursor)=/).filter((e) => !/\/search\//.test(e.url))).toEqual(
      [],
    );
    expect(r.grade.failure_reason).not.toMatch(/G2/);
  });

  it("the winner taken from one ranked search call, the listing never walked, fails (the scope was never read through)", async () => {
    if (!task || !steps) throw new Error("no highest-of scan on a search world");
    const r = await replay(task, steps, "ranked-search-shortcut");
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g1.find((g) => g.id === "listing_read_to_end")).toMatchObject({
      passed: false,
      requirement: "whole_collection",
    });
  });
});
