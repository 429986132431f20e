#!/usr/bin/env node
import { runCli } from "./program.js";

// A reader that closes the pipe early (`apiflow --help | head`) is not an error: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  isTty: Boolean(process.stdout.isTTY),
}).catch((e: unknown) => {
  process.stderr.write(`apiflow: internal error (a bug in apiflow, please report it): ${String(e)}\n`);
  if (e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  return 70;
});
process.exitCode = code;
