import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { writeMalformedFixtures, writeOfficialFixtures } from "./support/official-fixtures.js";
import { MALFORMED_FIXTURES, OFFICIAL_FIXTURES } from "./support/official-sample.js";

/** Every file under `dir`, relative, with its bytes. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out[relative(dir, path)] = readFileSync(path).toString("base64");
    }
  };
  walk(dir);
  return out;
}

describe("the fixture transcripts", () => {
  it("are exactly what `npm run fixtures:official` writes (no hand edits, no drift)", () => {
    const root = mkdtempSync(join(tmpdir(), "apiflow-fixtures-"));
    writeOfficialFixtures(join(root, "ok"));
    writeMalformedFixtures(join(root, "bad"));
    const committed = tree(OFFICIAL_FIXTURES);
    expect(Object.keys(committed)).toHaveLength(28); // 27 trials and the manifest
    expect(tree(join(root, "ok"))).toEqual(committed);
    expect(tree(join(root, "bad"))).toEqual(tree(MALFORMED_FIXTURES));
  });

  it("hold the shapes the published sample shows", () => {
    const files = Object.keys(tree(OFFICIAL_FIXTURES)).filter((f) => !f.startsWith("_"));
    const read = (f: string) => JSON.parse(readFileSync(join(OFFICIAL_FIXTURES, f), "utf8"));
    const all = files.map((f) => ({ f, t: read(f), text: readFileSync(join(OFFICIAL_FIXTURES, f), "utf8") }));
    const finalText = (t: { messages: Array<{ role: string; content: unknown }> }) => {
      const last = [...t.messages].reverse().find((m) => m.role === "assistant");
      const c = last?.content;
      return typeof c === "string"
        ? c
        : ((c as Array<{ text?: string }>) ?? []).map((p) => p.text ?? "").join("\n");
    };
    const count = (pred: (x: (typeof all)[number]) => boolean) => all.filter(pred).length;
    expect(new Set(all.map((x) => x.t.model)).size).toBe(5);
    expect(count((x) => x.t.verdict === "" && x.t.verifier === null && x.t.passed === null)).toBe(2);
    expect(count((x) => /-chain-1to\d+$/.test(x.t.task_id))).toBe(11);
    expect(count((x) => (finalText(x.t).match(/```json\s/g) ?? []).length >= 3)).toBe(1);
    expect(count((x) => /"type":"reasoning"/.test(x.text))).toBeGreaterThan(10);
    expect(count((x) => /"error":\{"type":"unknown"/.test(x.text))).toBeGreaterThan(2);
    expect(count((x) => /^agent abstained \((clarify|report_blocked)\)/.test(x.t.failure_reason))).toBe(2);
    // Raw UTF-8 in the header, `\u2014` escapes inside tool payloads.
    expect(count((x) => x.text.includes("✓"))).toBe(11);
    expect(count((x) => x.text.includes("\\\\u2014"))).toBeGreaterThan(5);
  });
});
