import { describe, expect, it } from "vitest";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { prepareTrialWorld } from "./replay-setup.js";

describe("prepareTrialWorld", () => {
  it("replays the storyline with every hint, whatever the task's level, then serves the task's level", async () => {
    const content = defaultBankContent();
    // A solo task whose setup includes a golden that reads its fix off an error (an enum's allowed values).
    const task = content.tasks.find(
      (t) =>
        t.kind === "solo" &&
        t.setup.some(
          (s) => s.op === "execute" && Object.values(s.capture).some((p) => p.includes("allowed")),
        ),
    );
    if (!task) throw new Error("no solo task replays an allowed-value fix");
    const world = content.worlds.find((w) => w.id === task.world);
    if (!world) throw new Error("world missing");
    const count = async (difficulty: Task["difficulty"]) => {
      const trial = await prepareTrialWorld(world, { ...task, difficulty }, "seed-1");
      return { hints: trial.hints, records: [...trial.records.values()].reduce((n, l) => n + l.length, 0) };
    };
    const easy = await count("easy");
    const hard = await count("hard");
    // A hard task's terse errors hid the allowed values from the replay: the earlier create failed.
    expect(hard.records).toBe(easy.records);
    expect(hard.hints).not.toBe("full");
    expect(easy.hints).toBe("full");
  }, 60_000);
});
