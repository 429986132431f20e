import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestRedis, testRedis } from "../../test/support/redis-server.js";
import { skeletonBank } from "../../test/support/skeleton-bank.js";
import { baselineAgentFactory } from "../agents/baseline-agent.js";
import { goldenAgentFactory } from "../agents/scripted-agents.js";
import { DEFAULT_PRICE_TABLE } from "../run/price-table.js";
import { regradeRun } from "../run/regrade-run.js";
import { runIntoDir } from "../run/run-into-dir.js";
import { openStore } from "../run/store.js";
import { trialLogPath } from "../run/stored-trial-log.js";
import type { TrialRecord } from "../run/trial-record.js";
import { runViaQueue } from "./queue-coordinator.js";
import { parseQueueUrl } from "./queue-url.js";
import { startQueueWorker } from "./queue-worker.js";

const redis = await testRedis();
if (!redis) console.warn("queue tests skipped: no redis-server on PATH and APIFLOW_TEST_REDIS unset");
const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-queue-"));
const comparable = (recs: Iterable<TrialRecord>) =>
  [...recs]
    .map(({ duration_s: _d, ...rest }) => rest)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe.skipIf(!redis)("queue, in process", () => {
  let r: TestRedis;
  beforeAll(() => {
    r = redis as TestRedis;
  });
  afterAll(async () => {
    await r.stop();
  });
  it("a coordinator and a worker record the same trials as the local runner", async () => {
    const parsed = parseQueueUrl(r.url);
    if (!parsed.success) throw new Error(parsed.error.message);
    const bank = skeletonBank();
    const queueName = `t-${Date.now()}-inproc`;
    const worker = await startQueueWorker({
      address: parsed.data,
      queueName,
      bank,
      concurrency: 4,
      env: {},
      cwd: process.cwd(),
      log: () => {},
    });
    if (!worker.success) throw new Error(worker.error.message);
    const agents = [
      { factory: goldenAgentFactory, settings: { kind: "scripted" as const } },
      { factory: baselineAgentFactory, settings: { kind: "scripted" as const } },
    ];
    const queued = tmp();
    const res = await runViaQueue({
      address: parsed.data,
      queueName,
      runDir: queued,
      bank,
      agents,
      epochs: 3,
      concurrency: 4,
      priceTable: DEFAULT_PRICE_TABLE,
      pollMs: 20,
      // One salt for both runs, so their canaries (and so their stored logs) are the same.
      salt: "inproc-salt",
    });
    await worker.data.close();
    if (!res.success) throw new Error(res.error.message);
    expect(res.data.ran).toBe(24);
    const local = tmp();
    const loc = await runIntoDir({
      runDir: local,
      bank,
      agents,
      epochs: 3,
      concurrency: 4,
      priceTable: DEFAULT_PRICE_TABLE,
      salt: "inproc-salt",
    });
    if (!loc.success) throw new Error(loc.error.message);
    const a = openStore(queued, { readonly: true });
    const b = openStore(local, { readonly: true });
    expect(comparable(a.all())).toEqual(comparable(b.all()));
    // The worker's stored event logs reach the run directory, the same as the local runner's.
    for (const rec of a.all()) {
      const log = (dir: string) =>
        gunzipSync(readFileSync(join(dir, trialLogPath(rec.transcript as string))));
      expect(log(queued).equals(log(local))).toBe(true);
    }
    a.close();
    b.close();
    const regraded = regradeRun({ runDir: queued, dryRun: true });
    expect(regraded).toMatchObject({ success: true, data: { regraded: 24, changed: 0, not_regradable: [] } });
  });
});
