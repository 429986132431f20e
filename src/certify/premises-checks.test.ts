import { describe, expect, it } from "vitest";
import { bankWith, SUB01, SUB02, skeletonContent, taskOf } from "../../test/support/test-banks.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { Premise } from "../bank/premise-schema.js";
import type { Task } from "../bank/task-schema.js";
import { premiseFindings } from "./premises.js";

/**
 * The premises gate's checks, one claim built to fail each, on the skeleton's harbour world (a
 * second or so per test): premises.test.ts checks the same gate on the default bank, whose build
 * takes too long to run for every mutant of `npm run mutate certify-premises`.
 */

const V204 = "/v3/vessels/V-204";
/** What the harbour world answers a stale token (sub01's ticket quotes it). */
const STALE = { code: "invalid_token", message: "the bearer token is expired or was never issued" };

/** sub01 of the skeleton with these premises (and the ticket quoting what `quote` adds). */
function sub01With(premises: Premise[], quote = ""): { bank: Bank; task: Task } {
  const bank = bankWith(SUB01, (t) => ({ ...t, premises, ticket: `${t.ticket} ${quote}` }));
  return { bank, task: taskOf(bank, SUB01) };
}

const get = (url: string, token: "stale" | "fresh" | "expired", rest: Partial<Premise> = {}): Premise =>
  ({ kind: "call", method: "GET", url, token, status: 200, ...rest }) as Premise;

describe("premises gate on the harbour world: the skeleton's own premises hold", () => {
  it("sub01 (a stale token's 401 quoted with its code and wording) and sub02 (a decoy's 200)", async () => {
    const bank = bankFromContent(skeletonContent());
    expect(taskOf(bank, SUB01).premises?.length).toBeGreaterThan(0);
    expect(await premiseFindings(bank, taskOf(bank, SUB01))).toEqual([]);
    expect(await premiseFindings(bank, taskOf(bank, SUB02))).toEqual([]);
  });

  it("a task declaring no premise has no finding, even where the ticket claims things", async () => {
    const { bank, task } = sub01With([]);
    expect(await premiseFindings(bank, task)).toEqual([]);
  });
});

describe("premises gate: each check of a quoted call, on the harbour world", () => {
  it("call:status names the status claimed and the one the world answers", async () => {
    const { bank, task } = sub01With([
      get(V204, "stale", { status: 418, error: STALE.code, message: STALE.message } as Partial<Premise>),
    ]);
    expect(await premiseFindings(bank, task)).toEqual([
      {
        task_id: SUB01,
        check: "call:status",
        message: "the ticket says GET /v3/vessels/V-204 got 418, the world answers 401",
      },
    ]);
  });

  it("call:error names the code claimed and the one the world answers", async () => {
    const { bank, task } = sub01With(
      [get(V204, "stale", { status: 401, error: "gone", message: STALE.message } as Partial<Premise>)],
      "gone",
    );
    expect(await premiseFindings(bank, task)).toEqual([
      {
        task_id: SUB01,
        check: "call:error",
        message: "the ticket says GET /v3/vessels/V-204 got error gone, the world answers invalid_token",
      },
    ]);
  });

  it("call:error says `no error` when the world answers the call without one", async () => {
    const { bank, task } = sub01With([get(V204, "fresh", { error: "gone" } as Partial<Premise>)], "gone");
    expect((await premiseFindings(bank, task)).map((f) => f.message)).toEqual([
      "the ticket says GET /v3/vessels/V-204 got error gone, the world answers no error",
    ]);
  });

  it("call:message quotes the wording claimed and the world's", async () => {
    const { bank, task } = sub01With(
      [get(V204, "stale", { status: 401, error: STALE.code, message: "token revoked" } as Partial<Premise>)],
      "token revoked",
    );
    expect(await premiseFindings(bank, task)).toEqual([
      {
        task_id: SUB01,
        check: "call:message",
        message: `the ticket quotes GET /v3/vessels/V-204's error as "token revoked", the world says "${STALE.message}"`,
      },
    ]);
  });

  it("a message claimed alone (no code) is checked too", async () => {
    const holds = sub01With([
      get(V204, "stale", { status: 401, message: STALE.message } as Partial<Premise>),
    ]);
    expect(await premiseFindings(holds.bank, holds.task)).toEqual([]);
    const wrong = sub01With(
      [get(V204, "stale", { status: 401, message: "token revoked" } as Partial<Premise>)],
      "token revoked",
    );
    expect((await premiseFindings(wrong.bank, wrong.task)).map((f) => f.check)).toEqual(["call:message"]);
  });

  it("call:unquoted: a code the ticket does not quote, then a message it does not quote", async () => {
    const claim = get(V204, "stale", {
      status: 401,
      error: STALE.code,
      message: STALE.message,
    } as Partial<Premise>);
    const unquote = (words: string) => {
      const bank = bankWith(SUB01, (t) => ({
        ...t,
        premises: [claim],
        ticket: t.ticket.replaceAll(words, ""),
      }));
      return premiseFindings(bank, taskOf(bank, SUB01));
    };
    expect(await unquote(STALE.code)).toEqual([
      {
        task_id: SUB01,
        check: "call:unquoted",
        message:
          "the ticket does not quote the error code invalid_token it declares for GET /v3/vessels/V-204",
      },
    ]);
    expect(await unquote(STALE.message)).toEqual([
      {
        task_id: SUB01,
        check: "call:unquoted",
        message: "the ticket does not quote the error message it declares for GET /v3/vessels/V-204",
      },
    ]);
  });

  it("every premise is checked, each failing on its own", async () => {
    const { bank, task } = sub01With([
      get(V204, "stale", { status: 418 } as Partial<Premise>),
      get("/v3/vessels/V-311", "fresh", { status: 404 } as Partial<Premise>),
    ]);
    expect((await premiseFindings(bank, task)).map((f) => f.message)).toEqual([
      "the ticket says GET /v3/vessels/V-204 got 418, the world answers 401",
      "the ticket says GET /v3/vessels/V-311 got 404, the world answers 200",
    ]);
  });
});

describe("premises gate: the quoted call is sent as the ticket says it went out", () => {
  it("with the vault's stale token, a freshly minted one, or one spent to its call TTL", async () => {
    const answers = async (token: "stale" | "fresh" | "expired") => {
      const { bank, task } = sub01With(
        [get(V204, token, { status: 0, error: "x" } as Partial<Premise>)],
        "x",
      );
      return (await premiseFindings(bank, task)).map((f) => f.message);
    };
    expect(await answers("stale")).toEqual([
      "the ticket says GET /v3/vessels/V-204 got 0, the world answers 401",
    ]);
    expect(await answers("fresh")).toEqual([
      "the ticket says GET /v3/vessels/V-204 got 0, the world answers 200",
    ]);
    expect(await answers("expired")).toEqual([
      "the ticket says GET /v3/vessels/V-204 got 0, the world answers 401",
    ]);
    // Stale and expired are told apart by the world's code.
    const expired = sub01With([
      get(V204, "expired", { status: 401, error: "invalid_token" } as Partial<Premise>),
    ]);
    expect((await premiseFindings(expired.bank, expired.task)).map((f) => f.message)).toEqual([
      "the ticket says GET /v3/vessels/V-204 got error invalid_token, the world answers token_expired",
    ]);
  });

  it("with no token at all when the vault holds no stale one and the ticket says stale", async () => {
    const bank = bankWith(SUB01, (t) => ({
      ...t,
      premises: [get(V204, "stale", { status: 401 } as Partial<Premise>)],
      workspace: { ...t.workspace, vault: { client_id: "cid_harbor_17", client_secret: "csec_4e9a2b71" } },
    }));
    const found = await premiseFindings(bank, taskOf(bank, SUB01));
    expect(found).toEqual([]);
  });

  it("with its body: the create the ticket quotes is validated as sent", async () => {
    const post = (body: Record<string, string>, status: number): Premise => ({
      kind: "call",
      method: "POST",
      url: "/v3/maintenance-orders",
      body,
      token: "fresh",
      status,
    });
    const full = { vessel_id: "V-204", priority: "high", firmware_build: "fw-1" };
    const ok = sub01With([post(full, 201)]);
    expect(await premiseFindings(ok.bank, ok.task)).toEqual([]);
    const missing = sub01With([post({ vessel_id: "V-204" }, 201)]);
    expect((await premiseFindings(missing.bank, missing.task)).map((f) => f.message)).toEqual([
      "the ticket says POST /v3/maintenance-orders got 201, the world answers 422",
    ]);
  });

  it("on the record a workspace variable holds: vault first, then local, then global", async () => {
    const on = (
      vault: Record<string, string>,
      local: Record<string, string>,
      global: Record<string, string>,
    ) => {
      const bank = bankWith(SUB01, (t) => ({
        ...t,
        premises: [get("/v3/vessels/{{vessel}}", "fresh", { status: 200 } as Partial<Premise>)],
        workspace: { vault: { ...t.workspace.vault, ...vault }, local, global },
      }));
      return premiseFindings(bank, taskOf(bank, SUB01)).then((f) => f.map((x) => x.message));
    };
    expect(await on({ vessel: "V-204" }, { vessel: "V-000" }, { vessel: "V-000" })).toEqual([]);
    expect(await on({}, { vessel: "V-204" }, { vessel: "V-000" })).toEqual([]);
    expect(await on({}, {}, { vessel: "V-204" })).toEqual([]);
    expect(await on({}, { vessel: "V-000" }, { vessel: "V-204" })).toEqual([
      "the ticket says GET /v3/vessels/{{vessel}} got 200, the world answers 404",
    ]);
    // A variable no scope holds stays as written: no such record.
    expect(await on({}, {}, {})).toEqual([
      "the ticket says GET /v3/vessels/{{vessel}} got 200, the world answers 404",
    ]);
  });
});

describe("premises gate: what the ticket says the spec documents", () => {
  const specClaim = (fields: string[], path = "/v3/maintenance-orders"): Premise => ({
    kind: "spec_body",
    method: "POST",
    path,
    fields,
  });

  it("holds for documented fields of a documented route", async () => {
    const { bank, task } = sub01With([specClaim(["vessel_id", "priority"])]);
    expect(await premiseFindings(bank, task)).toEqual([]);
  });

  it("spec_body:undocumented_field names every field the spec's body lacks", async () => {
    const { bank, task } = sub01With([specClaim(["vessel_id", "crew_size", "berth"])]);
    expect(await premiseFindings(bank, task)).toEqual([
      {
        task_id: SUB01,
        check: "spec_body:undocumented_field",
        message:
          "the ticket says the spec documents `crew_size`, `berth` in the body of POST /v3/maintenance-orders, but the spec's body has no such field",
      },
    ]);
  });

  it("spec_body:no_route names a route the spec does not document, and goes on to the next premise", async () => {
    const { bank, task } = sub01With([specClaim(["x"], "/v9/nowhere"), specClaim(["crew_size"])]);
    expect(await premiseFindings(bank, task)).toEqual([
      {
        task_id: SUB01,
        check: "spec_body:no_route",
        message: "the ticket names POST /v9/nowhere, which the spec does not document",
      },
      expect.objectContaining({ check: "spec_body:undocumented_field" }),
    ]);
  });

  it("spec_body:refused: the route's documented body is one its live validator refuses (a spec lagging it)", async () => {
    const content = skeletonContent();
    const lagging = bankFromContent({
      ...content,
      worlds: content.worlds.map((w) => ({
        ...w,
        routes: w.routes.map((r) =>
          r.method === "POST"
            ? {
                ...r,
                validator: {
                  fields: { vesselId: { type: "string" as const, required: true } },
                  spec_lag: true,
                },
              }
            : r,
        ),
      })),
      tasks: content.tasks.map((t) => (t.id === SUB01 ? { ...t, premises: [specClaim(["vessel_id"])] } : t)),
    });
    expect(await premiseFindings(lagging, taskOf(lagging, SUB01))).toEqual([
      {
        task_id: SUB01,
        check: "spec_body:refused",
        message:
          "POST /v3/maintenance-orders: the body the spec documents is refused by the live validator: vessel_id wrong_name, vesselId missing",
      },
    ]);
    // A claim on a route the validator does not guard is not refused for it.
    const other = bankFromContent({
      ...content,
      worlds: lagging.worlds,
      tasks: content.tasks.map((t) =>
        t.id === SUB01
          ? {
              ...t,
              premises: [{ kind: "spec_body" as const, method: "GET", path: "/v3/vessels", fields: ["x"] }],
            }
          : t,
      ),
    });
    expect((await premiseFindings(other, taskOf(other, SUB01))).map((f) => f.check)).not.toContain(
      "spec_body:refused",
    );
  });
});

describe("premises gate: a GraphQL or MCP variant", () => {
  it("leaves its quoted calls and spec claims to its REST original", async () => {
    const { bank, task } = sub01With([
      get(V204, "stale", { status: 418 } as Partial<Premise>),
      { kind: "spec_body", method: "POST", path: "/v9/nowhere", fields: ["x"] },
    ]);
    expect((await premiseFindings(bank, task)).map((f) => f.check)).toEqual([
      "call:status",
      "spec_body:no_route",
    ]);
    for (const protocol of ["graphql", "mcp"] as const) {
      const variant = { ...bank, worlds: bank.worlds.map((w) => ({ ...w, protocol })) };
      expect(await premiseFindings(variant, task)).toEqual([]);
    }
  });
});
