import { statSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The fixture transcripts in the 1.0 layout (written by `official-fixtures.ts`): 27 trials, 5 models. */
export const OFFICIAL_FIXTURES = fileURLToPath(new URL("../fixtures/official-1.0", import.meta.url));

/** Malformed 1.0 files beside one good one (`brook-7b/v56-w04-sub03-t4.json`). */
export const MALFORMED_FIXTURES = fileURLToPath(
  new URL("../fixtures/official-1.0-malformed", import.meta.url),
);

/**
 * The published APIFlow-Bench 1.0 transcripts sample, when `APIFLOW_OFFICIAL_SAMPLE` names it
 * (set by `.ci/run`; tests never look outside the repository on their own): `{ dir }`, or
 * `{ missing }` saying why there is none, for the skip message.
 */
export function officialSample():
  | { dir: string; missing?: undefined }
  | { dir?: undefined; missing: string } {
  const given = process.env.APIFLOW_OFFICIAL_SAMPLE;
  if (!given) return { missing: "APIFLOW_OFFICIAL_SAMPLE is unset" };
  const dir = resolve(given);
  const isDir = (() => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  })();
  return isDir ? { dir } : { missing: `APIFLOW_OFFICIAL_SAMPLE=${given} is not a directory` };
}
