import { Command } from "commander";
import { describe, expect, it } from "vitest";
import {
  nonNegativeInt,
  nonNegativeNumber,
  oneOf,
  parsedOption,
  portOption,
  positiveInt,
  removedIntervalOption,
} from "./flags.js";
import { UsageError } from "./io.js";

/** A one-command program with the shared options, parsed like `apiflow` parses (errors thrown). */
async function parse(args: string[]) {
  let seen: Record<string, unknown> = {};
  const program = new Command("t").exitOverride();
  program
    .command("c")
    .addOption(parsedOption("--epochs <n>", "epochs", positiveInt, 5))
    .addOption(parsedOption("--temperature <t>", "temperature", nonNegativeNumber, 1))
    .addOption(portOption(0))
    .addOption(parsedOption("--retries <n>", "retries", nonNegativeInt, 2000))
    .addOption(removedIntervalOption("--bootstrap <n>"))
    .addOption(parsedOption("--mode <m>", "mode", (flag) => oneOf(flag, ["copy", "link"] as const), "link"))
    .action((opts: Record<string, unknown>) => {
      seen = opts;
    });
  await program.parseAsync(["c", ...args], { from: "user" });
  return seen;
}

describe("shared CLI flags", () => {
  it("give parsed values and parsed defaults", async () => {
    expect(await parse([])).toEqual({ epochs: 5, temperature: 1, port: 0, retries: 2000, mode: "link" });
    expect(
      await parse(["--epochs", "3", "--temperature", "0", "--port", "8080", "--mode", "copy"]),
    ).toMatchObject({ epochs: 3, temperature: 0, port: 8080, mode: "copy" });
  });

  it("refuse a bad value with a usage error naming the flag and the value", async () => {
    const cases: Array<[string[], string]> = [
      [["--epochs", "0"], '--epochs must be a positive integer, got "0"'],
      [["--epochs", "2.5"], '--epochs must be a positive integer, got "2.5"'],
      [["--temperature", "-1"], '--temperature must be a number ≥ 0, got "-1"'],
      [["--port", "70000"], '--port must be a port 0..65535, got "70000"'],
      [["--retries", ""], '--retries must be a whole number ≥ 0, got ""'],
      [
        ["--bootstrap", "2000"],
        "--bootstrap was removed: the 90% intervals are closed-form (cluster-robust over worlds, t with W-1 degrees of freedom), so there are no resamples or seed to set",
      ],
      [["--mode", "move"], '--mode must be copy, link, got "move"'],
    ];
    for (const [args, message] of cases) {
      const error = await parse(args).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, args.join(" ")).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toBe(message);
    }
  });
});
