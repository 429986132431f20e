import type { Command } from "commander";
import { DEFAULT_LIMITS, type TrialLimits } from "../trial/stop-conditions.js";
import { UsageError } from "./io.js";

/** The trial limit flags as commander hands them over. */
export interface TrialLimitFlags {
  maxToolCalls: string;
  maxTokens: string;
  maxSeconds: string;
}

/**
 * The trial limits of every command that plays trials (`run`, `mcp`): one set of flags, one
 * reading, so a trial has the same limits whichever command served it.
 *
 * @example addTrialLimitFlags(program.command("run")).action((opts) => trialLimitsFromFlags(opts))
 */
export function addTrialLimitFlags(command: Command): Command {
  return command
    .option("--max-tool-calls <n>", "tool-call limit per trial", String(DEFAULT_LIMITS.maxToolCalls))
    .option("--max-tokens <n>", "token limit per trial", String(DEFAULT_LIMITS.maxTokens))
    .option("--max-seconds <n>", "wall-time limit per trial", String(DEFAULT_LIMITS.maxSeconds));
}

/** The limits the flags name; a value that is not a positive number is a usage error. */
export function trialLimitsFromFlags(flags: TrialLimitFlags): TrialLimits {
  const positive = (text: string, flag: string, integer: boolean): number => {
    const n = Number(text);
    if (!(integer ? Number.isInteger(n) : Number.isFinite(n)) || n <= 0)
      throw new UsageError(
        `${flag} must be a positive ${integer ? "integer" : "number"}, got ${JSON.stringify(text)}`,
      );
    return n;
  };
  return {
    maxToolCalls: positive(flags.maxToolCalls, "--max-tool-calls", true),
    maxTokens: positive(flags.maxTokens, "--max-tokens", true),
    maxSeconds: positive(flags.maxSeconds, "--max-seconds", false),
  };
}
