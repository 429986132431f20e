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
    expect(measuredDifficulty({ calls: 1, decoys: 0, spelled: 1, hint: "explicit", live_values: 0 })).toBe(
      "easy",
    );
    expect(measuredDifficulty({ calls: 5, decoys: 1, spelled: 0.5, hint: "partial", live_values: 0 })).toBe(
      "medium",
    );
    expect(measuredDifficulty({ calls: 9, decoys: 2, spelled: 0.2, hint: "implicit", live_values: 3 })).toBe(
      "hard",
    );
    // A template's "hard" that is one documented call is not hard (billing-ledger-sub06 of issue 16).
    expect(measuredDifficulty({ calls: 2, decoys: 0, spelled: 0.9, hint: "explicit", live_values: 0 })).toBe(
      "easy",
    );
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
    expect(section.split("\n").filter((l) => /^\| [a-z-]+-(sub|chain-1to)\d+ \|/.test(l))).toHaveLength(
      content.tasks.length,
    );
  });
});
