import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** A Redis for queue tests: its URL, and how to stop it if the fixture started it. */
export interface TestRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * The Redis the queue tests run against: `APIFLOW_TEST_REDIS` when set (CI starts Debian's
 * redis-server and exports it), else a private `redis-server` on a free loopback port when one is on
 * PATH. Without either, `null` outside CI (the caller skips, saying why) and an error in CI, so a CI
 * run never passes by skipping the queue tests.
 */
export async function testRedis(): Promise<TestRedis | null> {
  const given = process.env.APIFLOW_TEST_REDIS;
  if (given) return { url: given, stop: async () => {} };
  const found = spawnSync("redis-server", ["--version"], { stdio: "ignore" });
  if (found.error || found.status !== 0) {
    if (process.env.CI === "true" || process.env.CI === "1")
      throw new Error(
        "queue tests need Redis in CI: set APIFLOW_TEST_REDIS=redis://127.0.0.1:PORT or put redis-server on PATH (.ci/run does both)",
      );
    return null;
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const url = `redis://127.0.0.1:${port}`;
  await waitForPort(port);
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number): Promise<void> {
  const { Socket } = await import("node:net");
  for (let i = 0; i < 200; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once("connect", () => {
        s.destroy();
        resolve(true);
      });
      s.once("error", () => resolve(false));
      s.connect(port, "127.0.0.1");
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis-server did not listen on 127.0.0.1:${port}`);
}
