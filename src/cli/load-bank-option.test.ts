import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadBank } from "../bank/load-bank.js";
import { bankFromOption, defaultBankCacheDir } from "./load-bank-option.js";

describe("the default bank", () => {
  const cwd = mkdtempSync(join(tmpdir(), "apiflow-default-bank-"));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("is generated on first use and cached on disk; a stale or damaged cache is replaced", () => {
    const first = bankFromOption(undefined, cwd);
    const cache = defaultBankCacheDir(cwd);
    const cached = loadBank(cache);
    expect(cached.success && cached.data.manifest.content_hash).toBe(first.manifest.content_hash);
    expect(bankFromOption(undefined, cwd).manifest.content_hash).toBe(first.manifest.content_hash);

    const manifestPath = join(cache, "manifest.json");
    writeFileSync(
      manifestPath,
      readFileSync(manifestPath, "utf8").replace(/"seed": "[^"]*"/, '"seed": "tampered"'),
    );
    expect(loadBank(cache).success).toBe(false);
    expect(bankFromOption(undefined, cwd).manifest.content_hash).toBe(first.manifest.content_hash);
    expect(loadBank(cache).success).toBe(true);
  });

  it("a missing --bank folder is a one-line user error", () => {
    expect(() => bankFromOption("no/such/bank", cwd)).toThrow(/^no bank at no\/such\/bank/);
  });
});
