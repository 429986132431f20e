import { Option } from "commander";
import { DEFAULT_LIMITS, type TrialLimits } from "../trial/stop-conditions.js";
import { UsageError } from "./io.js";

/**
 * The flags the commands share, as commander `Option`s whose `argParser` turns the text into its
 * value or throws a one-line `UsageError` naming the flag (exit 2). Defaults are given parsed.
 * Commands read numbers, never strings, from their options.
 */

type Parse<T> = (text: string) => T;

function numeric(flag: string, what: string, ok: (n: number) => boolean): Parse<number> {
  return (text) => {
    const n = Number(text);
    if (text.trim() === "" || !ok(n))
      throw new UsageError(`${flag} must be ${what}, got ${JSON.stringify(text)}`);
    return n;
  };
}

/** @example positiveInt("--epochs")("5") // 5; positiveInt("--epochs")("0") throws */
export const positiveInt = (flag: string) =>
  numeric(flag, "a positive integer", (n) => Number.isInteger(n) && n >= 1);
/** @example nonNegativeInt("--max-retries")("0") // 0 */
export const nonNegativeInt = (flag: string) =>
  numeric(flag, "a whole number ≥ 0", (n) => Number.isInteger(n) && n >= 0);
/** @example positiveNumber("--max-seconds")("1.5") // 1.5 */
export const positiveNumber = (flag: string) =>
  numeric(flag, "a positive number", (n) => Number.isFinite(n) && n > 0);
/** @example nonNegativeNumber("--temperature")("0") // 0 */
export const nonNegativeNumber = (flag: string) =>
  numeric(flag, "a number ≥ 0", (n) => Number.isFinite(n) && n >= 0);
/** @example portNumber("--port")("0") // 0 (a free port) */
export const portNumber = (flag: string) =>
  numeric(flag, "a port 0..65535", (n) => Number.isInteger(n) && n >= 0 && n <= 65535);

/**
 * One of a fixed set of words.
 *
 * @example oneOf("--transcripts", ["copy", "link", "reference"] as const)("link") // "link"
 */
export function oneOf<T extends string>(flag: string, values: readonly T[]): Parse<T> {
  return (text) => {
    if ((values as readonly string[]).includes(text)) return text as T;
    throw new UsageError(`${flag} must be ${values.join(", ")}, got ${JSON.stringify(text)}`);
  };
}

/**
 * An option parsed by `parse` (which names the flag in its error), with a parsed default.
 *
 * @example program.addOption(parsedOption("--epochs <n>", "trials per task", positiveInt, 5))
 */
export function parsedOption<T>(
  flags: string,
  description: string,
  parse: (flag: string) => Parse<T>,
  defaultValue?: T,
): Option {
  const option = new Option(flags, description);
  option.argParser(parse(option.long ?? flags));
  return defaultValue === undefined ? option : option.default(defaultValue);
}

/** `--bank <dir>`: a bank folder; without it, the built-in bank. */
export const bankOption = (description = "bank folder (default: the built-in bank)") =>
  new Option("--bank <dir>", description);

/** `--port <n>` on 127.0.0.1; 0 picks a free port. */
export const portOption = (defaultPort: number, description = "port; 0 picks a free one") =>
  parsedOption("--port <n>", description, portNumber, defaultPort);

/** `--epoch <n>`: which trial epoch (canaries differ per epoch). */
export const epochOption = (description = "trial epoch (canaries differ per epoch)") =>
  parsedOption("--epoch <n>", description, positiveInt, 1);

/**
 * `--bootstrap <n>` and `--seed <seed>` of `report`, `compare` and `view`, removed: the 90%
 * intervals are the closed-form cluster-robust ones (`analyze/cluster-robust.ts`, chosen by the
 * coverage simulation), with no resamples and no seed. Hidden from the help; given, the flag stops
 * the command with a one-line usage error saying so rather than being silently ignored.
 *
 * @example program.command("report").addOption(removedIntervalOption("--bootstrap <n>"))
 */
export function removedIntervalOption(flags: "--bootstrap <n>" | "--seed <seed>"): Option {
  const option = new Option(flags).hideHelp();
  option.argParser(() => {
    throw new UsageError(
      `${option.long} was removed: the 90% intervals are closed-form (cluster-robust over worlds, t with W-1 degrees of freedom), so there are no resamples or seed to set`,
    );
  });
  return option;
}

/** `--concurrency <n>`: trials in flight. */
export const concurrencyOption = (description: string) =>
  parsedOption("--concurrency <n>", description, positiveInt, 8);

/** `--base-url <url>`: the API base URL of a model (required for openai-compatible/…). */
export const baseUrlOption = (description = "API base URL (required for openai-compatible/…)") =>
  new Option("--base-url <url>", description);

/*
 * `--max-tool-calls`, `--max-tokens`, `--max-seconds`: the trial limits of every command that
 * plays trials (`run`, `mcp`), so a trial has the same limits whichever command served it.
 */

/** `--max-tool-calls <n>`: the tool-call limit per trial. */
export const maxToolCallsOption = () =>
  parsedOption("--max-tool-calls <n>", "tool-call limit per trial", positiveInt, DEFAULT_LIMITS.maxToolCalls);

/** `--max-tokens <n>`: the token limit per trial. */
export const maxTokensOption = () =>
  parsedOption("--max-tokens <n>", "token limit per trial", positiveInt, DEFAULT_LIMITS.maxTokens);

/** `--max-seconds <n>`: the wall-time limit per trial. */
export const maxSecondsOption = () =>
  parsedOption("--max-seconds <n>", "wall-time limit per trial", positiveNumber, DEFAULT_LIMITS.maxSeconds);

/**
 * The limits the three limit options name.
 *
 * @example trialLimitsOf({ maxToolCalls: 300, maxTokens: 2e6, maxSeconds: 1800, epochs: 5 }) // the three limits only
 */
export function trialLimitsOf(opts: TrialLimits): TrialLimits {
  return { maxToolCalls: opts.maxToolCalls, maxTokens: opts.maxTokens, maxSeconds: opts.maxSeconds };
}
