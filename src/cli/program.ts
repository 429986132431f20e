import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index.js";
import { type CliIo, UsageError } from "./io.js";

export const VERSION = "0.1.0";

/**
 * Run the `apiflow` CLI on an argument list and return the exit code. Only `main.ts` touches
 * `process.argv` and `process.exit`; tests call this directly.
 *
 * @example const code = await runCli(["run", "--agent", "golden", "--json"], io);
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const program = new Command("apiflow")
    .description("APIFlow-Bench: long, dependent REST-API workflows for tool-using LLM agents")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError(false);
  let exitCode = 0;
  registerCommands(program, io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...args], { from: "user" });
    return exitCode;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === "commander.helpDisplayed" || e.code === "commander.version" ? 0 : e.exitCode || 2;
    }
    if (e instanceof UsageError) {
      io.stderr(`apiflow: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
}
