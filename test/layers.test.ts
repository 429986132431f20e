import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import { afterAll, describe, expect, it } from "vitest";

const CONFIG = resolve(import.meta.dirname, "..", ".dependency-cruiser.cjs");

/**
 * The floor rules of `npm run lint`, applied to a planted tree: each file is a module of a fake
 * `src/`, and every case names the rule its import must break (or none).
 */
async function violations(files: Record<string, string>): Promise<Array<{ rule: string; from: string }>> {
  const root = mkdtempSync(join(tmpdir(), "apiflow-layers-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const options = await extractDepcruiseOptions(CONFIG);
  // The planted tree has no tsconfig; plain relative `.ts` imports resolve without one.
  const { tsConfig: _tsConfig, ...rest } = options;
  const result = await cruise(["src"], { ...rest, baseDir: root });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from }));
}
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const leaf = "export const x = 1;\n";

describe("the folder floors (npm run lint, dependency-cruiser)", () => {
  it("rejects a wrong-way import: world importing run", async () => {
    const found = await violations({
      "src/run/run-trial.ts": leaf,
      "src/world/engine.ts": 'import { x } from "../run/run-trial.ts";\nexport const y = x;\n',
    });
    expect(found).toEqual([{ rule: "layer-world", from: "src/world/engine.ts" }]);
  });

  it("rejects an import between siblings of one floor: certify importing generate", async () => {
    const found = await violations({
      "src/generate/protocol-variants.ts": leaf,
      "src/certify/exploit-kit.ts":
        'import type { x } from "../generate/protocol-variants.ts";\nexport type Y = typeof x;\n',
    });
    expect(found).toEqual([{ rule: "layer-certify", from: "src/certify/exploit-kit.ts" }]);
  });

  it("rejects the wrong-way edge of the old agents ↔ run cycle: agents taking retries from run", async () => {
    const found = await violations({
      "src/agents/golden-agent.ts": leaf,
      "src/run/model-call-retry.ts": leaf,
      "src/run/run-trial.ts": 'import { x } from "../agents/golden-agent.ts";\nexport const y = x;\n',
      "src/agents/model-agent.ts": 'import { x } from "../run/model-call-retry.ts";\nexport const y = x;\n',
    });
    expect(found).toEqual([{ rule: "layer-agents", from: "src/agents/model-agent.ts" }]);
  });

  it("rejects a folder on no floor, and shipped code importing test support", async () => {
    const found = await violations({
      "src/bank/bank.ts": leaf,
      "src/bank/test-banks.ts": leaf,
      "src/extras/thing.ts": 'import { x } from "../bank/bank.ts";\nexport const y = x;\n',
      "src/world/engine.ts": 'import { x } from "../bank/test-banks.ts";\nexport const y = x;\n',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        { rule: "no-floor", from: "src/extras/thing.ts" },
        { rule: "no-test-support-in-shipped-code", from: "src/world/engine.ts" },
      ]),
    );
    expect(found).toHaveLength(2);
  });

  it("accepts downward imports, and tests reaching across floors", async () => {
    const found = await violations({
      "src/bank/bank.ts": leaf,
      "src/trial/agent.ts": 'import { x } from "../bank/bank.ts";\nexport const y = x;\n',
      "src/run/run-trial.ts": 'import { y } from "../trial/agent.ts";\nexport const z = y;\n',
      "src/cli/main.ts": 'import { z } from "../run/run-trial.ts";\nexport const w = z;\n',
      "src/world/engine.test.ts": 'import { z } from "../run/run-trial.ts";\nexport const t = z;\n',
    });
    expect(found).toEqual([]);
  });
});
