import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MALFORMED_FIXTURES, OFFICIAL_FIXTURES, officialSample } from "../../test/support/official-sample.js";
import { skipWithout } from "../../test/support/skip-without.js";
import { TranscriptSchema } from "../trial/transcript-schema.js";
import { parseTranscriptBytes } from "./transcript-header.js";

const sample = officialSample();

/**
 * Parse every `<model>/*.json` under `dir` with the header parser and with the full schema: a file
 * the full parse accepts gives exactly its header; one it rejects is rejected. Returns the files read
 * and how many were rejected.
 */
function compareWithFullParse(dir: string): { files: number; rejected: number } {
  let files = 0;
  let rejected = 0;
  for (const model of readdirSync(dir, { withFileTypes: true })) {
    if (!model.isDirectory()) continue;
    for (const name of readdirSync(join(dir, model.name))) {
      const bytes = readFileSync(join(dir, model.name, name));
      files++;
      const fast = parseTranscriptBytes(bytes);
      let full: ReturnType<typeof TranscriptSchema.parse>;
      try {
        full = TranscriptSchema.parse(JSON.parse(bytes.toString("utf8")));
      } catch {
        expect(fast.success, name).toBe(false);
        rejected++;
        continue;
      }
      if (!fast.success) throw new Error(`${name}: ${fast.error.message}`);
      const { messages, verifier, provenance: _p, ...header } = full;
      const { scorer, value, explanation, metadata } = verifier ?? {};
      const sub = metadata?.sub_predicates;
      const flag = (v: unknown) => (typeof v === "boolean" ? v : null);
      expect(fast.data, name).toEqual({
        ...header,
        message_count: messages.length,
        verifier: verifier && {
          scorer,
          value,
          explanation,
          metadata: {
            sub_predicates: { g1_passed: flag(sub?.g1_passed), g2_passed: flag(sub?.g2_passed) },
            ...(metadata && "partial_score" in metadata ? { partial_score: metadata.partial_score } : {}),
          },
        },
      });
    }
  }
  return { files, rejected };
}

/** A minimal valid transcript as JSON text, with `failure_reason` spliced in verbatim. */
const transcript = (failureReasonJson: string, extra = "") =>
  Buffer.from(
    `{"schema_version":"1.0","model":"m","task_id":"v56-w01-sub01","trial":1,"verdict":"I","passed":false,` +
      `"failure_reason":${failureReasonJson},"messages":[{"role":"user","content":"h\\u00e9llo ✓"}${extra}],"verifier":null}`,
    "utf8",
  );

describe("parseTranscriptBytes", () => {
  it("reads every fixture file's header exactly as a UTF-8 parse with the full schema does", () => {
    // 27 well-formed trials (raw `✓` and `—` beside `\u2014` escapes, null verifiers, reasoning parts).
    expect(compareWithFullParse(OFFICIAL_FIXTURES)).toEqual({ files: 27, rejected: 0 });
    // Not JSON, cut short, a BOM, no model, messages not an array: both parsers reject the same five.
    expect(compareWithFullParse(MALFORMED_FIXTURES)).toEqual({ files: 9, rejected: 5 });
  });

  it.skipIf(skipWithout("the published 1.0 sample", sample.missing))(
    "reads every file of the published 1.0 sample as the full parse does (APIFLOW_OFFICIAL_SAMPLE)",
    () => {
      expect(compareWithFullParse(sample.dir!)).toEqual({ files: 242, rejected: 0 });
    },
  );

  it("mends raw UTF-8 in kept strings, next to escapes above U+00FF", () => {
    const r = parseTranscriptBytes(transcript(`"G1 ✓ — caf\u00e9 \\u2713 😀"`));
    expect(r.success && r.data.failure_reason).toBe("G1 ✓ — café ✓ 😀");
  });

  it("parses again as UTF-8 when the file escapes a char in U+0080–U+00FF", () => {
    // `\u00e9` escaped in the messages and `é` raw in the kept string: Latin-1 alone cannot tell them apart.
    const r = parseTranscriptBytes(transcript(`"caf\u00e9 \\u00e9 ✓"`));
    expect(r.success && r.data.failure_reason).toBe("café é ✓");
  });

  it("checks only the header: messages must be an array, their content is not read", () => {
    const ok = parseTranscriptBytes(transcript(`""`, `,{"role":"robot"}`));
    expect(ok.success).toBe(true);
    const noMessages = parseTranscriptBytes(Buffer.from(JSON.stringify({ schema_version: "1.0" })));
    expect(noMessages.success).toBe(false);
    if (!noMessages.success) expect(noMessages.error.code).toBe("schema");
  });

  it("rejects what a UTF-8 JSON.parse rejects, with its message", () => {
    for (const text of ["{ not json", "\ufeff{}", '{"a":"é', ""]) {
      const bytes = Buffer.from(text, "utf8");
      const r = parseTranscriptBytes(bytes);
      expect(r.success).toBe(false);
      if (r.success) continue;
      expect(r.error.code).toBe("invalid_json");
      expect(() => JSON.parse(bytes.toString("utf8"))).toThrow(r.error.message);
    }
  });
});
