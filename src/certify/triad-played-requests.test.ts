import { describe, expect, it } from "vitest";
import { bankWith, CHAIN, taskOf } from "../../test/support/test-banks.js";
import { trialLog } from "../../test/support/trial-log.js";
import type { GoldenStep } from "../bank/task-schema.js";
import type { ExchangeEvent } from "../world/event-log.js";
import { playedName } from "./certify-kit.js";
import { triadExams } from "./triad.js";

/**
 * Issue 21 (mutation testing, certify-triad): the canary exam leaves out every golden step that
 * sent the revealing request in the answer key's trial (`played`), matched by method and URL, even
 * when the steps are written apart; a step with no played exchange is matched only as written.
 * The exam's steps are read from its `sameAs` (see triad-exam-steps.test.ts).
 */
const bank = bankWith(CHAIN, (t) => t);
const task = taskOf(bank, CHAIN);
const golden = task.golden;
// 0 mint, 1 GET V-204 (firmware, channel), 2 read_spec, 3 mint, 4 GET V-311 (berth, port), 5 mint,
// 6 GET V-204 (firmware), 7 POST order, 8 store, 9 GET order, 10 answer.

/** One exchange the trial sent (what it got back does not matter here). */
const exchange = (method: string, url: string) =>
  trialLog().call(method, url, 200).events()[0] as ExchangeEvent;

/** What each send step sent as written (`{{order}}` as the trial's id); `edits` replace some. */
const played = (edits: Record<number, ExchangeEvent | undefined> = {}) =>
  golden.map((s, i) => {
    if (i in edits) return edits[i];
    if (s.op !== "execute") return undefined;
    return exchange(s.request.method, s.request.url.replace("{{order}}", "MO-1"));
  });

const berthExam = (p: ReadonlyArray<ExchangeEvent | undefined> | undefined) =>
  triadExams(bank, task, undefined, p).find((e) => e.name === "sabotage:canary_without_call:berth")?.sameAs;
const without = (...drop: number[]) =>
  playedName(
    golden.filter((_: GoldenStep, i) => !drop.includes(i)),
    "expected card",
  );

describe("the canary exam leaves out the steps that sent the revealing request", () => {
  it("a step written apart that sent the same method and URL goes too", () => {
    expect(berthExam(played({ 6: exchange("GET", "/v3/vessels/V-311") }))).toBe(without(4, 6));
  });

  it("not one that sent another method or another URL", () => {
    expect(berthExam(played({ 6: exchange("POST", "/v3/vessels/V-311") }))).toBe(without(4));
    expect(berthExam(played({ 6: exchange("GET", "/v3/vessels/V-312") }))).toBe(without(4));
  });

  it("a step with no played exchange (or a capture without one) is matched only as written", () => {
    expect(berthExam(played({ 4: undefined, 6: exchange("GET", "/v3/vessels/V-311") }))).toBe(without(4));
    expect(berthExam(played({ 6: undefined }))).toBe(without(4));
    expect(berthExam(undefined)).toBe(without(4));
    expect(berthExam([])).toBe(without(4));
  });
});
