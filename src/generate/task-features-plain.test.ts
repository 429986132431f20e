import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { defaultBankContent } from "./default-bank.js";
import { difficultyPoints, measuredDifficulty, type TaskFeatures, taskFeatures } from "./task-features.js";

/**
 * Issue 16 item 5, tightened: a hard label means more than a plain read. An agent audit judged
 * hard labels loose — a find-by-name that reads one listing page and one record labelled hard
 * (billing-ledger-sub12 of the default bank; sub10 of the bank the audit read), and hard
 * pagination tasks that need only a walk of the listing to its end. Those are plain reads: at
 * most medium, whatever their points.
 */
const bank = bankFromContent(defaultBankContent());
const worldOf = (t: Task) => bank.worlds.find((w) => w.id === t.world) as (typeof bank.worlds)[number];
const solo = bank.tasks.filter((t) => t.kind === "solo");
type Execute = Extract<GoldenStep, { op: "execute" }>;
const sends = (t: Task) => t.golden.filter((s): s is Execute => s.op === "execute");

describe("a plain read is not hard", () => {
  it("a find-by-name that reads one listing page and one record is medium, though its points say hard", () => {
    const task = solo.find((t) => t.id === "billing-ledger-sub12") as Task;
    // Its shape: a token mint, the listing's first page, the record the name resolves to.
    expect(sends(task).map((s) => s.request.method)).toEqual(["POST", "GET", "GET"]);
    const f = taskFeatures(task, worldOf(task));
    expect(f).toMatchObject({ calls: 3, pages: 0, decoys: 2, hint: "implicit", live_values: 1, plain: true });
    // The points alone (the rule before the plain cap) label it hard; the cap holds it at medium.
    expect(difficultyPoints(f)).toBeGreaterThanOrEqual(5);
    expect(measuredDifficulty(f)).toBe("medium");
    expect(task.difficulty).toBe("medium");
    // The same features without the cap (a golden that is not a plain read) are hard.
    expect(measuredDifficulty({ ...f, plain: false })).toBe("hard");
  });

  it("every pagination task (a walk of the listing to its end, then one read) is plain and not hard", () => {
    const scans = solo.filter((t) => t.axes[0] === "pagination");
    expect(scans.length).toBeGreaterThanOrEqual(25);
    const features = scans.map((t) => taskFeatures(t, worldOf(t)));
    for (const [i, f] of features.entries()) {
      const t = scans[i] as Task;
      expect(f.plain, t.id).toBe(true);
      // One walk: its further pages are the calls beyond the mint, the first page and the read.
      expect(f.pages, t.id).toBe(f.calls - 3);
      expect(f.pages, t.id).toBeGreaterThanOrEqual(1);
      expect(t.difficulty, t.id).not.toBe("hard");
    }
    // Not vacuous: the walks the ticket leaves to the spec score as hard before the cap.
    expect(features.filter((f) => difficultyPoints(f) >= 5).length).toBeGreaterThanOrEqual(5);
  });

  it("a cursor walk's cursors are the walk, not live values: only the winner's id is carried", () => {
    const cursorScan = solo.find(
      (t) =>
        t.axes[0] === "pagination" && sends(t).some((s) => Object.values(s.capture).includes("next_cursor")),
    ) as Task;
    expect(cursorScan).toBeDefined();
    const f = taskFeatures(cursorScan, worldOf(cursorScan));
    expect(f.pages).toBeGreaterThanOrEqual(2);
    expect(f.live_values).toBe(1);
  });

  it("no one feature makes a task hard: a hard task has several demands", () => {
    const none: TaskFeatures = {
      calls: 1,
      pages: 0,
      decoys: 0,
      spelled: 1,
      hint: "explicit",
      live_values: 0,
      repeats: 0,
      fix_from_error: false,
      plain: false,
    };
    const alone: Array<Partial<TaskFeatures>> = [
      { calls: 40 },
      { repeats: 9 },
      { decoys: 9 },
      { live_values: 9 },
      { spelled: 0, hint: "implicit" },
    ];
    for (const one of alone)
      expect(measuredDifficulty({ ...none, ...one }), JSON.stringify(one)).not.toBe("hard");
    // Two of them are: a long sequence the ticket leaves unsaid.
    expect(measuredDifficulty({ ...none, calls: 8, spelled: 0, hint: "implicit" })).toBe("hard");
  });

  it("every hard solo task of the default bank is more than a plain read, with several features scoring", () => {
    const hard = solo.filter((t) => t.difficulty === "hard");
    expect(hard.length).toBeGreaterThanOrEqual(20);
    for (const t of hard) {
      const f = taskFeatures(t, worldOf(t));
      expect(f.plain, t.id).toBe(false);
      const scoring = [
        f.calls >= 4,
        f.repeats >= 1,
        f.decoys >= 2,
        f.live_values >= 1,
        f.hint !== "explicit",
      ].filter(Boolean).length;
      expect(scoring, t.id).toBeGreaterThanOrEqual(2);
    }
  });
});

describe("what makes a walk more than plain", () => {
  // A hard-scoring scan: the ticket leaves the paging to the spec (implicit hint).
  const scan = solo.find(
    (t) => t.axes[0] === "pagination" && difficultyPoints(taskFeatures(t, worldOf(t))) >= 5,
  ) as Task;
  const listing = (s: GoldenStep): s is Execute =>
    s.op === "execute" && s.request.method === "GET" && s.request.url.includes("?");
  const edited = (f: (s: GoldenStep, i: number) => GoldenStep | GoldenStep[]): TaskFeatures =>
    taskFeatures({ ...scan, golden: scan.golden.flatMap(f) }, worldOf(scan));

  it("the scan itself is a plain walk, medium", () => {
    const f = taskFeatures(scan, worldOf(scan));
    expect(f.plain).toBe(true);
    expect(measuredDifficulty(f)).toBe("medium");
  });

  it("a filter combined with the paging makes it more than a plain walk: hard", () => {
    const f = edited((s) =>
      listing(s) ? { ...s, request: { ...s.request, url: `${s.request.url}&status=active` } } : s,
    );
    expect(f.plain).toBe(false);
    // The filter's literals join the ones the ticket leaves unsaid: still several features.
    expect(measuredDifficulty(f)).toBe("hard");
  });

  it("a page read again (a record that changes between pages) makes it more than a plain walk", () => {
    const first = scan.golden.find(listing) as Execute;
    const f = edited((s) => (s === scan.golden.find((x) => x.op === "answer") ? [{ ...first }, s] : s));
    expect(f.repeats).toBe(1);
    expect(f.pages).toBe(taskFeatures(scan, worldOf(scan)).pages);
    expect(f.plain).toBe(false);
    expect(measuredDifficulty(f)).toBe("hard");
  });

  it("a write, or a second record route, makes it more than a plain read", () => {
    const read = [...scan.golden].reverse().find((s) => s.op === "execute") as Execute;
    const write = edited((s) =>
      s === read ? [s, { ...read, request: { ...read.request, method: "PATCH", body: { note: "x" } } }] : s,
    );
    expect(write.plain).toBe(false);
    // Another canonical record route of the world, its parameters filled.
    const other = worldOf(scan).routes.find(
      (r) =>
        r.method === "GET" &&
        r.status === "canonical" &&
        !r.pagination &&
        r.resource !== worldOf(scan).routes.find((x) => x.pagination)?.resource,
    );
    if (!other) throw new Error("no second record route");
    const url = other.path.replace(/\{[^}]+\}/g, "X-1");
    const second = edited((s) => (s === read ? [s, { ...read, request: { ...read.request, url } }] : s));
    expect(second.plain).toBe(false);
    // Not because the route is unknown: the same URL alone (without the walk) is a plain read.
    const alone = taskFeatures(
      { ...scan, golden: [{ ...read, request: { ...read.request, url } }] },
      worldOf(scan),
    );
    expect(alone.plain).toBe(true);
    // A send to no route of the world (what it does is not measured) is not taken for a read.
    const unknown = edited((s) =>
      s === read ? [s, { ...read, request: { ...read.request, url: "/nowhere/at-all" } }] : s,
    );
    expect(unknown.plain).toBe(false);
  });
});
