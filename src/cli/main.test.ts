import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

/** Runs the CLI with its stdout piped to a reader that has closed before the CLI writes. */
function runWithEarlyClosingReader(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.destroy();
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("apiflow main", () => {
  it("stops quietly when its reader closes the pipe (apiflow --help | head)", async () => {
    const { code, stderr } = await runWithEarlyClosingReader(["run", "--help"]);
    expect(stderr).not.toMatch(/EPIPE|internal error|at .*\.js:\d+/);
    expect(code).toBe(0);
  }, 60_000);
});
