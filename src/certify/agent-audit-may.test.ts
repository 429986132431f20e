import { describe, expect, it } from "vitest";
import {
  type Execute,
  isExecute,
  replayOnDefaultBank as replay,
  soloTasks as solo,
} from "../../test/support/default-bank-replay.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";

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
  // every scan task whose winner (and runner-up) sit before the last page. Open: a "walked to the
  // end" predicate must still accept the category registry route the feb audit admitted (one call,
  // every record of a category), which a page-count or last-page predicate alone would refuse.
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

  it.fails("the walk stopped at the winner's page (later pages never read) fails (open: whole_collection has no walked-to-the-end predicate)", async () => {
    if (!task || !walk) throw new Error("no scan task with pages past its winner");
    const dropped = new Set(walk.pages.filter((i) => i > walk.lastUsed));
    const steps = task.golden.filter((_, i) => !dropped.has(i));
    expect(dropped.size).toBeGreaterThan(0);
    const r = await replay(task, steps, "stopped-at-winner-page");
    expect(r.grade.passed).toBe(false);
    expect(r.grade.failure_reason).toMatch(/whole_collection|page/);
  });
});
