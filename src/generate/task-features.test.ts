import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import type { Task } from "../bank/task-schema.js";
import { difficultySection } from "./datasheet.js";
import { defaultBankContent } from "./default-bank.js";
import { measuredDifficulty, taskFeatures } from "./task-features.js";

describe("difficulty from measured features", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  const worldOf = (t: Task) => bank.worlds.find((w) => w.id === t.world) as (typeof bank.worlds)[number];

  it("counts a golden's calls, its decoy-shadowed calls and the live values it carries forward", () => {
    const task = bank.tasks.find((t) => t.kind === "solo" && t.axes[0] === "pagination") as Task;
    const f = taskFeatures(task, worldOf(task));
    expect(f.calls).toBe(task.golden.filter((s) => s.op === "execute").length);
    // The winner's id is read off the listing and sent in the read of its record.
    expect(f.live_values).toBeGreaterThanOrEqual(1);
    expect(f.decoys).toBeGreaterThanOrEqual(1);
  });

  it("labels by the rule: a one-call task the ticket spells out is easy, a long implicit one with decoys is hard", () => {
    const f = {
      calls: 1,
      pages: 0,
      decoys: 0,
      spelled: 1,
      hint: "explicit",
      live_values: 0,
      repeats: 0,
      fix_from_error: false,
      plain: false,
    } as const;
    expect(measuredDifficulty(f)).toBe("easy");
    expect(measuredDifficulty({ ...f, calls: 5, spelled: 0.5, hint: "partial" })).toBe("medium");
    expect(
      measuredDifficulty({ ...f, calls: 9, decoys: 2, spelled: 0.2, hint: "implicit", live_values: 3 }),
    ).toBe("hard");
    // A template's "hard" that is one documented call is not hard (billing-ledger-sub06 of issue 16).
    expect(measuredDifficulty({ ...f, calls: 2, spelled: 0.9 })).toBe("easy");
    // Sends that repeat one (a re-mint, a poll, a retry) count: eight calls with two re-mints are hard.
    expect(measuredDifficulty({ ...f, calls: 8, repeats: 2 })).toBe("hard");
    expect(measuredDifficulty({ ...f, calls: 8 })).toBe("medium");
  });

  it("caps at medium a task whose golden reads its fix off an error (a hard error does not name it)", () => {
    const f = {
      calls: 9,
      pages: 0,
      decoys: 2,
      spelled: 0.2,
      hint: "implicit",
      live_values: 3,
      repeats: 2,
      plain: false,
    } as const;
    expect(measuredDifficulty({ ...f, fix_from_error: false })).toBe("hard");
    expect(measuredDifficulty({ ...f, fix_from_error: true })).toBe("medium");
    const reader = bank.tasks.find(
      (t) =>
        t.kind === "solo" &&
        t.golden.some(
          (s) => s.op === "execute" && Object.values(s.capture).some((p) => /\ballowed\b/.test(p)),
        ),
    ) as Task;
    expect(taskFeatures(reader, worldOf(reader)).fix_from_error).toBe(true);
    expect(reader.difficulty).not.toBe("hard");
  });

  it("counts decoyed routes, not calls: a walk of five pages on one decoyed route counts one", () => {
    const task = bank.tasks.find((t) => t.kind === "solo" && t.axes[0] === "pagination") as Task;
    const f = taskFeatures(task, worldOf(task));
    expect(f.calls).toBeGreaterThanOrEqual(4);
    expect(f.decoys).toBeLessThanOrEqual(2);
    expect(f.repeats).toBe(0);
  });

  it("spreads the axes: hard tasks in five axes, and two levels or more in every axis but pagination", () => {
    const levels = (axis: string) =>
      new Set(bank.tasks.filter((t) => t.kind === "solo" && t.axes[0] === axis).map((t) => t.difficulty));
    for (const axis of ["auth", "schema_repair", "multistep", "error_recovery", "statefulness"]) {
      expect(levels(axis).has("hard"), axis).toBe(true);
      expect(levels(axis).size, axis).toBeGreaterThanOrEqual(2);
    }
    expect(levels("discovery")).toEqual(new Set(["easy", "medium"]));
    // Every pagination task of this bank is a plain walk of its listing to the end: medium, none hard.
    expect(levels("pagination")).toEqual(new Set(["medium"]));
  });

  it("a ticket that spells out what to send lowers the hint points", () => {
    const task = bank.tasks.find((t) => t.kind === "solo" && t.axes[0] === "schema_repair") as Task;
    const bare = taskFeatures({ ...task, ticket: "Fix it." }, worldOf(task));
    expect(bare.hint).toBe("implicit");
    expect(taskFeatures(task, worldOf(task)).spelled).toBeGreaterThan(bare.spelled);
  });

  it("publishes the rule and every task's features in the datasheet", () => {
    const section = difficultySection(content);
    expect(section).toMatch(/Rule: points = calls/);
    expect(section).toMatch(/a plain read \(apart from token mints, only GETs/);
    expect(section).toMatch(/Every solo task of pagination is a plain read, so none is hard/);
    const rows = section.split("\n").filter((l) => /^\| [a-z-]+-(sub|chain-1to)\d+ \|/.test(l));
    expect(rows).toHaveLength(content.tasks.length);
    // How explicit the errors are: terse for exactly the hard solo tasks, full for the rest.
    const terse = rows.filter((l) => l.endsWith("| terse |")).map((l) => l.split(" | ")[0]?.slice(2));
    expect(terse).toEqual(
      content.tasks.filter((t) => t.kind === "solo" && t.difficulty === "hard").map((t) => t.id),
    );
    expect(section).toMatch(/\*\*error hints\*\*/);
  });
});
