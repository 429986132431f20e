import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import {
  FAULT_KINDS,
  type FakeServer,
  ONE_IN_FIVE_FAULTS,
  startFakeOpenAiServer,
} from "../../../test/support/fake-openai-server.js";
import { writtenSkeletonBank } from "../../../test/support/skeleton-bank.js";
import { harborTasks } from "../../generate/harbor-tasks.js";
import { openStore } from "../../run/store.js";
import { TRIAL_LOG_SUFFIX } from "../../run/stored-trial-log.js";
import { TranscriptSchema } from "../../trial/transcript-schema.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const SECRET = "sk-test-SECRET-7f3a9c";
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-run-"));
const { dir: bankDir } = writtenSkeletonBank("apiflow-run-");
const tasks = harborTasks();
const servers: FakeServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Each stored trial's row and its transcript file's inode and mtime (a rerun rewrites both). */
function storedTrials(out: string) {
  const store = openStore(out, { readonly: true });
  const rows = [...store.all()].map((row) => {
    const { ino, mtimeMs } = statSync(join(out, row.transcript!));
    return { row, ino, mtimeMs };
  });
  store.close();
  return rows;
}

interface JsonTrial {
  task_id: string;
  epoch: number;
  passed: boolean;
  g1: boolean;
  g2: boolean;
  outcome: string;
  failure_reason: string;
}

async function runAgainst(server: FakeServer, out: string, epochs: number) {
  const io = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
  const code = await runCli(
    [
      "run",
      "--bank",
      bankDir,
      "--model",
      "openai-compatible/golden-player",
      "--base-url",
      server.baseUrl,
      "--epochs",
      String(epochs),
      "--concurrency",
      "8",
      "--out",
      out,
      "--max-retries",
      "8",
      "--retry-delay-ms",
      "5",
      "--call-timeout",
      "0.4",
      "--json",
    ],
    io,
  );
  return {
    code,
    io,
    json:
      code === 0 ? (JSON.parse(io.out()) as { trials: JsonTrial[]; summary: Record<string, number> }) : null,
  };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("apiflow run --model through the real openai-compatible provider", () => {
  it("plays the golden solution through a fake server; 20% faults of every kind lose no trial and change only the faulted ones", async () => {
    const clean = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    // One call in five is a fault, of every kind (the mix of the direct run and the queue).
    const faulty = await startFakeOpenAiServer({
      tasks,
      apiKey: SECRET,
      seed: 7,
      faults: ONE_IN_FIVE_FAULTS,
    });
    servers.push(clean, faulty);
    const epochs = 8;
    const a = await runAgainst(clean, tmp(), epochs);
    expect(a.code, a.io.err()).toBe(0);
    expect(a.json?.summary.total).toBe(tasks.length * epochs);
    expect(a.json?.trials.every((t) => t.outcome === "pass")).toBe(true);

    const outB = tmp();
    const b = await runAgainst(faulty, outB, epochs);
    expect(b.code, b.io.err()).toBe(0);
    const trials = b.json?.trials ?? [];
    expect(trials).toHaveLength(tasks.length * epochs);
    for (const kind of FAULT_KINDS) expect(faulty.injected[kind], kind).toBeGreaterThan(0);
    // Every trial ends in exactly one outcome, with its cause; a context error is the only fault
    // that may change a trial's result, and it is recorded as context_overflow, once per injection.
    const clean1 = new Map(a.json?.trials.map((t) => [`${t.task_id}/${t.epoch}`, t]));
    let overflow = 0;
    for (const t of trials) {
      if (t.outcome === "context_overflow") {
        overflow++;
        expect(t.failure_reason).toMatch(/context overflow: .*maximum context length/);
        continue;
      }
      expect(t.outcome === "provider_error" ? "provider_error" : t).toEqual(
        t.outcome === "provider_error" ? "provider_error" : clean1.get(`${t.task_id}/${t.epoch}`),
      );
    }
    expect(overflow).toBe(faulty.delivered.context_length);
    expect(trials.filter((t) => t.outcome === "provider_error")).toHaveLength(0);

    // Transcripts in the 1.0 layout, one per trial; no key anywhere in what the run wrote.
    const files = readdirSync(join(outB, "transcripts", "golden-player"));
    const transcripts = files.filter((f) => f.endsWith(".json"));
    expect(transcripts).toHaveLength(tasks.length * epochs);
    // Each beside its stored event log (gzip).
    expect(files.filter((f) => f.endsWith(TRIAL_LOG_SUFFIX)).sort()).toEqual(
      transcripts.map((f) => `${f}${TRIAL_LOG_SUFFIX}`).sort(),
    );
    for (const f of transcripts) {
      const t = TranscriptSchema.parse(
        JSON.parse(readFileSync(join(outB, "transcripts", "golden-player", f), "utf8")),
      );
      expect(f).toBe(`${t.task_id}-t${t.trial}.json`);
      expect(t.model_api).toBe("openai-compatible/golden-player");
    }
    for (const f of filesUnder(outB)) {
      const bytes = f.endsWith(".gz") ? gunzipSync(readFileSync(f)) : readFileSync(f);
      expect(bytes.includes(SECRET), f).toBe(false);
    }
    expect(b.io.out() + b.io.err()).not.toContain(SECRET);
  }, 120_000);

  it("redacts the key from a provider error that echoes it, and counts the trial unscored", async () => {
    const broken = await startFakeOpenAiServer({ tasks, apiKey: SECRET, faults: { server_error: 1 } });
    servers.push(broken);
    const out = tmp();
    const io = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    const args = ["run", "--bank", bankDir, "--model", "openai-compatible/m", "--base-url", broken.baseUrl];
    const code = await runCli(
      [
        ...args,
        "--epochs",
        "1",
        "--tasks",
        "*-sub01",
        "--out",
        out,
        "--max-retries",
        "1",
        "--retry-delay-ms",
        "1",
      ],
      io,
    );
    // Non-zero: a trial ended unscored, so a rerun has work to redo.
    expect(code).toBe(1);
    expect(io.out()).toMatch(
      /ERR .*\[provider_error\] provider error \(not scored\): server after 2 attempts/,
    );
    expect(io.out()).toMatch(/0\/1 trials passed \(1 unscored/);
    // A model the price table does not know costs "unpriced", not $0.00.
    expect(io.out()).toMatch(/; unpriced; /);
    expect(io.out()).not.toContain("$0.00");
    for (const f of filesUnder(out)) expect(readFileSync(f).includes(SECRET), f).toBe(false);
    expect(io.out() + io.err()).not.toContain(SECRET);
    expect(io.out()).toContain("[redacted]");
  });

  it("a wrong key stops the run early with one line and exit 1; a rerun with the right key redoes those trials", async () => {
    const server = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    const reference = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    servers.push(server, reference);
    const out = tmp();
    const run = (key: string, dir: string, at: FakeServer, extra: string[] = []) => {
      const io = bufferIo({ OPENAI_COMPATIBLE_API_KEY: key });
      const args = ["run", "--bank", bankDir, "--model", "openai-compatible/m", "--base-url", at.baseUrl];
      return runCli(
        [...args, "--epochs", "2", "--concurrency", "2", "--out", dir, "--json", ...extra],
        io,
      ).then((code) => ({
        code,
        io,
        json: JSON.parse(io.out()) as { trials: JsonTrial[]; summary: Record<string, unknown> },
      }));
    };
    const wrong = await run("sk-wrong-key-0000", out, server);
    expect(wrong.code).toBe(1);
    // The first two trials (the concurrency) were refused at their first call (a worker freed by
    // the first refusal may start one more before the second); no other trial started.
    const refused = server.requests;
    expect(refused).toBeGreaterThanOrEqual(2);
    expect(refused).toBeLessThanOrEqual(3);
    expect(wrong.json.summary).toMatchObject({
      total: refused,
      unscored: refused,
      not_run: tasks.length * 2 - refused,
    });
    expect(
      wrong.io
        .err()
        .trim()
        .split("\n")
        .filter((l) => /refused the key/.test(l)),
    ).toHaveLength(1);
    expect(wrong.io.err()).toMatch(
      /openai-compatible\/m: the provider refused the key \(401\/403\).*OPENAI_COMPATIBLE_API_KEY/,
    );

    // What the whole grid costs in calls, from a fresh run elsewhere.
    const fresh = await run(SECRET, tmp(), reference);
    expect(fresh.code).toBe(0);
    const before = server.requests;
    const right = await run(SECRET, out, server);
    expect(right.code, right.io.err()).toBe(0);
    expect(right.json.trials.every((t) => t.outcome === "pass")).toBe(true);
    expect(right.json.summary).toMatchObject({ total: tasks.length * 2, redone: refused, resumed: 0 });
    expect(server.requests - before).toBe(reference.requests);
    // A third run finds every trial scored: no call at all.
    const again = await run(SECRET, out, server);
    expect(again.code).toBe(0);
    expect(again.json.summary).toMatchObject({ resumed: tasks.length * 2, redone: 0 });
    expect(server.requests - before).toBe(reference.requests);
    // --redo selects outcomes: "pass" redoes every trial of the grid.
    const redoPass = await run(SECRET, out, server, ["--redo", "pass"]);
    expect(redoPass.json.summary).toMatchObject({ redone: tasks.length * 2 });
    expect(server.requests - before).toBe(2 * reference.requests);
    const bad = bufferIo({});
    expect(
      await runCli(["run", "--bank", bankDir, "--agent", "golden", "--redo", "nope", "--out", tmp()], bad),
    ).toBe(2);
    expect(bad.err()).toMatch(/--redo takes "none" or outcomes/);
  });

  it("--cost-limit stops starting trials once the run has spent it, and a rerun continues", async () => {
    const server = await startFakeOpenAiServer({ tasks, apiKey: SECRET });
    servers.push(server);
    const out = tmp();
    const prices = join(out, "..", `prices-${Date.now()}.json`);
    writeFileSync(
      prices,
      JSON.stringify({
        version: "test-1",
        models: { "openai-compatible/pricey": { input: 10_000, output: 10_000 } },
      }),
    );
    const args = [
      "run",
      "--bank",
      bankDir,
      "--model",
      "openai-compatible/pricey",
      "--base-url",
      server.baseUrl,
    ];
    const common = ["--epochs", "2", "--concurrency", "1", "--out", out, "--price-table", prices];
    const io = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    // Exit code 3: the run stopped at the cost limit with trials not run (all it ran was scored).
    expect(await runCli([...args, ...common, "--cost-limit", "1", "--json"], io)).toBe(3);
    const first = JSON.parse(io.out()) as {
      summary: { total: number; not_run: number; cost_usd: number; cost_limit_reached: boolean };
    };
    expect(first.summary.cost_limit_reached).toBe(true);
    expect(first.summary.total).toBe(1);
    expect(first.summary.not_run).toBe(7);
    expect(first.summary.cost_usd).toBeGreaterThan(1);
    const firstCalls = server.requests;
    expect(firstCalls).toBeGreaterThan(0);
    const firstTrial = storedTrials(out);
    const io2 = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    // Without the limit the rerun finishes the grid: exit 0.
    expect(await runCli([...args, ...common], io2)).toBe(0);
    expect(io2.out()).toMatch(/\(1 trials resumed/);
    expect(io2.out()).toMatch(/8\/8 trials passed/);
    expect(io2.out()).toMatch(/; \$\d+\.\d\d; /);
    const secondCalls = server.requests - firstCalls;
    // The trial stored by the first run was not run again: same row, same transcript file.
    expect(
      storedTrials(out).filter(
        (t) => t.row.task_id === firstTrial[0]?.row.task_id && t.row.epoch === firstTrial[0]?.row.epoch,
      ),
    ).toEqual(firstTrial);

    // A third run asks the model nothing and leaves every stored trial as it was.
    const all = storedTrials(out);
    const io3 = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    expect(await runCli([...args, ...common], io3)).toBe(0);
    expect(io3.out()).toMatch(/\(8 trials resumed/);
    expect(server.requests - firstCalls - secondCalls).toBe(0);
    expect(storedTrials(out)).toEqual(all);

    // The model calls of the two runs are those of one whole run: the second made only the seven
    // trials' calls (the fake model is deterministic per task).
    const whole = tmp();
    const before = server.requests;
    const io4 = bufferIo({ OPENAI_COMPATIBLE_API_KEY: SECRET });
    expect(await runCli([...args, "--epochs", "2", "--concurrency", "1", "--out", whole], io4)).toBe(0);
    expect(firstCalls + secondCalls).toBe(server.requests - before);
  });

  it("a missing key or base URL is a one-line error naming what is missing", async () => {
    for (const [args, pattern] of [
      [["--model", "openai/gpt-5-mini"], /set OPENAI_API_KEY/],
      [["--model", "anthropic/claude-sonnet-4-6"], /set ANTHROPIC_API_KEY/],
      [["--model", "openai-compatible/llama3"], /needs --base-url/],
      [["--model", "nobody/x"], /unknown provider "nobody"/],
    ] as const) {
      const io = bufferIo({});
      expect(await runCli(["run", "--bank", bankDir, "--out", tmp(), ...args], io)).toBe(2);
      expect(io.err().trim().split("\n")).toHaveLength(1);
      expect(io.err()).toMatch(pattern);
    }
  });
});
