import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { bankFromContent } from "../../bank/bank.js";
import { defaultBankContent } from "../../generate/default-bank.js";
import { openStore } from "../../run/store.js";

const ROOT = resolve(import.meta.dirname, "../../..");
const FIXTURE = join(ROOT, "test/support/golden-mcp-client.ts");
const MAIN = join(ROOT, "src/cli/main.ts");

describe("apiflow mcp over stdio", () => {
  it("serves a trial to an SDK client (a child process that launches it), grades and stores it", () => {
    const bank = bankFromContent(defaultBankContent());
    const task = bank.tasks.find((t) => t.kind === "solo" && t.world === "clinical-scheduling");
    if (!task) throw new Error("no task");
    const dir = mkdtempSync(join(tmpdir(), "apiflow-mcp-cli-"));
    const taskFile = join(dir, "task.json");
    writeFileSync(taskFile, JSON.stringify(task));
    const runDir = join(dir, "run");
    const server = [
      "node",
      "--import",
      "tsx",
      MAIN,
      "mcp",
      "--task",
      task.id,
      "--epoch",
      "2",
      "--out",
      runDir,
    ];
    const out = spawnSync("node", ["--import", "tsx", FIXTURE, "stdio", taskFile], {
      cwd: ROOT,
      env: { ...process.env, APIFLOW_TEST_SERVER_CMD: JSON.stringify(server) },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toContain(`${task.id} epoch 2: golden-mcp-client pass (stored in ${runDir}; salt `);
    const store = openStore(runDir, { readonly: true });
    const rows = [...store.all()];
    store.close();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      // Named by the client's clientInfo.name.
      agent: "golden-mcp-client",
      task_id: task.id,
      epoch: 2,
      outcome: "pass",
      stop_reason: "answered",
    });
  }, 90_000);
});
