import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { testRedis } from "../../../test/support/redis-server.js";
import { skeletonBank } from "../../../test/support/skeleton-bank.js";
import { writeBank } from "../../bank/load-bank.js";
import { skeletonBankContent } from "../../generate/skeleton-bank.js";
import { parseQueueUrl } from "../../queue/queue-url.js";
import { startQueueWorker } from "../../queue/queue-worker.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const tmp = () => mkdtempSync(join(tmpdir(), "apiflow-progress-"));
const bankDir = tmp();
writeBank(bankDir, skeletonBankContent());
const tasks = skeletonBank().tasks.length;
const redis = await testRedis();
afterAll(async () => {
  await redis?.stop();
});

/** The last progress line of each agent that a non-terminal stderr got. */
function lastProgress(err: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of err.split("\n")) {
    const m = /^progress: (\S+)\s+(.*)$/.exec(line);
    if (m) out.set(m[1] as string, m[2] as string);
  }
  return out;
}

describe("apiflow run hands its progress display to the runner", () => {
  it("locally: a non-terminal stream gets progress lines that count every trial", async () => {
    const io = bufferIo();
    const args = ["run", "--bank", bankDir, "--agent", "golden", "blank", "--epochs", "2", "--out", tmp()];
    expect(await runCli([...args, "--progress-every", "0.01"], io)).toBe(0);
    const last = lastProgress(io.err());
    expect(last.get("golden")).toMatch(
      new RegExp(`^${tasks * 2}/${tasks * 2}  ${tasks * 2} pass  0 retries  \\$0\\.00$`),
    );
    expect(last.get("blank")).toMatch(new RegExp(`^${tasks * 2}/${tasks * 2}  0 pass`));
  });

  it.skipIf(!redis)(
    "through the queue: the coordinator's progress counts every trial a worker ran",
    async () => {
      const address = parseQueueUrl(redis?.url ?? "");
      if (!address.success) throw new Error(address.error.message);
      const queueName = `progress-${Date.now()}`;
      const worker = await startQueueWorker({
        address: address.data,
        queueName,
        bank: skeletonBank(),
        concurrency: 4,
        env: {},
        cwd: process.cwd(),
        log: () => {},
      });
      if (!worker.success) throw new Error(worker.error.message);
      try {
        const io = bufferIo();
        const args = ["run", "--bank", bankDir, "--agent", "golden", "--epochs", "2", "--out", tmp()];
        const queue = ["--queue", redis?.url ?? "", "--queue-name", queueName, "--progress-every", "0.01"];
        expect(await runCli([...args, ...queue], io), io.err()).toBe(0);
        expect(lastProgress(io.err()).get("golden")).toMatch(
          new RegExp(`^${tasks * 2}/${tasks * 2}  ${tasks * 2} pass`),
        );
      } finally {
        await worker.data.close();
      }
    },
  );
});
