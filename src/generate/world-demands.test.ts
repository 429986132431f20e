import { describe, expect, it } from "vitest";
import { serializeBank } from "../bank/bank.js";
import { bankDatasheet } from "./datasheet.js";
import { defaultBankContent } from "./default-bank.js";
import { worldDemandCounts, worldDemandLine } from "./world-demands.js";

/** Issue 16: the datasheet counts the tasks whose world demands a skill of its own. */
describe("world demands in the datasheet", () => {
  const content = defaultBankContent();

  it("counts transitions, records changed between reads and decoys listed first in the default bank", () => {
    const c = worldDemandCounts(content.worlds, content.tasks);
    expect(c.transitions).toBeGreaterThan(0);
    expect(c.changed_between_reads).toBeGreaterThan(0);
    expect(c.decoy_first).toBeGreaterThan(0);
    expect(worldDemandLine(content.worlds, content.tasks)).toMatch(
      /(\d+) move a record through its workflow .*, (\d+) read a record again .*, (\d+) take a record listed after a near-miss decoy/,
    );
  });

  it("counts nothing where the worlds do not demand it: no workflow, no delayed stamp, no ranking", () => {
    const plain = content.worlds.map((w) => ({
      ...w,
      routes: w.routes.map(({ workflow: _w, sort: _s, ...r }) => r),
    }));
    expect(worldDemandCounts(plain, content.tasks)).toEqual({
      transitions: 0,
      changed_between_reads: 0,
      decoy_first: 0,
    });
  });

  it("is printed in the datasheet", () => {
    expect(bankDatasheet(content, serializeBank(content).manifest)).toContain(
      worldDemandLine(content.worlds, content.tasks),
    );
  });
});
