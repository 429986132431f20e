import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import type { GoldenStep, Task } from "../../bank/task-schema.js";
import { axisNecessityFindings } from "../../certify/axis-necessity.js";
import { certifyBank } from "../../certify/certify-bank.js";
import { GATE_NAMES } from "../../certify/certify-schema.js";
import { solvabilityFindings } from "../../certify/solvability.js";
import { sharedTrials } from "../../certify/trial-tree.js";
import { inProcessTransport } from "../../world/transport.js";
import { TrialWorld } from "../../world/trial-world.js";
import { wireRequest } from "../../world/versioning.js";
import { defaultBankContent } from "../default-bank.js";

/**
 * Issue 16, decoys listed first: a search world ranks near namesakes ahead of the exact match, so
 * an agent that takes the first match reads the wrong record. Tasks found by property: a solo
 * golden that takes an id from a search route's results beyond the first.
 */
const content = defaultBankContent();
const bank = bankFromContent(content);
type Execute = Extract<GoldenStep, { op: "execute" }>;
const searchStep = (t: Task) =>
  t.golden.find((s): s is Execute => s.op === "execute" && s.request.url.includes("/search/"));
const listedAt = (s: Execute) =>
  Object.values(s.capture)
    .map((p) => /^[^.]+\.(\d+)\./.exec(p)?.[1])
    .find((i) => i !== undefined);
const tasks = content.tasks.filter((t) => {
  const s = t.kind === "solo" ? searchStep(t) : undefined;
  return s !== undefined && Number(listedAt(s)) > 0;
});

describe("decoys listed first", () => {
  it("a search world's results put a near namesake before the record the ticket names", async () => {
    expect(tasks.length).toBeGreaterThanOrEqual(1);
    for (const t of tasks) {
      const step = searchStep(t) as Execute;
      const world = content.worlds.find((w) => w.id === t.world);
      if (!world) throw new Error(`no world ${t.world}`);
      const trial = new TrialWorld(
        { ...world, routes: world.routes.map((r) => ({ ...r, auth_required: false })) },
        "s",
      );
      // The golden URL names its version in the path; the world may take it in a header or the query.
      const wire = wireRequest(world.versioning, { url: step.request.url, headers: {} });
      const res = await inProcessTransport(trial)(
        new Request(`http://w.local${wire.url}`, { headers: wire.headers }),
      );
      const body = (await res.json()) as Record<string, unknown>;
      const list = Object.values(body).find(Array.isArray) as Array<Record<string, unknown>>;
      const name = new URL(`http://w${step.request.url}`).searchParams.values().next().value as string;
      const at = Number(listedAt(step));
      const nameOf = (r: Record<string, unknown> | undefined) =>
        String(Object.values(r ?? {}).find((v) => typeof v === "string" && v.includes(name)));
      // The golden's pick is the exact name; what is listed first only contains it.
      expect(nameOf(list[at])).toBe(name);
      expect(nameOf(list[0])).not.toBe(name);
      expect(nameOf(list[0])).toContain(name);
      // The ticket names the record by its exact name.
      expect(t.ticket).toContain(`"${name}"`);
    }
  });

  it("certifies every such task through every gate", async () => {
    const ids = new Set(tasks.map((t) => t.id));
    const report = await certifyBank(content, { tasks: (t) => ids.has(t.id) });
    for (const gate of GATE_NAMES) {
      const g = report.gates[gate];
      if (g?.hard) expect(g.failures, gate).toEqual([]);
    }
    expect(report.gates.axis_necessity?.checked).toBe(ids.size);
  }, 300_000);

  it("grading catches the first match: a golden that takes it fails solvability, and the discovery-blind agent fails", async () => {
    const task = tasks[0] as Task;
    const step = searchStep(task) as Execute;
    const firstMatch: Task = {
      ...task,
      golden: task.golden.map((s) =>
        s === step
          ? {
              ...step,
              capture: Object.fromEntries(
                Object.entries(step.capture).map(([k, p]) => [k, p.replace(/^([^.]+)\.\d+\./, "$1.0.")]),
              ),
            }
          : s,
      ),
    };
    const sabotaged = bankFromContent({
      ...content,
      tasks: content.tasks.map((t) => (t.id === task.id ? firstMatch : t)),
    });
    const failed = await solvabilityFindings(
      sabotaged.tasks.find((t) => t.id === task.id) as Task,
      { attempts: 3, minPasses: 1 },
      sharedTrials(sabotaged),
    );
    expect(failed[0]?.check).toBe("pass_at_n");
    expect(failed[0]?.message).toMatch(/passed 0 of 3/);
    expect(await solvabilityFindings(task, { attempts: 3, minPasses: 1 }, sharedTrials(bank))).toEqual([]);
    expect((await axisNecessityFindings(bank, task, sharedTrials(bank))).failures).toEqual([]);
  }, 120_000);
});
