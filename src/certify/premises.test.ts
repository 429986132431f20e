import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../bank/bank.js";
import { loadBank, writeBank } from "../bank/load-bank.js";
import type { Task } from "../bank/task-schema.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { premiseFindings } from "./premises.js";
import { sharedTrials } from "./trial-tree.js";

describe("premises gate: a ticket claims only what the world does", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  const world = bank.worlds[0]?.id;
  const solo = bank.tasks.filter((t) => t.kind === "solo" && t.world === world);
  const withCall = solo.find((t) => t.premises?.some((p) => p.kind === "call" && p.status >= 400)) as Task;
  const withSpec = solo.find((t) => t.premises?.some((p) => p.kind === "spec_body")) as Task;
  // The edited task and its world alone: the whole default bank takes seconds to build.
  const swap = (task: Task, edit: (t: Task) => Task) =>
    bankFromContent({
      ...content,
      worlds: content.worlds.filter((w) => w.id === task.world),
      tasks: [edit(content.tasks.find((t) => t.id === task.id) as Task)],
    });

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

  it("finds the same through the shared trial runner (calls sent to a fork of its trials' start world), a broken ticket included", async () => {
    const runner = sharedTrials(bank);
    for (const t of solo.filter((s) => s.premises?.some((p) => p.kind === "call")))
      expect(await premiseFindings(bank, t, runner)).toEqual([]);
    const broken = swap(withCall, (t) => ({
      ...t,
      premises: t.premises?.map((p) => (p.kind === "call" ? { ...p, status: 418 } : p)),
    }));
    const task = broken.tasks.find((t) => t.id === withCall.id) as Task;
    const found = await premiseFindings(broken, task, sharedTrials(broken));
    expect(found).toEqual(await premiseFindings(broken, task));
    expect(found[0]).toMatchObject({ check: "call:status" });
  }, 60_000);

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
      tasks: content.tasks.filter((t) => t.id === withSpec.id),
      worlds: content.worlds.flatMap((w) =>
        w.id !== withSpec.world
          ? []
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

describe("premises gate: each check of a quoted call rejects the claim built to fail it", () => {
  const content = defaultBankContent();
  const bank = bankFromContent(content);
  const callPremise = (t: Task) => t.premises?.find((p) => p.kind === "call");
  const found = (what: string, holds: (t: Task) => boolean) => {
    const t = bank.tasks.find(holds);
    if (!t) throw new Error(`no task ${what} in the default bank`);
    return t;
  };
  // A harbour task that quotes the dispatch's 422 validation_failed with its message.
  const quoting = found("quoting the dispatch's 422", (t) => {
    const p = callPremise(t);
    return (
      t.world === "harbor-telemetry" &&
      p?.kind === "call" &&
      p.method === "POST" &&
      p.url === "/v3/maintenance-orders/dispatch" &&
      p.error === "validation_failed" &&
      (p.message ?? "").startsWith("unknown field crew_size")
    );
  });
  // A bank of the edited task and its world alone: the whole default bank takes seconds to build.
  const swap = (id: string, edit: (t: Task) => Task) => {
    const t = edit(content.tasks.find((t) => t.id === id) as Task);
    const b = bankFromContent({
      ...content,
      worlds: content.worlds.filter((w) => w.id === t.world),
      tasks: [t],
    });
    return { b, t: b.tasks[0] as Task };
  };

  it("holds for the task it edits, as generated", async () => {
    const p = callPremise(quoting);
    expect(p?.kind === "call" && p.message).toBeTruthy();
    expect(await premiseFindings(bank, quoting)).toEqual([]);
  });

  it("rejects a ticket whose quoted call got another error code", async () => {
    const { b, t } = swap(quoting.id, (t) => ({
      ...t,
      premises: t.premises?.map((p) => (p.kind === "call" ? { ...p, error: "gone" } : p)),
    }));
    const found = await premiseFindings(b, t);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: "call:error", task_id: t.id });
    expect(found[0]?.message).toBe(
      "the ticket says POST /v3/maintenance-orders/dispatch got error gone, the world answers validation_failed",
    );
  });

  it("rejects a ticket quoting another error message", async () => {
    const { b, t } = swap(quoting.id, (t) => ({
      ...t,
      premises: t.premises?.map((p) =>
        p.kind === "call" ? { ...p, message: "crew_size is not allowed" } : p,
      ),
    }));
    const found = await premiseFindings(b, t);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ check: "call:message" });
    expect(found[0]?.message).toMatch(
      /^the ticket quotes POST \/v3\/maintenance-orders\/dispatch's error as "crew_size is not allowed", the world says "unknown field crew_size/,
    );
  });

  it("rejects a ticket that declares an error code it does not quote, then one that does not quote the message", async () => {
    const p = callPremise(quoting);
    if (p?.kind !== "call" || p.message === undefined) throw new Error("sub13 quotes a message");
    const noCode = swap(quoting.id, (t) => ({
      ...t,
      ticket: t.ticket.replaceAll("validation_failed", "a failure"),
    }));
    const found = await premiseFindings(noCode.b, noCode.t);
    expect(found).toEqual([
      {
        task_id: quoting.id,
        check: "call:unquoted",
        message:
          "the ticket does not quote the error code validation_failed it declares for POST /v3/maintenance-orders/dispatch",
      },
    ]);
    const noMessage = swap(quoting.id, (t) => ({
      ...t,
      ticket: t.ticket.replaceAll(p.message as string, ""),
    }));
    const found2 = await premiseFindings(noMessage.b, noMessage.t);
    expect(found2).toEqual([
      {
        task_id: quoting.id,
        check: "call:unquoted",
        message:
          "the ticket does not quote the error message it declares for POST /v3/maintenance-orders/dispatch",
      },
    ]);
  });

  it("checks a quoted call sent with an expired token: the token is used up by reads first", async () => {
    const expired = (status: number) =>
      swap("harbor-telemetry-sub17", (t) => ({
        ...t,
        premises: [
          {
            kind: "call",
            method: "GET",
            url: "/v3/vessels/V-865",
            token: "expired",
            status,
            error: "token_expired",
          },
        ],
        ticket: `${t.ticket} token_expired`,
      }));
    const holds = expired(401);
    expect(await premiseFindings(holds.b, holds.t)).toEqual([]);
    const wrong = expired(200);
    const found = await premiseFindings(wrong.b, wrong.t);
    expect(found.map((f) => f.message)).toEqual([
      "the ticket says GET /v3/vessels/V-865 got 200, the world answers 401",
    ]);
  });

  it("sends a quoted call on the record a workspace variable holds ({{variable}} in its URL)", async () => {
    const t = found("quoting a call on a variable's record", (t) => {
      const p = callPremise(t);
      return p?.kind === "call" && /\{\{\w+\}\}/.test(p.url);
    });
    const p = callPremise(t);
    expect(p?.kind === "call" && p.url).toMatch(/\{\{\w+\}\}/);
    expect(await premiseFindings(bank, t)).toEqual([]);
  });

  it("leaves a GraphQL or MCP variant's quoted calls to its REST original", async () => {
    const { b, t } = swap(quoting.id, (t) => ({
      ...t,
      premises: t.premises?.map((p) => (p.kind === "call" ? { ...p, status: 418 } : p)),
    }));
    expect((await premiseFindings(b, t)).map((f) => f.check)).toEqual(["call:status"]);
    const graphql = { ...b, worlds: b.worlds.map((w) => ({ ...w, protocol: "graphql" as const })) };
    expect(await premiseFindings(graphql, t)).toEqual([]);
  });
});

describe("premises gate: the signer's nonce counter a ticket states is the world's", () => {
  const content = defaultBankContent();
  const counted = content.tasks.find((t) => t.premises?.some((p) => p.kind === "nonce_counter")) as Task;
  const premise = counted?.premises?.find((p) => p.kind === "nonce_counter") as {
    kind: "nonce_counter";
    url: string;
    stands_at: number;
  };
  const swap = (edit: (t: Task) => Task) => {
    const bank = bankFromContent({
      ...content,
      worlds: content.worlds.filter((w) => w.id === counted.world),
      tasks: [edit(counted)],
    });
    return { bank, task: bank.tasks[0] as Task };
  };

  it("holds for a signed read of the default bank: the world refuses the counter's last nonce and takes the counter", async () => {
    expect(counted).toBeDefined();
    expect(counted.ticket).toContain(`stands at ${premise.stands_at}`);
    const { bank, task } = swap((t) => t);
    expect(await premiseFindings(bank, task)).toEqual([]);
  });

  it("rejects a counter the world's key is already past (the set-up signed a higher nonce first)", async () => {
    const higher = premise.stands_at + 3;
    const { bank, task } = swap((t) => ({
      ...t,
      setup: [
        ...t.setup,
        {
          op: "execute",
          request: {
            method: "GET",
            url: premise.url,
            headers: { "X-Key-Id": "{{client_id}}", "X-Nonce": String(higher) },
            sign: { secret: "{{client_secret}}" },
          },
          capture: {},
        },
      ],
    }));
    expect((await premiseFindings(bank, task)).map((f) => f.check)).toContain("nonce_counter:next_refused");
  });

  it("rejects a counter on a route that takes no signature (a nonce below it is not refused), and one the ticket does not state", async () => {
    const unsigned = premise.url.split("/").slice(0, -1).join("/");
    const { bank, task } = swap((t) => ({
      ...t,
      premises: [{ kind: "nonce_counter", url: unsigned, stands_at: premise.stands_at }],
    }));
    expect((await premiseFindings(bank, task)).map((f) => f.check)).toContain("nonce_counter:reuse_served");
    const other = swap((t) => ({
      ...t,
      premises: [{ ...premise, stands_at: 977 }],
    }));
    expect((await premiseFindings(other.bank, other.task)).map((f) => f.check)).toContain(
      "nonce_counter:unquoted",
    );
  });
});
