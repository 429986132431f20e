import { describe, expect, it } from "vitest";
import {
  bankWith,
  CHAIN,
  idIn,
  SUB01,
  SUB03,
  selectiveChain,
  skeletonContent,
  storeUnchecked,
  taskOf,
} from "../../test/support/test-banks.js";
import { type Bank, bankFromContent } from "../bank/bank.js";
import type { GoldenStep, GraderSpec, Task } from "../bank/task-schema.js";
import { finalAssistantText } from "../grade/answer-card.js";
import { playedName, trial, worldOf } from "./certify-kit.js";
import { chainReplayFindings } from "./chain-replay.js";
import { type Exam, staleTokenSteps, triadExams, triadFindings } from "./triad.js";
import { sharedTrials, type TrialRunner } from "./trial-tree.js";

/**
 * What each sabotage of the triad plays, step for step, on edits of the skeleton's tasks. An exam's
 * `sameAs` names the steps it plays and the card it ends with (`playedName`), so the steps are
 * read there without running the exam: the triad's verdict only says the grader failed an exam,
 * which an exam that breaks more than its one step would too.
 */

function examOf(bank: Bank, id: string, name: string): Exam {
  const exam = triadExams(bank, taskOf(bank, id)).find((e) => e.name === name);
  if (!exam) throw new Error(`no exam ${name} of ${id}`);
  return exam;
}
const namesOf = (bank: Bank, id: string) => triadExams(bank, taskOf(bank, id)).map((e) => e.name);
/** The golden without the steps at `drop` (0-based). */
const without = (golden: readonly GoldenStep[], ...drop: number[]) =>
  golden.filter((_, i) => !drop.includes(i));
const grader = (t: Task, edit: (g: GraderSpec) => GraderSpec): Task => ({ ...t, grader: edit(t.grader) });

describe("the canary exam: every call that reveals the field's value is skipped, and no other", () => {
  /** The chain, segment 2 first listing the vessels (the listing its data flows also take values from). */
  const listing: GoldenStep = {
    op: "execute",
    request: { method: "GET", url: "/v3/vessels", headers: { Authorization: "Bearer {{token}}" } },
    capture: {},
  };
  const withListing = (t: Task): Task => ({
    ...t,
    golden: [...t.golden.slice(0, 4), listing, ...t.golden.slice(4)],
  });
  // 0 mint, 1 GET V-204 (firmware, channel), 2 read_spec, 3 mint, 4 GET /v3/vessels, 5 GET V-311
  // (berth, port), 6 mint, 7 GET V-204 (firmware), 8 POST order, 9 store, 10 GET order, 11 answer.

  it("the listing goes with the fields whose data flow also takes the value from it, and only with those", () => {
    const bank = bankWith(CHAIN, withListing);
    const g = taskOf(bank, CHAIN).golden;
    const played = (field: string) => examOf(bank, CHAIN, `sabotage:canary_without_call:${field}`).sameAs;
    // firmware_build: both reads of V-204 (the same request in segments 1 and 3) and the listing.
    expect(played("firmware_build")).toBe(playedName(without(g, 1, 4, 7), "expected card"));
    expect(played("firmware_channel")).toBe(playedName(without(g, 1, 7), "expected card"));
    expect(played("berth")).toBe(playedName(without(g, 4, 5), "expected card"));
    // No data flow grades last_port_call: the berth's other source is not its.
    expect(played("last_port_call")).toBe(playedName(without(g, 5), "expected card"));
    // The order's data flow names no other source: only the calls that capture it go.
    expect(played("order_id")).toBe(playedName(without(g, 8, 10), "expected card"));
    expect(played("status")).toBe(playedName(without(g, 10), "expected card"));
  });

  it("a data flow of another segment naming the same field does not widen the field's exam", () => {
    const bank = bankWith(CHAIN, (t) =>
      grader(t, (gr) => ({
        ...gr,
        g1: gr.g1.map((p) =>
          p.id === "firmware_carried_into_order" && p.kind === "data_flow"
            ? {
                ...p,
                answer_field: "firmware_build",
                also_from: [
                  { url_pattern: "^/v3/maintenance-orders/", status: 200, body_key: "firmware_build" },
                ],
              }
            : p,
        ),
      })),
    );
    const g = taskOf(bank, CHAIN).golden;
    expect(examOf(bank, CHAIN, "sabotage:canary_without_call:firmware_build").sameAs).toBe(
      playedName(without(g, 1, 6), "expected card"),
    );
  });

  it("the same REST call is the same method and URL, whatever its headers; another method is another call", () => {
    // Segment 3 mints its own token: its read of V-204 sends another header, yet reveals the firmware.
    const bank = bankWith(CHAIN, (t) => ({
      ...t,
      golden: t.golden.map((s, i) => {
        if (i < 5 || s.op !== "execute") return s;
        const headers = Object.fromEntries(
          Object.entries(s.request.headers ?? {}).map(([k, v]) => [k, v.replace("{{token}}", "{{token3}}")]),
        );
        return {
          ...s,
          request: { ...s.request, headers },
          capture: i === 5 ? { token3: "access_token" } : s.capture,
        };
      }),
    }));
    const g = taskOf(bank, CHAIN).golden;
    // Segment 3's read captures the firmware only, yet it reveals the channel as well.
    expect(examOf(bank, CHAIN, "sabotage:canary_without_call:firmware_channel").sameAs).toBe(
      playedName(without(g, 1, 6), "expected card"),
    );
    // A look at the open orders before the create: the same URL, another method, reveals nothing.
    const look: GoldenStep = {
      op: "execute",
      request: { method: "GET", url: "/v3/maintenance-orders" },
      capture: {},
    };
    const sub03 = bankWith(SUB03, (t) => ({
      ...t,
      golden: [...t.golden.slice(0, 2), look, ...t.golden.slice(2)],
    }));
    const g3 = taskOf(sub03, SUB03).golden;
    expect(examOf(sub03, SUB03, "sabotage:canary_without_call:order_id").sameAs).toBe(
      playedName(without(g3, 3, 5), "expected card"),
    );
  });

  it("an MCP golden step no REST route stands for is kept, not a crash", () => {
    const stray: GoldenStep = {
      op: "execute_native",
      request: { protocol: "mcp", tool: "no_such_tool", arguments: {} },
      capture: {},
    };
    const bank = bankWith(SUB01, (t) => ({ ...t, golden: [stray, ...t.golden] }), "mcp");
    const id = idIn("mcp", SUB01);
    const g = taskOf(bank, id).golden;
    expect(examOf(bank, id, "sabotage:canary_without_call:firmware_build").sameAs).toBe(
      playedName(without(g, 2), "expected card"),
    );
  });
});

describe("the store sabotage of a selective chain: only a store something graded reads", () => {
  const STORE = "sabotage:store_skipped@9";
  const selective = (edit: (g: GraderSpec) => GraderSpec) => (t: Task) => grader(selectiveChain(t), edit);
  const noStoreChecks = (g: GraderSpec): GraderSpec => ({
    ...g,
    g1: g.g1
      .filter((p) => p.kind !== "workspace_value")
      .map((p) => (p.kind === "data_flow" ? { ...p, must_be_stored: false } : p)),
  });

  it("a graded data flow that must be stored keeps it; one of an ungraded segment does not", () => {
    const storedFlow = (id: string) => (g: GraderSpec) => ({
      ...g,
      g1: noStoreChecks(g).g1.map((p) =>
        p.id === id && p.kind === "data_flow" ? { ...p, must_be_stored: true } : p,
      ),
    });
    expect(namesOf(bankWith(CHAIN, selective(storedFlow("order_id_stored_and_reused"))), CHAIN)).toContain(
      STORE,
    );
    // berth_from_v3 is segment 2's, which the selective chain does not grade.
    expect(namesOf(bankWith(CHAIN, selective(storedFlow("berth_from_v3"))), CHAIN)).not.toContain(STORE);
  });

  it("a graded workspace value of the stored name keeps it; another name's, or an ungraded segment's, does not", () => {
    const checked = (edit: (p: GraderSpec["g1"][number]) => GraderSpec["g1"][number]) => (g: GraderSpec) => ({
      ...noStoreChecks(g),
      g1: [...noStoreChecks(g).g1, ...g.g1.filter((p) => p.kind === "workspace_value").map(edit)],
    });
    expect(namesOf(bankWith(CHAIN, selective(checked((p) => p))), CHAIN)).toContain(STORE);
    expect(
      namesOf(bankWith(CHAIN, selective(checked((p) => ({ ...p, name: "another_variable" })))), CHAIN),
    ).not.toContain(STORE);
    expect(namesOf(bankWith(CHAIN, selective(checked((p) => ({ ...p, segment: 2 })))), CHAIN)).not.toContain(
      STORE,
    );
  });

  it("a solo task is never selective: its store stays load-bearing whatever its grader's chain mode", () => {
    const bank = bankWith(SUB03, (t) =>
      grader(storeUnchecked(t), (g) => ({ ...g, chain_mode: "selective" })),
    );
    expect(namesOf(bank, SUB03)).toContain("sabotage:store_skipped@4");
  });
});

describe("the stale-token exam", () => {
  const bank = bankFromContent(skeletonContent());

  it("is left out when the vault holds no stale token", () => {
    const noStale = bankWith(SUB01, (t) => ({
      ...t,
      workspace: { ...t.workspace, vault: { client_id: "cid", client_secret: "csec" } },
    }));
    expect(namesOf(noStale, SUB01)).not.toContain("sabotage:stale_token");
    expect(namesOf(bank, SUB01)).toContain("sabotage:stale_token");
  });

  it("finds the stale token among vault values that are not strings", () => {
    const task = taskOf(bank, SUB01);
    const mixed = {
      ...task,
      workspace: { ...task.workspace, vault: { retries: 3, ...task.workspace.vault } },
    };
    expect(staleTokenSteps(mixed, worldOf(bank, task))).toEqual(staleTokenSteps(task, worldOf(bank, task)));
    expect(staleTokenSteps(mixed, worldOf(bank, task))).not.toBeNull();
  });
});

describe("the blank exam and the sharing of exams with the chain gate", () => {
  const bank = bankFromContent(skeletonContent());

  it("the blank exam makes no call and says nothing", async () => {
    const blank = examOf(bank, SUB01, "blank");
    const r = await trial(bank, taskOf(bank, SUB01), blank.agent);
    expect(r.agent).toBe("blank");
    expect(r.events.filter((e) => e.type === "exchange")).toEqual([]);
    expect(finalAssistantText(r.messages)).toBe("");
    expect(r.grade.passed).toBe(false);
  });

  it("a decoy sabotage is run once for the triad and the chain gate: the chain's decoy replays get the triad's trials", async () => {
    const shared = sharedTrials(bank);
    const runs: Array<[string, string]> = [];
    const runner: TrialRunner = {
      async run(task, agent, epoch, options) {
        const r = await shared.run(task, agent, epoch, options);
        runs.push([agent.name, r.agent]);
        return r;
      },
      release: (t) => shared.release(t),
    };
    const chain = taskOf(bank, CHAIN);
    expect(await triadFindings(bank, chain, runner)).toEqual([]);
    runs.length = 0;
    expect((await chainReplayFindings(bank, chain, runner)).failures).toEqual([]);
    expect(runs).toEqual([
      ["golden", "golden"],
      ["replay-skip_segment:1", "replay-skip_segment:1"],
      ["replay-skip_segment:2", "replay-skip_segment:2"],
      ["replay-wrong_segment_value:3", "replay-wrong_segment_value:3"],
      ["replay-decoy@2", "sabotage-decoy_route@2"],
      ["replay-decoy@5", "sabotage-decoy_route@5"],
      ["replay-decoy@7", "sabotage-decoy_route@7"],
    ]);
  });
});
