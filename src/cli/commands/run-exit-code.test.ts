import { describe, expect, it } from "vitest";
import { trial } from "../../../test/support/test-records.js";
import { EXIT_COST_LIMIT, EXIT_UNSCORED, runExitCode } from "./run.js";

describe("apiflow run's exit code", () => {
  const scored = [trial("m", "v56-w01-sub01", 1, "pass"), trial("m", "v56-w01-sub02", 1, "fail")];
  const unscored = [...scored, trial("m", "v56-w01-sub03", 1, "provider_error")];

  it("is 0 when the whole grid ran and was scored", () => {
    expect(runExitCode({ records: scored, refused: [], costLimitReached: false })).toBe(0);
  });

  it("is 3 when --cost-limit stopped the run with trials not run", () => {
    expect(EXIT_COST_LIMIT).toBe(3);
    expect(runExitCode({ records: scored, refused: [], costLimitReached: true })).toBe(3);
  });

  it("is 1 when a trial ended unscored or a key was refused, even at the cost limit", () => {
    expect(EXIT_UNSCORED).toBe(1);
    for (const costLimitReached of [false, true]) {
      expect(runExitCode({ records: unscored, refused: [], costLimitReached })).toBe(1);
      expect(runExitCode({ records: scored, refused: ["m"], costLimitReached })).toBe(1);
    }
  });
});
