import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

describe("the published package", () => {
  it("builds from src/ alone: no test, no test support, nothing importing vitest or test/", () => {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(ROOT, "tsconfig.build.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        },
      },
    );
    const files = (config?.fileNames ?? []).map((f) => relative(ROOT, f));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => {
      if (!f.startsWith(`src${sep}`) || /\.test\.ts$|test-fixture|test-support/.test(f)) return true;
      const text = readFileSync(join(ROOT, f), "utf8");
      return /from\s+["'](vitest|[./]+\/test\/[^"']*)["']/.test(text);
    });
    expect(offenders).toEqual([]);
    expect(JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).files).toEqual(["dist", "README.md"]);
  });
});
