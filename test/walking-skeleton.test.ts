import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { blankAgentFactory, goldenAgentFactory } from "../src/agents/scripted-agents.js";
import { bankFromContent, contentHash, serializeBank } from "../src/bank/bank.js";
import { sha256Hex } from "../src/bank/canonical-json.js";
import { formatBankError, loadBank, writeBank } from "../src/bank/load-bank.js";
import type { Task } from "../src/bank/task-schema.js";
import { bufferIo } from "../src/cli/io.js";
import { runCli } from "../src/cli/program.js";
import { HARBOR_WORLD } from "../src/generate/harbor-world.js";
import { skeletonBankContent } from "../src/generate/skeleton-bank.js";
import { runTrial } from "../src/run/run-trial.js";
import type { Agent, AgentFactory } from "../src/trial/agent.js";
import { playGolden } from "../src/trial/play-golden.js";
import { mintCanary } from "../src/world/canary.js";
import {
  httpTransport,
  inProcessTransport,
  serveTrialWorld,
  type WorldTransport,
} from "../src/world/transport.js";

const bank = bankFromContent(skeletonBankContent());
const task = (suffix: string) => bank.tasks.find((t) => t.id.endsWith(suffix)) as Task;
const scripted = (name: string, attempt: Agent["attempt"]): AgentFactory => ({
  name,
  forTask: () => ({ name, attempt }),
});

describe("walking skeleton: one world, end to end", () => {
  it("has three solo subtasks and the chain 1to3", () => {
    expect(bank.tasks.map((t) => t.id).sort()).toEqual([
      "harbor-telemetry-chain-1to03",
      "harbor-telemetry-sub01",
      "harbor-telemetry-sub02",
      "harbor-telemetry-sub03",
    ]);
    expect(bank.tasks.find((t) => t.kind === "chain")?.positions).toEqual([1, 2, 3]);
  });

  it("golden passes all four tasks", async () => {
    for (const t of bank.tasks) {
      const r = await runTrial({ bank, task: t, agent: goldenAgentFactory, epoch: 1 });
      expect(r.grade.passed, `${t.id}: ${r.grade.failure_reason}`).toBe(true);
      expect(r.outcome).toBe("pass");
    }
  });

  it("blank fails all four, with a G1 and a G2 failure each", async () => {
    for (const t of bank.tasks) {
      const r = await runTrial({ bank, task: t, agent: blankAgentFactory, epoch: 1 });
      expect(r.grade.passed).toBe(false);
      expect(r.grade.g1_passed).toBe(false);
      expect(r.grade.g2_passed).toBe(false);
      expect(r.grade.failure_reason).toMatch(/failed: G1 labour, G2 answer; first failure: /);
      expect(r.grade.g2.every((f) => f.reason === "field absent from the declared JSON answer card")).toBe(
        true,
      );
    }
  });

  it("a sabotaged run that reads the answer from the /v2 decoy fails G1 and the forbid constraint", async () => {
    const t = task("sub02");
    const sabotage = scripted("sabotage-decoy", async (session) => {
      await playGolden(t.golden, session, {
        tamper: (step) =>
          step.op === "execute" && step.request.url.startsWith("/v3/vessels/")
            ? { ...step, request: { ...step.request, url: step.request.url.replace("/v3/", "/v2/") } }
            : step,
      });
    });
    const r = await runTrial({ bank, task: t, agent: sabotage, epoch: 1 });
    expect(r.grade.passed).toBe(false);
    expect(r.grade.g1_passed).toBe(false);
    expect(r.grade.constraints.find((c) => c.id === "stay_on_v3")?.violated).toBe(true);
    expect(r.grade.g1.find((p) => p.id === "berth_from_v3")?.passed).toBe(false);
    // The decoy's berth is stale, so the delivery is wrong too.
    expect(r.grade.g2.find((f) => f.field === "berth")?.passed).toBe(false);
  });

  it("typing the right canary into the card without making the call passes G2 but fails G1", async () => {
    const t = task("sub01");
    const typist: AgentFactory = {
      name: "canary-typist",
      forTask: (_task, { trialSeed }) => ({
        name: "canary-typist",
        async attempt(session) {
          const firmware = mintCanary(trialSeed, { $canary: "v204_firmware", format: "FW-{code}" });
          session.finish(
            `\`\`\`json\n${JSON.stringify({ firmware_build: firmware, firmware_channel: "maritime-lts" })}\n\`\`\``,
          );
        },
      }),
    };
    const r = await runTrial({ bank, task: t, agent: typist, epoch: 1 });
    expect(r.grade.g2_passed).toBe(true);
    expect(r.grade.g1_passed).toBe(false);
    expect(r.grade.passed).toBe(false);
  });

  it("canaries differ between epochs, so one trial's answer does not pass another", async () => {
    const t = task("sub01");
    const first = await runTrial({ bank, task: t, agent: goldenAgentFactory, epoch: 1 });
    const last = first.messages.at(-1);
    const finalText = Array.isArray(last?.content)
      ? (last.content.find((p) => p.type === "text")?.text ?? "")
      : "";
    expect(finalText).toMatch(/FW-/);
    const replayed = await runTrial({
      bank,
      task: t,
      agent: scripted("replay", async (s) => s.finish(finalText)),
      epoch: 2,
    });
    expect(replayed.grade.g2.find((f) => f.field === "firmware_build")?.passed).toBe(false);
    expect(replayed.grade.passed).toBe(false);
  });

  it("a malformed tool argument gets an error naming what was wrong, and the trial goes on", async () => {
    const t = task("sub01");
    const seen: string[] = [];
    const clumsy = scripted("clumsy", async (session) => {
      const calls = [
        { name: "read", arguments: '{"entity_ref": {"kind": "variable", "id": ' },
        { name: "read", arguments: { entity_ref: { kind: "secret", id: "client_id" } } },
        { name: "write", arguments: { entity_ref: { kind: "variable", id: "x" } } },
        { name: "execute", arguments: {} },
        { name: "read", arguments: { entity_ref: '{"kind": "variable", "id": "client_id"}' } },
      ];
      for (const call of calls) {
        const { results } = await session.step({ toolCalls: [call] });
        seen.push(results[0]?.content ?? "");
      }
      session.finish("no card");
    });
    const r = await runTrial({ bank, task: t, agent: clumsy, epoch: 1 });
    expect(seen[0]).toMatch(/arguments looks like JSON but does not parse/);
    expect(seen[1]).toMatch(
      /entity_ref\.kind "secret" is not one of request, response, variable, spec, handle/,
    );
    expect(seen[2]).toMatch(/write needs `content`/);
    expect(seen[3]).toMatch(/execute needs `request`/);
    expect(JSON.parse(seen[4] as string)).toEqual({
      scope: "vault",
      name: "client_id",
      value: HARBOR_WORLD.auth.client_id,
    });
    expect(r.outcome).toBe("fail");
  });

  it("serialising the bank twice gives the same content hash; another seed gives another", () => {
    const a = serializeBank(skeletonBankContent()).manifest.content_hash;
    const b = serializeBank(skeletonBankContent()).manifest.content_hash;
    const c = serializeBank(skeletonBankContent("another-seed")).manifest.content_hash;
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

describe("transports", () => {
  /** Wrap a transport to keep every response's raw bytes. */
  const recording =
    (inner: WorldTransport, bodies: string[]): WorldTransport =>
    async (req) => {
      const res = await inner(req);
      const text = await res.clone().text();
      bodies.push(`${res.status} ${text}`);
      return res;
    };

  it("in-process and HTTP return byte-identical bodies for the golden solution's calls", async () => {
    for (const t of bank.tasks) {
      const inProcess: string[] = [];
      const overHttp: string[] = [];
      const a = await runTrial({
        bank,
        task: t,
        agent: goldenAgentFactory,
        epoch: 3,
        transport: (trial) => recording(inProcessTransport(trial), inProcess),
      });
      const served: Array<{ close(): Promise<void> }> = [];
      const b = await runTrial({
        bank,
        task: t,
        agent: goldenAgentFactory,
        epoch: 3,
        transport: (trial) => {
          let base: Promise<string> | null = null;
          return recording(async (req) => {
            base ??= serveTrialWorld(trial, 0).then((s) => {
              served.push(s);
              return s.baseUrl;
            });
            return httpTransport(await base)(req);
          }, overHttp);
        },
      });
      await Promise.all(served.map((s) => s.close()));
      expect(a.grade.passed && b.grade.passed).toBe(true);
      expect(overHttp.length).toBeGreaterThan(0);
      expect(overHttp).toEqual(inProcess);
    }
  });

  it("the HTTP transport refuses any host but loopback", () => {
    expect(() => httpTransport("http://10.0.0.1:80")).toThrow(/off this machine/);
  });
});

describe("bank files", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), "apiflow-bank-"));
    dirs.push(d);
    writeBank(d, skeletonBankContent());
    return d;
  };

  it("round-trips through disk with the same content hash", () => {
    const d = fresh();
    const loaded = loadBank(d);
    expect(loaded.success && loaded.data.manifest.content_hash).toBe(bank.manifest.content_hash);
  });

  it("a malformed task file fails with the file and the JSON path of the first problem", () => {
    const d = fresh();
    const name = "tasks/harbor-telemetry-sub02.json";
    const json = JSON.parse(readFileSync(join(d, name), "utf8"));
    json.grader.answer[1].comparator = "fuzzy";
    const text = `${JSON.stringify(json)}\n`;
    writeFileSync(join(d, name), text);
    // Re-sign the manifest, so that the schema, not a hash, is what fails.
    const manifestPath = join(d, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.files[name] = sha256Hex(text);
    manifest.content_hash = contentHash(manifest);
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const loaded = loadBank(d);
    expect(loaded.success).toBe(false);
    if (!loaded.success) {
      expect(loaded.error.file).toBe(name);
      expect(loaded.error.path).toBe("$.grader.answer[1].comparator");
      expect(formatBankError(loaded.error)).toMatch(
        /^tasks\/harbor-telemetry-sub02\.json \$\.grader\.answer\[1\]\.comparator: /,
      );
    }
  });

  it("a changed file hash without a re-signed manifest is caught by the content hash", () => {
    const d = fresh();
    const manifestPath = join(d, "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.files["tasks/harbor-telemetry-sub02.json"] = "0".repeat(64);
    writeFileSync(manifestPath, JSON.stringify(manifest));
    const loaded = loadBank(d);
    expect(!loaded.success && formatBankError(loaded.error)).toMatch(
      /^manifest\.json \$\.content_hash: content hash does not match/,
    );
  });

  it("a tampered file is caught by its SHA-256", () => {
    const d = fresh();
    const file = join(d, "worlds/harbor-telemetry.json");
    writeFileSync(file, readFileSync(file, "utf8").replace("Aarhus", "Aarhuz"));
    const loaded = loadBank(d);
    expect(loaded.success).toBe(false);
    if (!loaded.success)
      expect(formatBankError(loaded.error)).toBe(
        "worlds/harbor-telemetry.json $: SHA-256 differs from the manifest",
      );
  });
});

describe("CLI", () => {
  const bankDir = mkdtempSync(join(tmpdir(), "apiflow-cli-bank-"));
  writeBank(bankDir, skeletonBankContent());
  // Commands write run directories under their cwd: keep them out of the repository.
  const cwd = mkdtempSync(join(tmpdir(), "apiflow-cli-cwd-"));
  afterAll(() => {
    rmSync(bankDir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it("apiflow run --json prints one JSON object with every trial and a summary", async () => {
    const io = bufferIo({}, cwd);
    const code = await runCli(
      ["run", "--bank", bankDir, "--agent", "golden", "blank", "--epochs", "1", "--json"],
      io,
    );
    expect(code).toBe(0);
    const out = JSON.parse(io.out());
    expect(out.summary).toMatchObject({ total: 8, passed: 4 });
    expect(Object.keys(out.trials[0]).sort()).toEqual(
      ["agent", "epoch", "failure_reason", "g1", "g2", "outcome", "passed", "task_id"].sort(),
    );
    for (const t of out.trials) expect(t.passed).toBe(t.agent === "golden");
  });

  it("apiflow run prints a line per trial and a summary", async () => {
    const io = bufferIo({}, cwd);
    expect(
      await runCli(["run", "--bank", bankDir, "--agent", "blank", "--epochs", "2", "--tasks", "*-sub0?"], io),
    ).toBe(0);
    const lines = io.out().trim().split("\n");
    expect(lines.filter((l) => l.startsWith("FAIL "))).toHaveLength(6);
    expect(lines.at(-1)).toMatch(/^0\/6 trials passed/);
  });

  it("user mistakes are one-line errors with exit code 2", async () => {
    for (const args of [
      ["run", "--agent", "nobody"],
      ["run", "--agent", "golden", "--epochs", "zero"],
      ["run", "--agent", "golden", "--tasks", "no-such-*"],
      ["run", "--agent", "golden", "--bank", "/nonexistent/bank"],
    ]) {
      const io = bufferIo({}, cwd);
      expect(await runCli(args, io)).toBe(2);
      expect(io.err().trim().split("\n")).toHaveLength(1);
      expect(io.err()).toMatch(/^apiflow: /);
    }
  });

  it("apiflow serve prints its base URL first and answers curl-style requests on 127.0.0.1", async () => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/main.ts",
        "serve",
        "--bank",
        bankDir,
        "--task",
        "harbor-telemetry-sub02",
        "--port",
        "0",
      ],
      {
        cwd: join(import.meta.dirname, ".."),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
      });
      expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const spec = (await (await fetch(`${first}/openapi.json`)).json()) as { openapi: string };
      expect(spec.openapi).toBe("3.1.0");
      const denied = await fetch(`${first}/v3/vessels/V-311`);
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ error: "missing_token" });
    } finally {
      child.kill("SIGTERM");
    }
  });
});
