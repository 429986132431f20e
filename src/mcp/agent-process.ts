import { spawn } from "node:child_process";

/** Default time an agent process is given between SIGTERM and SIGKILL once its trial has ended. */
export const DEFAULT_KILL_GRACE_MS = 5_000;

/** True while any process of the group `pgid` exists. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Gone already.
  }
}

/** Resolves once the group is gone, or after `ms` (false then). */
async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/**
 * End a process group: SIGTERM, then SIGKILL if anything of it is still there after `graceMs`.
 * Resolves once the group is gone (or a moment after the SIGKILL, should a process linger as a
 * zombie nobody reaps).
 */
export async function endProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  if (await groupGone(pgid, graceMs)) return;
  signalGroup(pgid, "SIGKILL");
  await groupGone(pgid, 1_000);
}

/**
 * Run an external agent's shell command in its own process group, with nothing of its output
 * kept (it may print its own credentials). Resolves with a sentence saying how it ended, once
 * the command has exited and its whole group is gone: when `signal` aborts (the trial ended),
 * or when the command exits leaving children behind, the group gets SIGTERM and, after
 * `graceMs`, SIGKILL, so no agent process outlives its trial by more than the grace period.
 *
 * @example const how = await runAgentProcess("my-agent --mcp $APIFLOW_MCP_URL", { APIFLOW_MCP_URL: url }, signal, 5_000);
 */
export function runAgentProcess(
  command: string,
  env: Record<string, string>,
  signal: AbortSignal,
  graceMs: number = DEFAULT_KILL_GRACE_MS,
): Promise<string> {
  return new Promise<string>((resolve) => {
    const child = spawn(command, {
      shell: true,
      // Its own process group, so ending the trial ends the agent and its children.
      detached: true,
      stdio: ["ignore", "ignore", "ignore"],
      env: { ...process.env, ...env },
    });
    let how: string | null = null;
    let ending: Promise<void> | null = null;
    const end = () => {
      if (ending || child.pid === undefined) return ending ?? Promise.resolve();
      ending = endProcessGroup(child.pid, graceMs);
      return ending;
    };
    const exited = new Promise<void>((done) => {
      child.on("error", (e) => {
        how ??= `the agent command could not start: ${e.message}`;
        done();
      });
      child.on("exit", (code, sig) => {
        how ??= sig ? `the agent was ended by ${sig}` : `the agent exited with status ${code}`;
        done();
      });
    });
    const stopped = new Promise<void>((done) => {
      if (signal.aborted) done();
      else signal.addEventListener("abort", () => done(), { once: true });
    });
    void Promise.race([exited, stopped])
      .then(end)
      .then(() => exited)
      .then(() => resolve(how ?? "the agent ended"));
  });
}
