import { describe, expect, it } from "vitest";
import { bankWith, decoyBlindGrader, SUB02, skeletonContent } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import { certifyBank, GATE_VERSIONS } from "./certify-bank.js";
import { GATE_NAMES } from "./certify-schema.js";
import { GATES } from "./gate-registry.js";

describe("the gate registry", () => {
  it("holds each gate once, in the order of GATE_NAMES (the gates.* keys of apiflow verify --json)", () => {
    expect(GATES.map((g) => g.name)).toEqual([...GATE_NAMES]);
    expect(Object.keys(GATE_VERSIONS)).toEqual([...GATE_NAMES]);
    for (const g of GATES) expect(GATE_VERSIONS[g.name]).toBe(g.version);
  });

  it("runs only the wanted gates, reported in registry order whatever order they were asked in", async () => {
    const report = await certifyBank(bankFromContent(skeletonContent()), {
      gates: ["leak", "triad"],
      tasks: (t) => t.id === SUB02,
    });
    expect(Object.keys(report.gates)).toEqual(["triad", "leak"]);
    expect(report.gates.triad).toMatchObject({ checked: 1, failed: 0 });
  });

  it("reports a gate's findings under its name: a grader blind to the decoy fails the triad", async () => {
    const report = await certifyBank(bankWith(SUB02, decoyBlindGrader), {
      gates: ["triad"],
      tasks: (t) => t.id === SUB02,
    });
    expect(report.ok).toBe(false);
    expect(report.gates.triad?.failures.map((f) => f.check)).toEqual(["sabotage:decoy_route@3"]);
  });
});
