import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { World } from "../src/bank/world-schema.js";
import { HARBOR_WORLD } from "../src/generate/harbor-world.js";
import { Workspace } from "../src/workspace/workspace.js";
import { EXAMPLE_WORLD } from "../src/world/example-world.js";
import { inProcessTransport, serveTrialWorld } from "../src/world/transport.js";
import { TrialWorld } from "../src/world/trial-world.js";
import { type BenchFigure, type Benchmark, median } from "./figure.js";

/** The harbour world with tokens that never run out, so a long loop measures GETs, not 401s. */
const WORLD: World = { ...HARBOR_WORLD, auth: { ...HARBOR_WORLD.auth, ttl_calls: 1_000_000_000 } };
const CONNECTIONS = 64;
const HTTP_SECONDS = 5;

async function freshToken(trial: TrialWorld): Promise<string> {
  const res = await inProcessTransport(trial)(
    new Request(`http://world.local${WORLD.auth.token_path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        grant_type: "client_credentials",
        client_id: WORLD.auth.client_id,
        client_secret: WORLD.auth.client_secret,
      }),
    }),
  );
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Median µs of one call, timing `n` calls one by one after a warm-up. */
async function medianMicros(n: number, once: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2_000; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - t) / 1_000);
  }
  return median(times);
}

/** autocannon's CLI, run as its own process so it does not share the server's event loop. */
function autocannonBin(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const bin = require.resolve("autocannon/autocannon.js");
    return existsSync(bin) ? bin : null;
  } catch {
    return null;
  }
}

async function httpRequestsPerSecond(): Promise<number | null> {
  const bin = autocannonBin();
  if (!bin) return null;
  const trial = new TrialWorld(WORLD, "bench-http");
  const token = await freshToken(trial);
  // A load test is not a trial: the log would only measure memory growth.
  trial.recording = false;
  const served = await serveTrialWorld(trial, 0);
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [
          bin,
          "--json",
          "-c",
          String(CONNECTIONS),
          "-d",
          String(HTTP_SECONDS),
          "-H",
          `authorization=Bearer ${token}`,
          `${served.baseUrl}/v3/vessels/V-204`,
        ],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
      let text = "";
      child.stdout.on("data", (d) => {
        text += d;
      });
      child.on("error", reject);
      child.on("close", () => resolve(text));
    });
    const result = JSON.parse(out) as { requests: { average: number }; non2xx: number; errors: number };
    if (result.non2xx > 0 || result.errors > 0) {
      process.stderr.write(`  http: ${result.non2xx} non-2xx answers, ${result.errors} errors\n`);
    }
    return result.requests.average;
  } finally {
    await served.close();
  }
}

function collectGarbage(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Heap MB held by 1,000 live trial states, each after a short session (token, reads, a write). */
async function memoryOfTrials(count: number): Promise<number> {
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  const trials: TrialWorld[] = [];
  for (let i = 0; i < count; i++) {
    const world = i % 2 ? EXAMPLE_WORLD : WORLD;
    const trial = new TrialWorld(world, `bench-mem-${i}`);
    const send = inProcessTransport(trial);
    const token = await freshToken(trial);
    const auth = { authorization: `Bearer ${token}` };
    for (const path of world === WORLD
      ? ["/v3/vessels", "/v3/vessels/V-204"]
      : ["/v3/work-orders", "/v2/work-orders?page=2"]) {
      await send(new Request(`http://world.local${path}`, { headers: auth }));
    }
    if (world === WORLD) {
      await send(
        new Request("http://world.local/v3/maintenance-orders", {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ vessel_id: "V-204", priority: "high", firmware_build: "FW-1" }),
        }),
      );
    }
    trials.push(trial);
  }
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  if (trials.length !== count) throw new Error("unreachable");
  return (after - before) / 1024 / 1024;
}

/** Issue 3: in-process speed, HTTP throughput on loopback and the memory of live trial states. */
const bench: Benchmark = {
  name: "world",
  async run() {
    const figures: BenchFigure[] = [];
    const trial = new TrialWorld(WORLD, "bench-inproc");
    trial.recording = true;
    const token = await freshToken(trial);
    const send = inProcessTransport(trial);
    const headers = { authorization: `Bearer ${token}` };
    const transportUs = await medianMicros(20_000, async () => {
      const res = await send(new Request("http://world.local/v3/vessels/V-204", { headers }));
      await res.text();
    });
    const wsTrial = new TrialWorld(WORLD, "bench-ws");
    const ws = new Workspace({
      world: WORLD,
      transport: inProcessTransport(wsTrial),
      log: wsTrial.log,
      variables: { vault: { token: await freshToken(wsTrial) }, local: {}, global: {} },
    });
    const request = {
      request: {
        protocol: "rest",
        method: "GET",
        url: "/v3/vessels/V-204",
        headers: { authorization: "Bearer {{token}}" },
      },
    };
    const executeUs = await medianMicros(20_000, () => ws.call("execute", request));
    figures.push(
      {
        name: "in-process execute, simple GET (median)",
        value: executeUs,
        unit: "µs",
        target: "<= 50",
        ok: executeUs <= 50,
        issue: 3,
      },
      {
        name: "in-process transport call, simple GET (median)",
        value: transportUs,
        unit: "µs",
        target: "(info)",
        ok: true,
        issue: 3,
      },
    );
    process.stderr.write(`  http: autocannon, ${CONNECTIONS} connections, ${HTTP_SECONDS} s…\n`);
    const rps = await httpRequestsPerSecond();
    if (rps === null) {
      process.stderr.write("  http: skipped, autocannon is not installed (npm install)\n");
    } else {
      const inProcessRps = 1_000_000 / transportUs;
      figures.push(
        {
          name: `HTTP loopback, ${CONNECTIONS} connections`,
          value: rps,
          unit: "req/s",
          target: ">= 10000",
          ok: rps >= 10_000,
          issue: 3,
        },
        {
          name: "in-process, one caller (1e6 / median)",
          value: inProcessRps,
          unit: "req/s",
          target: "(info)",
          ok: true,
          issue: 3,
        },
        {
          name: "ratio HTTP / in-process",
          value: rps / inProcessRps,
          unit: "x",
          target: "(info)",
          ok: true,
          issue: 3,
        },
      );
    }
    const mb = await memoryOfTrials(1_000);
    figures.push({
      name: "heap of 1,000 live trial states",
      value: mb,
      unit: "MB",
      target: "<= 200",
      ok: mb <= 200,
      issue: 3,
    });
    return figures;
  },
};

export default bench;
