import { describe, expect, it } from "vitest";
import { bankWith, SUB01, SUB02, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { bankFromContent } from "../bank/bank.js";
import { leakGate } from "./leak.js";

describe("leak check", () => {
  const bank = bankFromContent(skeletonContent());

  it("finds no expected value in the skeleton bank's tickets or workspaces", async () => {
    expect(await leakGate(bank, bank.tasks)).toMatchObject({ checked: 4, failed: 0, first_failure: null });
  });

  it("rejects a ticket that already states the answer", async () => {
    const broken = bankWith(SUB02, (t) => ({ ...t, ticket: `${t.ticket}\n(It last called at Gdansk.)` }));
    const report = await leakGate(broken, [taskOf(broken, SUB02)]);
    expect(report.first_failure).toMatch(/last_port_call \("Gdansk"\) already sits in the ticket/);
  });

  it("rejects a seed workspace holding the trial's canary", async () => {
    const broken = bankWith(SUB01, (t) => ({
      ...t,
      workspace: { ...t.workspace, local: { last_build: { $canary: "v204_firmware", format: "FW-{code}" } } },
    }));
    const report = await leakGate(broken, [taskOf(broken, SUB01)]);
    expect(report.first_failure).toMatch(
      /firmware_build \("FW-[0-9A-Z]{6}"\) already sits in the seed workspace/,
    );
  });

  it("does not mistake a longer token for the value", async () => {
    const near = bankWith(SUB02, (t) => ({
      ...t,
      ticket: `${t.ticket} (Gdansk-North was the previous berth board.)`.replace("Gdansk-North", "XGdanskY"),
    }));
    expect((await leakGate(near, [taskOf(near, SUB02)])).failed).toBe(0);
  });
});
