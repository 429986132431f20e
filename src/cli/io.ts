/**
 * What a command may touch of the outside world. `main.ts` passes the real process streams; tests
 * pass buffers, so every command runs in-process under test.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** True when stdout is a terminal (live progress); false under test and in CI logs. */
  isTty: boolean;
}

/** A user mistake: printed as one line, exit code 2 (1 is kept for "ran, but something failed"). */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** Buffers for tests: `const io = bufferIo(); await runCli([...], io); io.out()`. */
export function bufferIo(env: Record<string, string | undefined> = {}, cwd = process.cwd()) {
  let out = "";
  let err = "";
  const io: CliIo & { out(): string; err(): string } = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    env,
    cwd,
    isTty: false,
    out: () => out,
    err: () => err,
  };
  return io;
}
