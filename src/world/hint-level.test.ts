import { describe, expect, it } from "vitest";
import { client } from "../../test/support/world-test-helpers.js";
import { defaultBankContent } from "../generate/default-bank.js";
import { prepareTrialWorld } from "../run/replay-setup.js";
import { EXAMPLE_WORLD as W } from "./example-world.js";
import { fail, gradeHints, hintLevelFor } from "./reply.js";
import { inProcessTransport } from "./transport.js";
import { TrialWorld } from "./trial-world.js";

/**
 * Issue 16: error hints graded by difficulty. At easy and medium an error may name its fix (its
 * `hint`); at hard it says what is wrong (code, message, the fault's own fields) and nothing more.
 */
describe("error hints by difficulty", () => {
  it("a terse world drops the hint and keeps what is wrong; a full one keeps both", async () => {
    for (const level of ["full", "terse"] as const) {
      const trial = new TrialWorld(W, "seed-hints");
      trial.hints = level;
      const r = await client(inProcessTransport(trial))("GET", "/v3/valves");
      expect(r.status).toBe(401);
      expect(r.body.error).toBe("missing_token");
      expect(r.body.message).toBe("this route needs a bearer token");
      expect(r.headers["www-authenticate"]).toBe("Bearer");
      if (level === "full") expect(r.body.hint).toContain(W.auth.token_path);
      else expect(r.body).not.toHaveProperty("hint");
      // The logged exchange is what the agent saw.
      const logged = trial.log.events.at(-1);
      expect(logged?.type === "exchange" && JSON.stringify(logged.response_body).includes("hint")).toBe(
        level === "full",
      );
    }
  });

  it("drops the hint from the semantic problem too, so every error style and protocol loses it", () => {
    const reply = fail(429, "rate_limited", "slow down", { hint: "wait 4 s", retry_after: 4 });
    const terse = gradeHints("terse", reply);
    expect(terse.problem?.extra).toEqual({ retry_after: 4 });
    expect(terse.body).toEqual({ error: "rate_limited", message: "slow down", retry_after: 4 });
    expect(gradeHints("full", reply)).toBe(reply);
    expect(reply.problem?.extra.hint).toBe("wait 4 s");
  });

  it("follows a solo task's difficulty: hard ones get terse worlds, easy and medium full ones", async () => {
    expect(["easy", "medium", "hard"].map((d) => hintLevelFor(d as "easy"))).toEqual([
      "full",
      "full",
      "terse",
    ]);
    const content = defaultBankContent();
    for (const difficulty of ["medium", "hard"] as const) {
      const task = content.tasks.find((t) => t.kind === "solo" && t.difficulty === difficulty);
      const world = content.worlds.find((w) => w.id === task?.world);
      if (!task || !world) throw new Error(`no ${difficulty} task`);
      const trial = await prepareTrialWorld(world, task, "seed-hints");
      expect(trial.hints, difficulty).toBe(difficulty === "hard" ? "terse" : "full");
      expect(trial.fork().hints).toBe(trial.hints);
    }
    // A chain's segments keep their own levels: full by default, terse on its hard segments' routes.
    const chain = content.tasks.find(
      (t) => t.kind === "chain" && t.segment_hints?.some((s) => s.level === "terse"),
    );
    const chainWorld = content.worlds.find((w) => w.id === chain?.world);
    if (!chain || !chainWorld) throw new Error("no chain with a hard segment");
    const chainTrial = await prepareTrialWorld(chainWorld, chain, "seed-hints");
    expect(chainTrial.hints).toBe("full");
    const terse = chain.segment_hints?.filter((s) => s.level === "terse").flatMap((s) => s.routes) ?? [];
    expect([...chainTrial.terseRoutes].sort()).toEqual([...new Set(terse)].sort());
    expect(chainTrial.fork().terseRoutes).toEqual(chainTrial.terseRoutes);
  });

  it("serves a route of `terseRoutes` terse and every other route full, by the route the path takes", async () => {
    const trial = new TrialWorld(W, "seed-hints");
    const listing = W.routes.find((r) => r.method === "GET" && r.path === "/v3/valves");
    if (!listing) throw new Error("the example world lists no /v3/valves");
    trial.terseRoutes = [listing.path];
    const call = client(inProcessTransport(trial));
    // No token: a 401 whose hint names the token route, on the terse route and on another one.
    const onTerse = await call("GET", "/v3/valves");
    expect(onTerse.status).toBe(401);
    expect(onTerse.body).not.toHaveProperty("hint");
    const other = W.routes.find((r) => r.method === "GET" && r.path !== listing.path && r.auth_required);
    if (!other) throw new Error("no other route");
    const elsewhere = await call("GET", other.path.replace(/\{[^}]+\}/g, "X-1"));
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body.hint).toContain(W.auth.token_path);
    expect(trial.hintLevel("/v3/valves")).toBe("terse");
    expect(trial.hintLevel("/nowhere")).toBe("full");
  });

  it("replays a hard task's storyline with every hint, so an earlier golden that reads its fix from an error still writes", async () => {
    const content = defaultBankContent();
    // A golden that takes a value from an error's `allowed` (a schema repair reads the enum there).
    const fromError = content.tasks.find(
      (t) =>
        t.kind === "solo" &&
        t.golden.some(
          (s) => s.op === "execute" && Object.values(s.capture ?? {}).some((p) => p.includes("allowed")),
        ),
    );
    const hard = content.tasks.find(
      (t) => t.kind === "solo" && t.difficulty === "hard" && t.world === fromError?.world,
    );
    const world = content.worlds.find((w) => w.id === fromError?.world);
    if (!fromError || !hard || !world) throw new Error("no golden that reads a fix from an error");
    const setup = [...fromError.setup, ...fromError.golden.filter((s) => s.op !== "answer")];
    const records = async (difficulty: "medium" | "hard") =>
      JSON.stringify([
        ...(await prepareTrialWorld(world, { ...hard, difficulty, setup }, "seed-replay")).records,
      ]);
    expect(await records("hard")).toBe(await records("medium"));
  });
});
