import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TranscriptSchema } from "../trial/transcript-schema.js";
import { parseTranscriptBytes } from "./transcript-header.js";

const SAMPLE = new URL("../../../shared/data/official-transcripts-sample", import.meta.url).pathname;

/** A minimal valid transcript as JSON text, with `failure_reason` spliced in verbatim. */
const transcript = (failureReasonJson: string, extra = "") =>
  Buffer.from(
    `{"schema_version":"1.0","model":"m","task_id":"v56-w01-sub01","trial":1,"verdict":"I","passed":false,` +
      `"failure_reason":${failureReasonJson},"messages":[{"role":"user","content":"h\\u00e9llo ✓"}${extra}],"verifier":null}`,
    "utf8",
  );

describe("parseTranscriptBytes", () => {
  it("reads every sample file's header exactly as a UTF-8 parse with the full schema does", () => {
    let files = 0;
    for (const model of readdirSync(SAMPLE, { withFileTypes: true })) {
      if (!model.isDirectory()) continue;
      for (const name of readdirSync(join(SAMPLE, model.name))) {
        const bytes = readFileSync(join(SAMPLE, model.name, name));
        const full = TranscriptSchema.parse(JSON.parse(bytes.toString("utf8")));
        const fast = parseTranscriptBytes(bytes);
        if (!fast.success) throw new Error(`${name}: ${fast.error.message}`);
        const { messages, verifier, provenance: _p, ...header } = full;
        const { scorer, value, explanation, metadata } = verifier ?? {};
        const sub = metadata?.sub_predicates;
        const flag = (v: unknown) => (typeof v === "boolean" ? v : null);
        expect(fast.data).toEqual({
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
        files++;
      }
    }
    expect(files).toBe(242);
  });

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
