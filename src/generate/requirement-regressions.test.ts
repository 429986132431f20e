import { describe, expect, it } from "vitest";
import { SCRIPTED_AGENTS } from "../agents/scripted-agents.js";
import { bankFromContent } from "../bank/bank.js";
import type { JsonObject } from "../bank/json.js";
import type { GoldenStep, Task } from "../bank/task-schema.js";
import { runTrial } from "../run/run-trial.js";
import { defaultBankContent } from "./default-bank.js";

/**
 * Issue 15's three cases, each built from the behaviour (a solo task of the default bank whose
 * golden does the thing, edited the way the exploratory trials broke or varied it), never from a
 * task id: another valid status written; a sibling deleted instead of the named record; an async
 * job submitted twice with only the second confirmed.
 */
const bank = bankFromContent(defaultBankContent());
const GOLDEN = SCRIPTED_AGENTS.golden;
if (!GOLDEN) throw new Error("no golden agent");
const golden = GOLDEN;

type Execute = Extract<GoldenStep, { op: "execute" }>;
const isExecute = (s: GoldenStep): s is Execute => s.op === "execute";

/** The first solo task whose golden has a step the predicate picks. */
function soloWith(pick: (step: Execute, task: Task) => boolean): Task {
  const task = bank.tasks.find((t) => t.kind === "solo" && t.golden.some((s) => isExecute(s) && pick(s, t)));
  if (!task) throw new Error("no task of the default bank shows this behaviour");
  return task;
}

const trial = (task: Task) => runTrial({ bank, task, agent: golden, epoch: 1 });

describe("issue 15: the graders hold the ticket", () => {
  it("(a) a multistep PATCH moving the record to another valid status than the ticket's fails", async () => {
    // A multistep update of the record the task itself created (`{{pN_wid}}`) to a status.
    const task = soloWith(
      (s, t) =>
        t.axes.includes("multistep") &&
        (s.request.method === "PATCH" || s.request.method === "PUT") &&
        /\{\{p\d+_wid\}\}$/.test(s.request.url) &&
        typeof (s.request.body as JsonObject | undefined)?.status === "string",
    );
    const write = task.golden.find(
      (s): s is Execute =>
        isExecute(s) && typeof (s.request.body as JsonObject | undefined)?.status === "string",
    ) as Execute;
    const asked = (write.request.body as JsonObject).status as string;
    // Another status this world's records take (the goldens of the storyline write them).
    const statuses = new Set(
      [...task.setup, ...task.golden].flatMap((s) =>
        isExecute(s) && typeof (s.request.body as JsonObject | undefined)?.status === "string"
          ? [(s.request.body as JsonObject).status as string]
          : [],
      ),
    );
    statuses.delete(asked);
    const other = [...statuses][0] ?? "approved";
    const mutated: Task = {
      ...task,
      golden: task.golden.map((s) =>
        s === write
          ? {
              ...write,
              request: { ...write.request, body: { ...(write.request.body as JsonObject), status: other } },
            }
          : s,
      ),
    };
    expect((await trial(task)).grade.passed).toBe(true);
    const r = await trial(mutated);
    expect(r.grade.passed).toBe(false);
    const failed = r.grade.g1.filter((g) => !g.passed);
    expect(failed.map((g) => g.id)).toEqual(expect.arrayContaining(["status_moved", "status_final"]));
    // The reason names the requirement broken and the record meant.
    expect(r.grade.failure_reason).toContain("(requirement status_written: “");
    expect(failed.find((g) => g.id === "status_final")?.reason).toMatch(
      /^the .* opened for .* ends with status/,
    );
  }, 120_000);

  it("(b) deleting a sibling record instead of the named one, and leaving the named one, fails", async () => {
    // A statefulness delete of the record a variable names, with the read-back that proves it gone.
    const task = soloWith((s, t) => t.axes.includes("statefulness") && s.request.method === "DELETE");
    const named = (task.golden.find((s) => isExecute(s) && s.request.method === "DELETE") as Execute).request
      .url;
    const ok = await trial(task);
    expect(ok.grade.passed).toBe(true);
    // A sibling: a record of the same collection that was there before the trial and is still there.
    const collection = named.slice(0, named.lastIndexOf("/"));
    const resource = Object.keys(ok.final_records ?? {}).find((r) => collection.endsWith(`/${r}`)) as string;
    const minted = new Set(
      ok.events.flatMap((e) =>
        e.type === "exchange" && e.status === 201 ? [JSON.stringify(e.response_body)] : [],
      ),
    );
    const idField = Object.keys((ok.final_records?.[resource] ?? [])[0] ?? {}).find(
      (k) => k.endsWith("_id") && !k.startsWith(collection),
    ) as string;
    const sibling = (ok.final_records?.[resource] ?? []).find(
      (rec) => ![...minted].some((body) => body.includes(String(rec[idField]))) && /_id$/.test(idField),
    );
    expect(sibling, "a sibling record to delete").toBeDefined();
    const siblingUrl = `${collection}/${String(sibling?.[idField])}`;
    const mutated: Task = {
      ...task,
      golden: task.golden.map((s, i) => {
        if (!isExecute(s) || s.request.url !== named) return s;
        // The first read (the value to carry over) stays on the named record; the delete and its
        // read-back go to the sibling.
        const firstRead = task.golden.findIndex((x) => isExecute(x) && x.request.url === named);
        return i === firstRead ? s : { ...s, request: { ...s.request, url: siblingUrl } };
      }),
    };
    const r = await trial(mutated);
    expect(r.grade.passed).toBe(false);
    const failed = r.grade.g1.filter((g) => !g.passed);
    expect(failed.map((g) => g.id)).toEqual(
      expect.arrayContaining(["superseded_deleted", "superseded_absent"]),
    );
    expect(r.grade.failure_reason).toContain("(requirement superseded_gone: “");
    expect(failed.find((g) => g.id === "superseded_absent")?.reason).toMatch(
      /still there at the end of the trial$/,
    );
  }, 120_000);

  it("(c) submitting an async job twice and confirming only the second passes G2: the id is the confirmed run's", async () => {
    const task = soloWith((s) => s.request.method === "POST" && /\/async$/.test(s.request.url));
    const submit = task.golden.findIndex((s) => isExecute(s) && /\/async$/.test(s.request.url));
    // The job is submitted twice (the second binding wins): the first job is abandoned.
    const mutated: Task = {
      ...task,
      golden: [...task.golden.slice(0, submit + 1), ...task.golden.slice(submit)],
    };
    const r = await trial(mutated);
    const submits = r.events.filter(
      (e) => e.type === "exchange" && /\/async$/.test(e.url) && e.status === 202,
    );
    expect(submits).toHaveLength(2);
    expect(r.grade.g2_passed, r.grade.failure_reason).toBe(true);
    expect(r.grade.passed, r.grade.failure_reason).toBe(true);
  }, 120_000);
});
