import { describe, expect, it } from "vitest";
import { generateCertifiedBank } from "./certified-bank.js";

/**
 * Issue 20: a bank of another seed (the private split a user generates) passes every hard gate,
 * and every exploit, the matching exploits of issue 20 among them, attacks it and passes no task.
 * Every world template, three positions each (solo tasks and chains 1to2, 1to3): the whole bank
 * is certified by `npm run bench certify-other-seed`, too slow for every test run.
 */
describe("a bank of another seed", () => {
  it("passes every hard gate, with every exploit at 0 passes", async () => {
    const result = await generateCertifiedBank({ seed: "hunter-7", positions: 3 });
    expect(result.success).toBe(true);
    if (!result.success) return;
    const { content, report } = result.data;
    expect(new Set(content.tasks.map((t) => t.world)).size).toBe(13);
    expect(content.tasks.some((t) => t.kind === "chain")).toBe(true);
    for (const [name, gate] of Object.entries(report.gates))
      if (gate.hard) expect(gate.first_failure, name).toBeNull();
    expect(report.ok).toBe(true);
    const audit = report.gates.exploit_audit;
    expect(Object.values(audit?.exploits ?? {}).every((n) => n === 0)).toBe(true);
    for (const exploit of ["encoded-decoy", "header-smuggle", "no-op-write", "decoy-reader"])
      expect(audit?.attacked?.[exploit], exploit).toBeGreaterThan(0);
  }, 600_000);
});
