import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../trial/transcript-schema.js";
import { extractAnswerCard, finalAssistantText } from "./answer-card.js";

const fence = (body: string, tag = "json") => `\`\`\`${tag}\n${body}\n\`\`\``;

describe("extractAnswerCard", () => {
  it("reads the object in a ```json block, ignoring text around it", () => {
    const text = `The call succeeded.\n\n${fence('{"trip_ref": "trip-7c2e-2201", "distance_km": 284.6}')}\n\nAnything else?`;
    expect(extractAnswerCard(text)).toEqual({
      success: true,
      data: { trip_ref: "trip-7c2e-2201", distance_km: 284.6 },
    });
  });

  it("takes the LAST ```json block when an earlier one quotes a response body (as 1.0 did)", () => {
    // kimi-k3/v56-w10-sub17-t3 and five more sample trials: 1.0 graded the last block.
    const text = [
      "The snapshot:",
      fence('{"snapshot_id": "snap-7c2e-2201", "stop_id": "stop-union-91"}'),
      "So the answer:",
      fence('{"alert_id": "alrt-9f3a", "status": "publishing"}'),
    ].join("\n");
    expect(extractAnswerCard(text)).toEqual({
      success: true,
      data: { alert_id: "alrt-9f3a", status: "publishing" },
    });
  });

  it("ignores bare ``` blocks, even after the ```json one", () => {
    const text = `${fence('{"a": 1}')}\n${fence('{"a": 2}', "")}`;
    expect(extractAnswerCard(text)).toEqual({ success: true, data: { a: 1 } });
    const r = extractAnswerCard(fence('{"a": 2}', ""));
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.code).toBe("no-json-block");
  });

  it("ignores other tags (```JSON, ```jsonc) and JSON outside any fence", () => {
    for (const text of [
      fence('{"a": 1}', "JSON"),
      fence('{"a": 1}', "jsonc"),
      '{"a": 1}',
      'Answer: `{"a": 1}`',
    ]) {
      const r = extractAnswerCard(text);
      expect(r.success, text).toBe(false);
    }
  });

  it("does not fall back to an earlier block when the last one is not JSON", () => {
    const r = extractAnswerCard(`${fence('{"a": 1}')}\n${fence('"geofence_events": {"canonical": "/v3"}')}`);
    expect(r.success).toBe(false);
    if (!r.success) expect(r.error.code).toBe("card-not-json");
  });

  it("rejects trailing commas, comments and a second value inside the block (JSON, strictly)", () => {
    for (const body of ['{"a": 1,}', '{"a": 1} // done', '{"a": 1}\n{"b": 2}']) {
      const r = extractAnswerCard(fence(body));
      expect(r.success, body).toBe(false);
    }
  });

  it("needs an object: an array, a string or null is no card", () => {
    for (const body of ['["a"]', '"a"', "null", "3"]) {
      const r = extractAnswerCard(fence(body));
      expect(r.success).toBe(false);
      if (!r.success) expect(r.error.code).toBe("card-not-object");
    }
  });

  it("keeps values as JSON gives them: numeric strings, null, nested objects", () => {
    const r = extractAnswerCard(fence('{"committed_count": "3", "schedule_id": null, "meta": {"x": [1]}}'));
    expect(r).toEqual({ success: true, data: { committed_count: "3", schedule_id: null, meta: { x: [1] } } });
  });

  it("accepts a card on one line and a fence with no newline before the closing ticks", () => {
    expect(extractAnswerCard('```json {"a": 1}```')).toEqual({ success: true, data: { a: 1 } });
  });

  it("finds no card in an empty message or an unclosed fence", () => {
    expect(extractAnswerCard("").success).toBe(false);
    expect(extractAnswerCard('```json\n{"a": 1}').success).toBe(false);
  });
});

describe("finalAssistantText", () => {
  const assistant = (content: TranscriptMessage["content"], toolCalls = false): TranscriptMessage => ({
    role: "assistant",
    content,
    ...(toolCalls ? { tool_calls: [{ id: "c1", name: "search", arguments: {} }] } : {}),
  });

  it("joins the text parts of the last assistant message, skipping reasoning", () => {
    const messages: TranscriptMessage[] = [
      { role: "user", content: "ticket" },
      assistant("an earlier answer"),
      assistant([
        { type: "reasoning", reasoning: '```json\n{"draft": 1}\n```' },
        { type: "text", text: "I am blocked." },
        { type: "text", text: '```json\n{"a": "unknown"}\n```' },
      ]),
    ];
    expect(finalAssistantText(messages)).toBe('I am blocked.\n```json\n{"a": "unknown"}\n```');
  });

  it("reads the last assistant message even when it calls tools and a tool result follows", () => {
    const messages: TranscriptMessage[] = [
      assistant('```json\n{"a": 1}\n```'),
      assistant("Let me retry.", true),
      { role: "tool", content: "{}", tool_call_id: "c1", function: "search" },
    ];
    expect(finalAssistantText(messages)).toBe("Let me retry.");
  });

  it("gives the empty string with no assistant message or no text part", () => {
    expect(finalAssistantText([{ role: "user", content: "ticket" }])).toBe("");
    expect(finalAssistantText([assistant([{ type: "reasoning", reasoning: "hmm" }])])).toBe("");
    expect(finalAssistantText([assistant([])])).toBe("");
  });
});
