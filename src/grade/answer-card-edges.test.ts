import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../trial/transcript-schema.js";
import { extractAnswerCard, finalAssistantText } from "./answer-card.js";
import { gradeAnswerCard } from "./grade-answer-field.js";

/**
 * The answer card's error messages word for word and its edges (issue 21: mutation testing): the
 * messages are what a failure reason shows the user.
 */
const block = (body: string) => `\`\`\`json\n${body}\n\`\`\``;

describe("extractAnswerCard: why there is no card", () => {
  it("no fenced block", () => {
    expect(extractAnswerCard("no card here")).toEqual({
      success: false,
      error: { code: "no-json-block", message: "the final message has no ```json fenced block" },
    });
  });

  it("a block holding no object names what it holds", () => {
    for (const [body, kind] of [
      ["[1]", "an array"],
      ["null", "null"],
      ['"s"', "a string"],
      ["3", "a number"],
      ["true", "a boolean"],
    ] as const) {
      expect(extractAnswerCard(block(body))).toEqual({
        success: false,
        error: {
          code: "card-not-object",
          message: `the last \`\`\`json block holds ${kind}, not a JSON object`,
        },
      });
    }
  });

  it("a last block that does not parse, with no declared field, is named as the last", () => {
    const res = extractAnswerCard(block("{,}"));
    expect(res.success).toBe(false);
    if (!res.success) {
      expect(res.error.code).toBe("card-not-json");
      expect(res.error.message).toMatch(/^the last ```json block is not valid JSON: ./);
    }
  });

  it("a broken card after a readable one of the same shape is the card, and unreadable", () => {
    const res = extractAnswerCard(`${block('{"a": 2}')}\n${block('{"a": 1,}')}`, ["a"]);
    expect(res.success).toBe(false);
    if (!res.success) expect(res.error.code).toBe("card-not-json");
  });
});

describe("extractAnswerCard: reading the block", () => {
  it("whitespace JSON does not allow (a no-break space) around the object is trimmed", () => {
    expect(extractAnswerCard('```json\u00A0{"a": 1}\u00A0```', ["a"])).toEqual({
      success: true,
      data: { a: 1 },
    });
  });
});

describe("gradeAnswerCard", () => {
  it("passes its fields to choose the card: a quoted body after the card does not displace it", () => {
    const message = `${block('{"status": "done"}')}\nThe body I sent:\n${block('{"note": "x"}')}`;
    const grade = gradeAnswerCard([{ field: "status", comparator: "string", expected: "done" }], message);
    expect(grade.card_found).toBe(true);
    expect(grade.passed).toBe(true);
  });

  it("sorts a set by code point, a prefix first", () => {
    const grade = gradeAnswerCard(
      [{ field: "tags", comparator: "set", expected: ["ab", "a"] }],
      block('{"tags": ["x"]}'),
    );
    expect(grade.fields[0]?.reason).toBe("set ['x'] != expected ['a', 'ab']");
  });
});

describe("finalAssistantText: the first message", () => {
  it("an assistant message at index 0 is read", () => {
    const messages: TranscriptMessage[] = [{ role: "assistant", content: "only me" }];
    expect(finalAssistantText(messages)).toBe("only me");
    expect(finalAssistantText([{ role: "assistant", content: [{ type: "text", text: "parts" }] }])).toBe(
      "parts",
    );
  });
});
