import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OFFICIAL_FIXTURES, officialSample } from "../../../test/support/official-sample.js";
import { skipWithout } from "../../../test/support/skip-without.js";
import { bufferIo } from "../io.js";
import { runCli } from "../program.js";

const sample = officialSample();

describe("apiflow regrade-official", () => {
  let tmp: string;
  beforeEach(async () => {
    tmp = await mkdtemp(join(tmpdir(), "apiflow-regrade-cli-"));
  });
  afterEach(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("prints the figures for the fixture transcripts and writes --json, exit 0", async () => {
    const out = join(tmp, "regrade.json");
    const io = bufferIo();
    const code = await runCli(["regrade-official", OFFICIAL_FIXTURES, "--json", out], io);
    expect(io.err()).toBe("");
    expect(code).toBe(0);
    expect(io.out()).toMatch(/trials read\s+27\n/);
    expect(io.out()).toMatch(/G2 fields compared\s+50\n/);
    expect(io.out()).toMatch(/fields differing\s+0\n/);
    expect(io.out()).toMatch(/trials whose G2 differs\s+0\n/);
    expect(io.out()).toMatch(/unscored trials\s+2\n/);
    const json = JSON.parse(await readFile(out, "utf8"));
    expect(json).toMatchObject({
      trials: 27,
      fields: 50,
      field_disagreements: 0,
      trial_disagreements: 0,
      unscored: 2,
    });
  });

  it.skipIf(skipWithout("the published 1.0 sample", sample.missing))(
    "prints the figures for the published 1.0 sample (APIFLOW_OFFICIAL_SAMPLE) and writes --json",
    async () => {
      const out = join(tmp, "regrade.json");
      const io = bufferIo();
      const code = await runCli(["regrade-official", sample.dir!, "--json", out], io);
      expect(io.err()).toBe("");
      expect(code).toBe(0);
      expect(io.out()).toMatch(/trials read\s+242/);
      expect(io.out()).toMatch(/G2 fields compared\s+502/);
      expect(io.out()).toMatch(/fields differing\s+0/);
      expect(io.out()).toMatch(/trials whose G2 differs\s+0/);
      expect(io.out()).toMatch(/unscored trials\s+2/);
      const json = JSON.parse(await readFile(out, "utf8"));
      expect(json).toMatchObject({
        trials: 242,
        fields: 502,
        field_disagreements: 0,
        trial_disagreements: 0,
        unscored: 2,
      });
    },
  );

  it("lists malformed files and disagreements, and exits 1", async () => {
    await mkdir(join(tmp, "m"));
    await writeFile(join(tmp, "m", "broken-t1.json"), "{");
    const trial = {
      schema_version: "1.0",
      model: "m",
      task_id: "t",
      trial: 1,
      verdict: "C",
      passed: true,
      messages: [{ role: "assistant", content: "no card here" }],
      verifier: {
        scorer: "s",
        value: "C",
        explanation: "",
        metadata: {
          predicates: [
            {
              label: "x",
              group: "G2",
              passed: true,
              detail: { field: "n", expected: 3, comparator: "numeric", got: 3 },
            },
          ],
        },
      },
    };
    await writeFile(join(tmp, "m", "t-t1.json"), JSON.stringify(trial));
    const io = bufferIo({}, tmp);
    const code = await runCli(["regrade-official", "."], io);
    expect(code).toBe(1);
    expect(io.out()).toContain("m/broken-t1.json: not-json");
    expect(io.out()).toContain("first 1 of 1 disagreements:");
    expect(io.out()).toContain("m/t-t1.json n [passed]: recorded pass got=3, ours fail got=(absent)");
  });

  it("reports a missing directory in one line, exit 2", async () => {
    const io = bufferIo();
    const code = await runCli(["regrade-official", join(tmp, "nope")], io);
    expect(code).toBe(2);
    expect(io.err()).toBe(`apiflow: regrade-official: no such directory: ${join(tmp, "nope")}\n`);
  });
});
