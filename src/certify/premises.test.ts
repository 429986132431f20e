import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { loadBank, writeBank } from "../bank/load-bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { premiseFindings } from "./premises.js";

describe("premises gate: a ticket claims only what the world does", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  const world = bank.worlds[0]?.id;
  const solo = bank.tasks.filter((t) => t.kind === "solo" && t.world === world);
  const withCall = solo.find((t) => t.premises?.some((p) => p.kind === "call" && p.status >= 400)) as Task;
  const withSpec = solo.find((t) => t.premises?.some((p) => p.kind === "spec_body")) as Task;
  const swap = (task: Task, edit: (t: Task) => Task) =>
    bankFromContent({ ...content, tasks: content.tasks.map((t) => (t.id === task.id ? edit(t) : t)) });

  it("holds for every premise of one world's solo tasks (quoted calls replayed, spec claims looked up)", async () => {
    expect(withCall).toBeDefined();
    expect(withSpec).toBeDefined();
    const failures = (await Promise.all(solo.map((t) => premiseFindings(bank, t)))).flat();
    expect(failures).toEqual([]);
  }, 60_000);

  it("holds on the bank written to disk and loaded back (keys sorted), where quoted validation errors must read the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-premises-"));
    try {
      writeBank(dir, content);
      const loaded = loadBank(dir);
      expect(loaded.success).toBe(true);
      if (!loaded.success) return;
      // Every task quoting a validation message (schema repair's dispatch bodies among them).
      const quoting = loaded.data.tasks.filter((t) =>
        t.premises?.some((p) => p.kind === "call" && p.message !== undefined),
      );
      // (The hard live-validator tickets quote only the code: a hard error's message is terse.)
      expect(quoting.length).toBeGreaterThanOrEqual(8);
      const failures = (await Promise.all(quoting.map((t) => premiseFindings(loaded.data, t)))).flat();
      expect(failures).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("rejects a ticket whose quoted call the world answers otherwise", async () => {
    const broken = swap(withCall, (t) => ({
      ...t,
      premises: t.premises?.map((p) => (p.kind === "call" ? { ...p, status: 418 } : p)),
    }));
    const found = await premiseFindings(broken, broken.tasks.find((t) => t.id === withCall.id) as Task);
    expect(found[0]).toMatchObject({ check: "call:status" });
    expect(found[0]?.message).toMatch(/got 418, the world answers \d{3}/);
  });

  it("rejects a ticket that says the spec documents a body field it lacks (crew_size on the dispatch body)", async () => {
    const broken = swap(withSpec, (t) => ({
      ...t,
      premises: t.premises?.map((p) =>
        p.kind === "spec_body" ? { ...p, fields: [...p.fields, "crew_size"] } : p,
      ),
    }));
    const found = await premiseFindings(broken, broken.tasks.find((t) => t.id === withSpec.id) as Task);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: "spec_body:undocumented_field" });
    expect(found[0]?.message).toMatch(/`crew_size`/);
  });

  it("rejects a ticket pointing at a spec body the world refuses (a spec lagging its validator)", async () => {
    const lagging = bankFromContent({
      ...content,
      worlds: content.worlds.map((w) =>
        w.id !== withSpec.world
          ? w
          : {
              ...w,
              routes: w.routes.map((r) =>
                r.validator && r.path.endsWith("/dispatch")
                  ? { ...r, validator: { ...r.validator, spec_lag: true } }
                  : r,
              ),
            },
      ),
    });
    const found = await premiseFindings(lagging, withSpec);
    expect(found.map((f) => f.check)).toContain("spec_body:refused");
    expect(found.find((f) => f.check === "spec_body:refused")?.message).toMatch(
      /refused by the live validator/,
    );
  });

  it("rejects a ticket that names a route the spec does not have", async () => {
    const broken = swap(withSpec, (t) => ({
      ...t,
      premises: [{ kind: "spec_body", method: "POST", path: "/v9/nowhere", fields: ["x"] }],
    }));
    const found = await premiseFindings(broken, broken.tasks.find((t) => t.id === withSpec.id) as Task);
    expect(found[0]).toMatchObject({ check: "spec_body:no_route" });
  });
});
