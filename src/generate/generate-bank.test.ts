import { describe, expect, it } from "vitest";
import { blankAgentFactory, goldenAgentFactory } from "../agents/scripted-agents.js";
import { bankFromContent, serializeBank } from "../bank/bank.js";
import type { JsonValue } from "../bank/json.js";
import type { Task } from "../bank/task-schema.js";
import type { World } from "../bank/world-schema.js";
import { prepareTrialWorld } from "../run/replay-setup.js";
import { runTrial } from "../run/run-trial.js";
import { resolveCanaries, trialSeed } from "../world/canary.js";
import { staleCredentialName } from "../world/credential.js";
import { phraseError, readError } from "../world/reply.js";
import { inProcessTransport } from "../world/transport.js";
import { worldCaller } from "../world/world-caller.js";
import type { BuiltWorld } from "./build-world.js";
import { bankStats } from "./datasheet.js";
import { defaultBankContent } from "./default-bank.js";
import { generateBank } from "./generate-bank.js";
import { type Storyline, TEMPLATES } from "./storyline.js";
import { measuredDifficulty, taskFeatures } from "./task-features.js";

const content = defaultBankContent();
const bank = bankFromContent(content);
const hashOf = (seed: string) => {
  const r = generateBank({ seed });
  if (!r.success) throw new Error(r.error.message);
  return { hash: serializeBank(r.data).manifest.content_hash, stats: bankStats(r.data.tasks), data: r.data };
};

describe("the default bank", () => {
  it("has the 1.0 shape: 13 worlds, 241 solo + 226 chains, chains 1to2..1to20", () => {
    expect(bank.manifest.counts).toEqual({ worlds: 13, solo: 241, chain: 226, tasks: 467 });
    const lengths = bank.tasks.filter((t) => t.kind === "chain").map((t) => t.positions.length);
    expect(Math.min(...lengths)).toBe(2);
    expect(Math.max(...lengths)).toBe(20);
    expect(new Set(bank.worlds.map((w) => w.id)).size).toBe(13);
    // 1.0's histogram: 13 chains at each length 2-5, 12 at each 6-14, 11 at each 15-20.
    const histogram = Object.fromEntries(
      Array.from({ length: 19 }, (_, i) => i + 2).map((n) => [n, lengths.filter((l) => l === n).length]),
    );
    expect(histogram).toEqual(
      Object.fromEntries(
        Array.from({ length: 19 }, (_, i) => i + 2).map((n) => [n, n <= 5 ? 13 : n <= 14 ? 12 : 11]),
      ),
    );
  });

  it("covers all 7 axes in every world and each axis with >= 25 solo tasks", () => {
    const stats = bankStats(bank.tasks);
    for (const [world, c] of Object.entries(stats.byWorld)) expect(c.axes, world).toBe(7);
    for (const [axis, n] of Object.entries(stats.soloByAxis)) expect(n, axis).toBeGreaterThanOrEqual(25);
  });

  it("spreads the error styles over the worlds: every shape in at least two, no two styled worlds alike", () => {
    const shapes = new Map<string, number>();
    for (const w of bank.worlds)
      shapes.set(w.errors?.shape ?? "plain", (shapes.get(w.errors?.shape ?? "plain") ?? 0) + 1);
    for (const shape of ["plain", "problem", "errors", "fault"])
      expect(shapes.get(shape), shape).toBeGreaterThanOrEqual(2);
    const styled = bank.worlds.filter((w) => w.errors).map((w) => JSON.stringify(w.errors));
    expect(new Set(styled).size).toBe(styled.length);
  });

  it("offers every behaviour at two difficulties or more, bar the few where one level is what it is", () => {
    const levels = new Map<string, Set<string>>();
    for (const t of Object.values(TEMPLATES).flat()) {
      const family = t.id.replace(/-(easy|medium|hard)$/, "");
      levels.set(family, (levels.get(family) ?? new Set()).add(t.difficulty));
    }
    const single = [...levels].filter(([, d]) => d.size < 2).map(([f]) => f);
    // One level each: an undocumented filter only the 400 reveals, and a secret rotation that needs
    // the refresh grant (hard by nature: it chains single-use refresh tokens), and a signed read (one
    // medium slot: the signing is the work, and only one world in the default bank draws it).
    expect(single.sort()).toEqual([
      "auth.refresh-renewal",
      "auth.signed-read",
      "discovery.undocumented-param",
    ]);
    // A task's label is the published rule over its measured features (not its template's level);
    // every level occurs among the solo tasks.
    for (const t of bank.tasks) {
      const world = bank.worlds.find((w) => w.id === t.world) as World;
      expect(t.difficulty, t.id).toBe(measuredDifficulty(taskFeatures(t, world)));
    }
    // Hard is the rarest level: a plain read (a walk, a one-route read) is at most medium.
    const stats = bankStats(bank.tasks);
    for (const [level, floor] of [
      ["easy", 30],
      ["medium", 30],
      ["hard", 25],
    ] as const)
      expect(stats.soloByDifficulty[level], level).toBeGreaterThanOrEqual(floor);
  });

  it("never repeats a ticket", () => {
    const seen = new Map<string, string>();
    for (const t of bank.tasks) {
      expect(seen.get(t.ticket), `${t.id} repeats ${seen.get(t.ticket)}`).toBeUndefined();
      seen.set(t.ticket, t.id);
    }
  });

  it("plants values later positions consume (coupling) in every 20-position world", () => {
    for (const world of bank.worlds.slice(0, 9)) {
      const coupled = bank.tasks.filter(
        (t) => t.world === world.id && t.kind === "solo" && t.coupling !== "none",
      );
      expect(coupled.length, world.id).toBeGreaterThan(0);
    }
  });

  it("puts no expected answer value in the ticket or the seed workspace", () => {
    const leaks: string[] = [];
    for (const task of bank.tasks) {
      const seed = trialSeed(bank.manifest.seed, task.id, 1);
      const workspace = JSON.stringify(resolveCanaries(task.workspace, seed));
      for (const f of task.grader.answer) {
        const value = resolveCanaries(f.expected, seed) as JsonValue;
        if (value === null || typeof value === "object") continue;
        const text = String(value);
        // A number leaks when it stands alone; a string anywhere.
        const pattern =
          typeof value === "number"
            ? new RegExp(`(^|[^\\w.])${text.replace(/\./g, "\\.")}(?![\\w]|\\.\\d)`)
            : new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
        if (pattern.test(task.ticket)) leaks.push(`${task.id} ${f.field}=${text} in ticket`);
        if (pattern.test(workspace)) leaks.push(`${task.id} ${f.field}=${text} in workspace`);
      }
    }
    expect(leaks).toEqual([]);
  });

  it("golden passes every task and blank passes none (the whole bank)", async () => {
    const failures: string[] = [];
    for (const task of bank.tasks) {
      const golden = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      if (!golden.grade.passed)
        failures.push(`golden ${task.id}: ${golden.grade.failure_reason} ${golden.stop_detail}`);
      const blank = await runTrial({ bank, task, agent: blankAgentFactory, epoch: 1 });
      if (blank.grade.passed) failures.push(`blank passed ${task.id}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

describe("delete", () => {
  it("some tasks delete a superseded record and prove it gone; a golden that skips the delete fails", async () => {
    const deletes = bank.tasks.filter(
      (t) => t.kind === "solo" && t.golden.some((s) => s.op === "execute" && s.request.method === "DELETE"),
    );
    expect(deletes.length).toBeGreaterThan(0);
    for (const task of deletes) {
      const skipped = {
        ...task,
        golden: task.golden.filter((s) => !(s.op === "execute" && s.request.method === "DELETE")),
      };
      const trial = await runTrial({ bank, task: skipped, agent: goldenAgentFactory, epoch: 1 });
      expect(trial.grade.passed, task.id).toBe(false);
      expect(trial.grade.failure_reason, task.id).toMatch(/superseded_deleted|deletion_proved/);
    }
  });
});

describe("validator recovery", () => {
  it("goldens take a level from the validator's 422 (its allowed list); resending the ticket's spelling fails", async () => {
    const recoveries = bank.tasks.filter(
      (t) =>
        t.kind === "solo" &&
        t.golden.some(
          (s) => s.op === "execute" && Object.values(s.capture).some((p) => /\.allowed\.\d+$/.test(p)),
        ),
    );
    // Both enum-recovery levels are drawn (the task's label is measured, see task-features.ts).
    expect(recoveries.length).toBeGreaterThanOrEqual(2);
    for (const task of recoveries) {
      const golden = await runTrial({ bank, task, agent: goldenAgentFactory, epoch: 1 });
      expect(golden.grade.passed, task.id).toBe(true);
      const rejected = golden.events.find((e) => e.type === "exchange" && e.status === 422);
      expect(rejected, task.id).toBeDefined();
      // The same golden resending the level as the client spelt it (not reading the error) fails.
      const got = invalidEnumGot(rejected?.type === "exchange" ? rejected.response_body : null);
      expect(typeof got, task.id).toBe("string");
      const binding = task.golden
        .flatMap((s) => (s.op === "execute" ? Object.keys(s.capture) : []))
        .find((k) => k.endsWith("_lvl")) as string;
      const guessedGolden = task.golden.map((s) =>
        s.op === "execute" && s.request.body !== undefined
          ? {
              ...s,
              request: {
                ...s.request,
                body: JSON.parse(JSON.stringify(s.request.body).replace(`{{${binding}}}`, String(got))),
              },
            }
          : s,
      );
      const guessed = await runTrial({
        bank,
        task: { ...task, golden: guessedGolden },
        agent: goldenAgentFactory,
        epoch: 1,
      });
      expect(guessed.grade.passed, task.id).toBe(false);
    }
  });
});

/** The `got` of the first `invalid_enum` problem anywhere in an error body, whatever its style. */
function invalidEnumGot(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(invalidEnumGot).find((v) => v !== undefined);
  if (body === null || typeof body !== "object") return undefined;
  const o = body as Record<string, unknown>;
  if (o.code === "invalid_enum") return o.got;
  return Object.values(o)
    .map(invalidEnumGot)
    .find((v) => v !== undefined);
}

describe("determinism", () => {
  it("gives the same content hash for the same seed and a different one for another seed with the same counts", () => {
    const a = hashOf("apiflow-1");
    const b = hashOf("apiflow-1");
    const c = hashOf("private-split-7");
    expect(a.hash).toBe(b.hash);
    expect(c.hash).not.toBe(a.hash);
    expect(c.stats.soloByAxis).toEqual(a.stats.soloByAxis);
    // Difficulty is measured per task, so another seed's counts by level are close, not equal;
    // templates are dealt, not drawn, so each seed fills each template about as often
    // (apiflow-1: 112/75/54 easy/medium/hard; private-split-7: 118/68/55; over six seeds easy
    // 112-118, medium 68-75, hard 53-57).
    for (const level of ["easy", "medium", "hard"])
      expect(
        Math.abs((c.stats.soloByDifficulty[level] ?? 0) - (a.stats.soloByDifficulty[level] ?? 0)),
        level,
      ).toBeLessThanOrEqual(8);
    expect(c.stats.chainByLength).toEqual(a.stats.chainByLength);
    expect(
      Object.fromEntries(Object.entries(c.stats.byWorld).map(([w, s]) => [w, [s.solo, s.chain]])),
    ).toEqual(Object.fromEntries(Object.entries(a.stats.byWorld).map(([w, s]) => [w, [s.solo, s.chain]])));
    // The other seed really is another bank, not a relabelled one.
    const ticketsA = new Set(a.data.tasks.map((t) => t.ticket));
    expect(c.data.tasks.filter((t) => ticketsA.has(t.ticket))).toEqual([]);
  });

  it("honours --worlds and --positions, and refuses out-of-range values", () => {
    const r = generateBank({ worlds: 2, positions: 5 });
    if (!r.success) throw new Error(r.error.message);
    expect(r.data.worlds).toHaveLength(2);
    expect(r.data.tasks.filter((t) => t.kind === "solo")).toHaveLength(10);
    expect(r.data.tasks.filter((t) => t.kind === "chain")).toHaveLength(8);
    expect(generateBank({ worlds: 14 }).success).toBe(false);
    expect(generateBank({ positions: 0 }).success).toBe(false);
    expect(generateBank({ positions: 21 }).success).toBe(false);
  });
});

describe("tickets quote truthful errors", () => {
  it("replays every broken call a ticket quotes against the world the storyline left, and gets that status and error", async () => {
    const stories: Array<{ built: BuiltWorld; story: Storyline }> = [];
    generateBank({ inspect: (built, story) => stories.push({ built, story }) });
    let probes = 0;
    const wrong: string[] = [];
    for (const { built, story } of stories) {
      const world = bank.worlds.find((w) => w.id === built.world.id);
      if (!world) throw new Error(`no world ${built.world.id}`);
      for (const sub of story.subtasks) {
        if (sub.probes.length === 0) continue;
        const task = bank.tasks.find(
          (t) => t.kind === "solo" && t.world === world.id && t.positions[0] === sub.position,
        ) as Task;
        const seed = trialSeed(bank.manifest.seed, task.id, 1);
        const trial = await prepareTrialWorld(world, task, seed);
        // The world's own scheme: under refresh-token rotation each grant spends the newest refresh
        // token and hands the next.
        const { call, mint } = worldCaller(world, inProcessTransport(trial));
        for (const probe of sub.probes) {
          probes += 1;
          let token = String(task.workspace.vault[staleCredentialName(world.auth)]);
          if (probe.token !== "stale") token = await mint();
          if (probe.token === "expired") {
            for (let i = 0; i < world.auth.ttl_calls; i++)
              await call(
                "GET",
                built.routes.asset(String(built.assets[0]?.[built.template.asset.idField])),
                token,
              );
          }
          const got = await call(probe.method, probe.url, token, probe.body, probe.wait);
          // The world words its errors in its own style; the ticket must quote them as worded.
          const seen = readError(got.body);
          const said = phraseError(world.errors, probe.error ?? "", probe.message ?? "", probe.status);
          if (
            got.status !== probe.status ||
            (probe.error !== undefined && seen?.code !== said.code) ||
            (probe.message !== undefined && seen?.message !== said.message) ||
            (probe.message !== undefined && !task.ticket.includes(said.message)) ||
            (probe.error !== undefined && !task.ticket.includes(said.code))
          ) {
            wrong.push(
              `${task.id} ${probe.method} ${probe.url}: ticket says ${probe.status} ${said.code}, world says ${got.status} ${String(seen?.code ?? "")}`,
            );
          }
        }
      }
    }
    expect(probes).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  }, 120_000);
});
