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

  describe("several ```json blocks: the one holding the most declared fields (issue 15 item 5)", () => {
    const declared = ["run_id", "status"];

    it("a card followed by a block quoting the request body sent stays the card", () => {
      // The ~40 trials of the full 1.0 set that 1.0 passes: the card, then the body of the last call.
      const text = [
        "Confirmed.",
        fence('{"run_id": "RUN-9AFMFG", "status": "confirmed"}'),
        "For reference, the request I sent:",
        fence('{"runId": "RUN-9AFMFG", "confirm": true, "note": "nightly"}'),
      ].join("\n");
      expect(extractAnswerCard(text, declared)).toEqual({
        success: true,
        data: { run_id: "RUN-9AFMFG", status: "confirmed" },
      });
      // With no declared fields named, the old rule still holds: the last block.
      expect(extractAnswerCard(text)).toEqual({
        success: true,
        data: { runId: "RUN-9AFMFG", confirm: true, note: "nightly" },
      });
    });

    it("the block with more declared fields wins, wherever it stands", () => {
      const text = [
        fence('{"run_id": "RUN-1", "status": "confirmed"}'),
        fence('{"status": "confirmed", "queue": "q1"}'),
      ].join("\n");
      expect(extractAnswerCard(text, declared)).toEqual({
        success: true,
        data: { run_id: "RUN-1", status: "confirmed" },
      });
      const reversed = [fence('{"status": "queued"}'), fence('{"run_id": "RUN-2", "status": "confirmed"}')];
      expect(extractAnswerCard(reversed.join("\n"), declared)).toEqual({
        success: true,
        data: { run_id: "RUN-2", status: "confirmed" },
      });
    });

    it("a tie on declared fields goes to the block with the fewest other keys", () => {
      // A block quoting the whole record after the card holds the card's fields and more: it does
      // not displace the card.
      const card = fence('{"run_id": "RUN-9AFMFG", "status": "confirmed"}');
      const record = fence(
        '{"run_id": "RUN-5KRT67", "status": "confirmed", "created_at": "2026-01-02", "owner": "ops"}',
      );
      for (const text of [`${card}\nThe record:\n${record}`, `The record:\n${record}\nSo:\n${card}`]) {
        expect(extractAnswerCard(text, declared)).toEqual({
          success: true,
          data: { run_id: "RUN-9AFMFG", status: "confirmed" },
        });
      }
    });

    it("a full tie (declared fields and other keys) goes to the last block when the cards agree", () => {
      const text = [
        fence('{"run_id": "RUN-2", "status": "confirmed", "x": 1}'),
        fence('{"run_id": "RUN-2", "status": "confirmed", "y": 2}'),
      ].join("\n");
      expect(extractAnswerCard(text, declared)).toEqual({
        success: true,
        data: { run_id: "RUN-2", status: "confirmed", y: 2 },
      });
    });

    it("cards of one shape that disagree hedge: no card, whichever holds the right value", () => {
      // The exploit audit's every-plausible-value: one card per candidate, then a card of lists.
      const text = [
        fence('{"run_id": "RUN-1", "status": "confirmed"}'),
        fence('{"run_id": "RUN-2", "status": "confirmed"}'),
        fence('{"run_id": ["RUN-1", "RUN-2"], "status": ["confirmed"], "notes": "any of these"}'),
      ].join("\n");
      const r = extractAnswerCard(text, declared);
      expect(r.success).toBe(false);
      if (!r.success) {
        expect(r.error.code).toBe("card-ambiguous");
        expect(r.error.message).toBe(
          "blocks 1 and 2 are both cards and disagree on 'run_id': one answer per message",
        );
      }
    });

    it("when no block holds a declared field, the last block is the card (or why there is none)", () => {
      const text = `${fence('{"a": 1}')}\n${fence('{"b": 2, "c": 3}')}`;
      expect(extractAnswerCard(text, declared)).toEqual({ success: true, data: { b: 2, c: 3 } });
      const broken = extractAnswerCard(`${fence('{"a": 1}')}\n${fence('{"b": 2,}')}`, declared);
      expect(broken.success).toBe(false);
      if (!broken.success) expect(broken.error.code).toBe("card-not-json");
    });

    it("a card that does not parse is still the card by the keys written in it: no card", () => {
      // The quoted response parses and holds `status`; the card names both fields but has a
      // trailing comma. Grading the quote instead would pass a card the agent never wrote.
      const text = [
        "Response:",
        fence('{"runId": "RUN-9AFMFG", "status": "confirmed"}'),
        "Answer:",
        fence('{"run_id": "RUN-9AFMFG", "status": "confirmed",}'),
      ].join("\n");
      const r = extractAnswerCard(text, declared);
      expect(r.success).toBe(false);
      if (!r.success) {
        expect(r.error.code).toBe("card-not-json");
        expect(r.error.message).toMatch(/^the last ```json block is not valid JSON/);
      }
      const first = extractAnswerCard(
        `${fence('{"run_id": "RUN-9AFMFG", "status": "confirmed",}')}\n${fence('{"status": "x"}')}`,
        declared,
      );
      expect(first.success).toBe(false);
      if (!first.success) expect(first.error.message).toMatch(/^block 1 of the ```json/);
    });

    it("a block holding an array holds no field, even of the objects inside it", () => {
      const text = `${fence('{"run_id": "RUN-1", "status": "confirmed"}')}\n${fence('[{"run_id": "RUN-1", "status": "confirmed"}]')}`;
      expect(extractAnswerCard(text, declared)).toEqual({
        success: true,
        data: { run_id: "RUN-1", status: "confirmed" },
      });
    });

    it("counts a field named twice in the declaration once", () => {
      const text = `${fence('{"run_id": "R", "status": "s"}')}\n${fence('{"run_id": "Q"}')}`;
      expect(extractAnswerCard(text, ["run_id", "run_id", "status"])).toEqual({
        success: true,
        data: { run_id: "R", status: "s" },
      });
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
