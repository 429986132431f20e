/** Whether this run is CI's (`CI=true`, as `.ci/run` exports). */
export function underCi(): boolean {
  return process.env.CI === "true" || process.env.CI === "1";
}

/**
 * Whether tests that need `what` must skip, given why it is `missing` (undefined when present).
 * Outside CI they skip and one line on stderr says so; under CI a missing requirement throws
 * (the test file fails), because `.ci/run` provides the published sample, Redis and Chromium and a
 * CI run must never pass by skipping.
 *
 * @example describe.skipIf(skipWithout("the published 1.0 sample", officialSample().missing))("…", …)
 */
export function skipWithout(what: string, missing: string | undefined): boolean {
  if (missing === undefined) return false;
  if (underCi()) throw new Error(`${what} is required under CI and missing: ${missing}`);
  console.warn(`skipped: tests that need ${what}: ${missing}`);
  return true;
}
