import { describe, expect, it } from "vitest";
import { generateBank } from "../generate-bank.js";

/**
 * Two scan positions of one storyline that name the same winner let either position's read answer
 * the other in a chain holding both, so neither read is load-bearing (the triad's
 * `canary_without_call` sabotage passes). The deep-answer preference (answer beyond the first page
 * at the cap) once ranked above freshness and gave such pairs: seed apiflow-1 (event-ticketing,
 * G-95 at positions 13 and 17) and s6 (water-utility, positions 10 and 20) at 20 positions.
 */
describe("the scan positions of a storyline", () => {
  it.each(["apiflow-1", "s6"])(
    "name distinct winners (seed %s, 20 positions)",
    (seed) => {
      const r = generateBank({ seed, positions: 20 });
      if (!r.success) throw new Error(r.error.message);
      const named = new Map<string, string>();
      let scans = 0;
      for (const t of r.data.tasks) {
        if (t.kind !== "solo" || !t.axes.includes("pagination")) continue;
        scans++;
        for (const a of t.grader.answer) {
          const expected = a.expected as { $canary?: string } | null;
          if (typeof expected !== "object" || !expected?.$canary) continue;
          const key = `${t.world} ${expected.$canary}`;
          expect(named.get(key), `${key} named by ${t.id}`).toBeUndefined();
          named.set(key, t.id);
        }
      }
      expect(scans).toBeGreaterThanOrEqual(13 * 2);
    },
    60_000,
  );
});
