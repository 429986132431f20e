import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadAgentModule } from "./load-agent-module.js";

describe("loadAgentModule", () => {
  it("loads an Agent from a .js module and a factory from a .ts module, and explains a bad one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "apiflow-agent-"));
    writeFileSync(
      join(dir, "a.mjs"),
      'export default { name: "mine", async attempt(s) { s.finish("hi"); } };\n',
    );
    writeFileSync(
      join(dir, "b.ts"),
      'const f: { name: string; forTask: () => unknown } = { name: "typed", forTask: () => ({ name: "typed", attempt: async () => {} }) };\nexport default f;\n',
    );
    writeFileSync(join(dir, "c.mjs"), "export const nothing = 1;\n");
    const a = await loadAgentModule("a.mjs", dir);
    expect(a.success && a.data.name).toBe("mine");
    const b = await loadAgentModule("b.ts", dir);
    expect(b.success && b.data.name).toBe("typed");
    const c = await loadAgentModule("c.mjs", dir);
    expect(!c.success && c.error.message).toMatch(/must export/);
    const d = await loadAgentModule("missing.js", dir);
    expect(!d.success && d.error.message).toBe("no agent module at missing.js");
  });
});
