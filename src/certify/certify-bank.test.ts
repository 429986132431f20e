import { describe, expect, it } from "vitest";
import { CHAIN, SUB01, SUB02, skeletonContent } from "../../test/support/test-banks.js";
import { serializeBank } from "../bank/bank.js";
import { harborTasks } from "../generate/harbor-tasks.js";
import { certifyBank, dropUncertified, recordGates } from "./certify-bank.js";
import { CertifyReportSchema, GATE_NAMES } from "./certify-schema.js";
import { TRIAD_VERSION } from "./triad.js";
import { freshTrials } from "./trial-tree.js";

describe("certifyBank", () => {
  it("passes the skeleton bank (the default bank when the gates were written) through every gate", async () => {
    const report = await certifyBank(skeletonContent());
    expect(CertifyReportSchema.parse(report)).toEqual(report);
    expect(Object.keys(report.gates)).toEqual([...GATE_NAMES]);
    for (const name of GATE_NAMES)
      if (report.gates[name]?.hard) expect(report.gates[name]?.first_failure, name).toBeNull();
    // Axis necessity is hard: the skeleton's tickets quote the stale token and the deprecated route
    // their clients used, so the axis-blind agents (which keep them) fail.
    expect(report.gates.axis_necessity).toMatchObject({ hard: true, checked: 4, failed: 0 });
    expect(report.ok).toBe(true);
    // Requirement mutants are hard: the skeleton's SUB03 grader holds the order's vessel and
    // priority and one order only, so each golden broken alone fails. Legitimate variants are hard,
    // and the skeleton's reads are graded on any canonical route serving the vessel.
    expect(report.gates.requirement_mutants).toMatchObject({ checked: 4, failed: 0, hard: true });
    expect(report.gates.requirement_mutants?.mutants).toEqual({ generated: 10, killed: 10 });
    expect(report.gates.legitimate_variants).toMatchObject({ checked: 4, failed: 0, hard: true });
  });

  it("records the gates that ran in the manifest, covered by the content hash", async () => {
    const content = skeletonContent();
    const report = await certifyBank(content, { gates: ["leak", "triad"] });
    const recorded = recordGates(content, report);
    expect(recorded.gates).toEqual([
      { name: "triad", version: TRIAD_VERSION, checked: 4, passed: 4 },
      { name: "leak", version: "1.0.0", checked: 4, passed: 4 },
    ]);
    const before = serializeBank(content).manifest;
    const after = serializeBank(recorded).manifest;
    expect(after.gates).toEqual(recorded.gates);
    expect(after.content_hash).not.toBe(before.content_hash);
    const tampered = serializeBank({
      ...recorded,
      gates: recorded.gates?.map((g) => ({ ...g, passed: 3 })),
    }).manifest;
    expect(tampered.content_hash).not.toBe(after.content_hash);
  });

  it("fails the bank on one broken task, and dropping it truncates the chains through it", async () => {
    const tasks = harborTasks().map((t) =>
      t.id === SUB02 ? { ...t, ticket: `${t.ticket} It came from Gdansk.` } : t,
    );
    const content = skeletonContent(tasks);
    const report = await certifyBank(content, { gates: ["leak"] });
    expect(report.ok).toBe(false);
    expect(report.gates.leak?.failed).toBe(1);
    const { content: kept, dropped } = dropUncertified(content, report);
    expect(dropped).toEqual([SUB02, CHAIN]);
    expect(kept.tasks.map((t) => t.id)).not.toContain(CHAIN);
  });

  it("gives the same report on two worker threads, on this thread, and with every trial run afresh", async () => {
    // Failures in several gates, so the comparison covers their order and messages.
    const tasks = harborTasks().map((t) => {
      if (t.id === SUB02) return { ...t, ticket: `${t.ticket} It came from Gdansk.` };
      if (t.id === SUB01)
        return {
          ...t,
          grader: {
            ...t.grader,
            g1: [{ kind: "call" as const, id: "any", explain: "", url_pattern: "^/v3/", body_has_keys: [] }],
          },
        };
      return t;
    });
    const content = skeletonContent(tasks);
    const options = { attempts: 3, minPasses: 2 };
    const here = await certifyBank(content, options);
    expect(here.ok).toBe(false);
    expect(Object.values(here.gates).filter((g) => g.failed > 0).length).toBeGreaterThanOrEqual(2);
    expect(await certifyBank(content, { ...options, workers: 2 })).toEqual(here);
    expect(await certifyBank(content, { ...options, runner: freshTrials })).toEqual(here);
  }, 120_000);
});
