import type { Command } from "commander";
import type { CliIo } from "../io.js";
import { register as registerCompare } from "./compare.js";
import { register as registerExplain } from "./explain.js";
import { register as registerGenerate } from "./generate.js";
import { register as registerImport } from "./import.js";
import { registerMcp } from "./mcp.js";
import { register as regradeRun } from "./regrade.js";
import { register as regradeOfficial } from "./regrade-official.js";
import { register as registerReport } from "./report.js";
import { registerRun } from "./run.js";
import { registerServe } from "./serve.js";
import { registerVerify } from "./verify.js";
import { register as registerView } from "./view.js";
import { registerWorker } from "./worker.js";

/** Sets the exit code of the running command (commands never call `process.exit`). */
export type SetExit = (code: number) => void;

/**
 * Every `apiflow` subcommand, one module each. A module exports `register(program, io, setExit)`
 * that adds its command to the program; add one line here per command.
 */
export function registerCommands(program: Command, io: CliIo, setExit: SetExit): void {
  for (const register of COMMANDS) register(program, io, setExit);
}

type Register = (program: Command, io: CliIo, setExit: SetExit) => void;

const COMMANDS: Register[] = [
  registerRun,
  registerServe,
  regradeOfficial,
  regradeRun,
  registerExplain,
  registerImport,
  registerReport,
  registerCompare,
  registerView,
  registerVerify,
  registerGenerate,
  registerWorker,
  registerMcp,
];
