import { describe, expect, it } from "vitest";
import { defaultBank, type Execute, isExecute } from "../../../test/support/default-bank-replay.js";
import type { Bank } from "../../bank/bank.js";
import type { JsonValue } from "../../bank/json.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";
import { playAndAnswer, scripted, trial } from "../../certify/certify-kit.js";
import type { ExchangeEvent } from "../../world/event-log.js";

/**
 * Issue 16: a category scan ("the highest <number field> among <category>") must page the listing.
 * The category registry answers a whole category in one call, so its rows leave the number field
 * out: ranked off the registry, the shortcut names the wrong record and fails. Control: the same
 * shortcut on a world whose registry shows the field passes (the shortcut the registry gave before).
 */
const scans = defaultBank.tasks.filter(
  (t) =>
    t.kind === "solo" &&
    t.axes[0] === "pagination" &&
    t.grader.g1.some((p) => p.kind === "covered") &&
    /whose `[a-z_]+` is `/.test(t.ticket),
);
const task = scans[0] as Task;
const world = defaultBank.worlds.find((w) => w.id === task?.world);
const registry = world?.routes.find((r) => /\/(registry|catalog)\//.test(r.path));
const filter = registry?.query_params?.find((q) => q.required)?.name as string;
const category = /whose `[a-z_]+` is `([^`]+)`/.exec(task?.ticket ?? "")?.[1] as string;
const numberField = /(highest|lowest) `([a-z_]+)`/.exec(task?.ticket ?? "");

/** The registry read of the category, the top row by the number field as shown, its record read, and the card. */
async function shortcut(bank: Bank): Promise<{ rows: JsonValue[]; passed: boolean; calls: number }> {
  const mint = task.golden.find((s) => isExecute(s) && s.request.method === "POST") as Execute;
  // The golden's own record read and card, aimed at the row the registry ranks first.
  const recordRead = task.golden.find(
    (s) =>
      isExecute(s) &&
      s.request.method === "GET" &&
      !s.request.url.includes("?") &&
      Object.keys(s.capture).length > 0,
  ) as Execute;
  const auth = recordRead.request.headers ?? {};
  const url = `${registry?.path}?${filter}=${encodeURIComponent(category)}`;
  const read: GoldenStep = { op: "execute", request: { method: "GET", url, headers: auth }, capture: {} };
  const probe = await trial(
    bank,
    task,
    scripted(bank, "registry-probe", async (s) => {
      await playAndAnswer(s, task, [mint, read]);
    }),
  );
  const body = (
    probe.events.find((e) => e.type === "exchange" && e.url.startsWith(registry?.path ?? "-")) as
      | ExchangeEvent
      | undefined
  )?.response_body as Record<string, JsonValue[]> | undefined;
  const key = registry?.resource ?? "";
  const rows = body?.[key] ?? [];
  const [, dir, field] = numberField ?? [];
  const value = (r: JsonValue) => Number((r as Record<string, JsonValue>)[field as string] ?? Number.NaN);
  let top = 0;
  rows.forEach((r, i) => {
    const v = value(r);
    const best = value(rows[top] as JsonValue);
    if (!Number.isNaN(v) && (Number.isNaN(best) || (dir === "highest" ? v > best : v < best))) top = i;
  });
  const idRef = /\{\{([a-z0-9_]+)\}\}/.exec(recordRead.request.url)?.[1] as string;
  const ranked: GoldenStep = { ...read, capture: { [idRef]: `${key}.${top}.${idKeyOf(task)}` } };
  const steps = [mint, ranked, recordRead];
  const r = await trial(
    bank,
    task,
    scripted(bank, "registry-shortcut", async (s) => {
      await playAndAnswer(s, task, steps);
    }),
  );
  const calls = r.events.filter((e) => e.type === "exchange").length;
  return { rows, passed: r.grade.passed, calls };
}

/** The asset id field the scan's listing rows carry (the covered predicate's body key). */
function idKeyOf(t: Task): string {
  const covered = t.grader.g1.find((p) => p.kind === "covered");
  return covered?.kind === "covered" ? (covered.body_key.split(".")[1] as string) : "";
}

describe("a category scan cannot be answered from the category registry in one call", () => {
  it("the default bank has a category scan, and its world a registry filtered by category", () => {
    expect(task).toBeDefined();
    expect(registry?.view.omit_fields).toContain(numberField?.[2]);
    expect(category).toBeTruthy();
  });

  it("the registry's rows leave the ranked field out, and the shortcut ranked off them fails", async () => {
    const { rows, passed, calls } = await shortcut(defaultBank);
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows) expect(r).not.toHaveProperty(numberField?.[2] as string);
    expect(calls).toBeLessThanOrEqual(4);
    expect(passed).toBe(false);
  }, 120_000);

  it("control: on a world whose registry shows the field, the same shortcut passes", async () => {
    const shown: Bank = {
      ...defaultBank,
      worlds: defaultBank.worlds.map((w) =>
        w.id !== world?.id
          ? w
          : {
              ...w,
              routes: w.routes.map((r) =>
                r === registry ? { ...r, view: { ...r.view, omit_fields: [] } } : r,
              ),
            },
      ),
    };
    const { rows, passed } = await shortcut(shown);
    expect(
      rows.every((r) => typeof (r as Record<string, JsonValue>)[numberField?.[2] as string] === "number"),
    ).toBe(true);
    expect(passed).toBe(true);
  }, 120_000);
});
